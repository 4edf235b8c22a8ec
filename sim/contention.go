package sim

import "time"

// DefaultRuntimeContention is how much longer a contended CRI call takes
// for each other contended call it overlaps (Config.RuntimeContention;
// the model is runtimeLedger's). 14 ms is the fit to the burst captures
// (testdata/captured/burst-01 to burst-13: thirteen manifests written at
// one instant on a 2-core node, each app's StartContainer returned 1.11 to
// 1.44 s after them, where a pod alone takes about 0.4 s): simulated
// together with the default delays, each pod's start is within 0.16 s of
// its capture, 0.05 s on average (10 ms: 0.26 s on average, 16 ms: 0.10
// s; every call alone: 0.86 s), and the median RunPodSandbox,
// CreateContainer, StartContainer and StopPodSandbox within 0.11 s of the
// captured ones (TestReplayBurstContention in tooling/replay).
const DefaultRuntimeContention = 14 * time.Millisecond

// contended reports whether a CRI call of this method is work the runtime
// does, slowed by the calls it serves at the same time. StopContainer is
// not (its time is the process's, then RuntimeDelays.StopContainer), nor
// are ExecSync (the hook's command) and PullImage (the image service and
// the registry).
func contended(method string) bool {
	switch method {
	case "RunPodSandbox", "StopPodSandbox", "CreateContainer", "StartContainer",
		"RemoveContainer", "UpdateContainerResources":
		return true
	}
	return false
}

// runtimeLedger is the node's container runtime as the pods' syncs share
// it: how many contended calls are in flight, so that calls that overlap
// take longer.
//
// The model: each contended call takes its RuntimeDelays time plus per for
// every other contended call of the node's syncs that overlaps it. When a
// call starts, it takes per longer for each call in flight then, and each
// of those takes per longer too, with everything its sync does after it
// (syncPlay.shift): two calls that overlap slow each other alike, whichever
// started first, as the thirteen pods of the burst captures did (the first
// sandbox to start took 0.38 s where a pod alone took 0.07 to 0.23 s). A
// call lengthened while it runs is shown in the timeline as it returned
// (its entry's Call.Done grows). The container GC's calls are outside the
// model: they neither slow nor are slowed.
//
// The calls in flight are not visited when one starts: g grows by per
// instead, and a sync whose call is in flight takes its part of the growth
// since the call started (settle) when its next step comes, which then
// comes later; so a start costs the same however many calls fly.
//
// Only a node that runs its pods one at a time in time order keeps a
// ledger (Node.inOrder): each call then starts after every call that
// started before it, whichever pod made it.
type runtimeLedger struct {
	per time.Duration
	// live counts the contended calls started and not done.
	live int
	// g is per times the number of calls that started while others were
	// in flight: a call in flight is slowed by g's growth since it started.
	g time.Duration
	// starting are the calls started at the instant being run (flush).
	starting []start
}

type start struct {
	sp *syncPlay
	i  int
}

// started is call i of sp starting (at its pod's loop's time). It counts
// once every pod has run that instant (flush): a call that returns at the
// very time another starts does not overlap it, whichever pod runs first.
func (l *runtimeLedger) started(sp *syncPlay, i int) {
	if contended(sp.out.Calls[i].Method) {
		l.starting = append(l.starting, start{sp, i})
	}
}

// flush counts the calls that started at the instant the node has just
// run, in the order they started.
func (l *runtimeLedger) flush() {
	for _, st := range l.starting {
		sp := st.sp
		if sp.p.playing != sp || st.i >= len(sp.out.Calls) {
			continue // the sync was abandoned
		}
		l.settle(sp)
		if sp.fly < 0 {
			l.live++
		}
		if n := l.live - 1; n > 0 {
			l.g += l.per
			sp.shift(sp.start.Add(sp.out.Calls[st.i].At), time.Duration(n)*l.per)
		}
		sp.fly, sp.g0, sp.applied = st.i, l.g, 0
	}
	clear(l.starting)
	l.starting = l.starting[:0]
}

// settle shifts sp by the growth of g its call in flight has not taken yet.
func (l *runtimeLedger) settle(sp *syncPlay) {
	if sp.fly < 0 {
		return
	}
	if d := l.g - sp.g0 - sp.applied; d > 0 {
		sp.applied += d
		sp.shift(sp.start.Add(sp.out.Calls[sp.fly].At), d)
	}
}

// done is sp's call in flight returning, or its sync abandoned (the pod's
// simulation ended, the kubelet stopped).
func (l *runtimeLedger) done(sp *syncPlay) {
	if sp.fly >= 0 {
		sp.fly = -1
		l.live--
	}
}

// defaultContention is what RuntimeContention 0 means; a test sets it to
// 0 to run the in-order engine with calls that take their delays alone.
var defaultContention = DefaultRuntimeContention
