package sim

import "time"

// DefaultRuntimeContention is how much longer a CRI call takes for each
// other call the runtime is serving when it is made (Config.RuntimeContention).
// 24 ms is the least-squares fit of the additive model below to the 39
// sandbox, create and start calls of the thirteen pods of the burst
// captures (testdata/captured/burst-01 to burst-13: thirteen manifests
// written at one instant on a 2-core node): RunPodSandbox took 0.38 to
// 0.91 s there, CreateContainer 0.08 to 0.38 s and StartContainer 0.13 to
// 0.41 s, where the same node took 0.07-0.23 s, 0.01-0.06 s and
// 0.05-0.11 s for a pod alone. The fit brings the calls' root-mean-square
// error from 0.28 s (the per-call delays alone) to 0.14 s.
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
// it: the contended calls in flight, so that calls that overlap take
// longer.
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
// Only a node that runs its pods one at a time in time order keeps a
// ledger (Node.inOrder): each call then starts after every call that
// started before it, whichever pod made it.
type runtimeLedger struct {
	per time.Duration
	// flying are the contended calls started and not done.
	flying []flight
}

// flight is call i of the sync playing on sp (its epoch).
type flight struct {
	sp    *syncPlay
	epoch uint64
	i     int
}

// live reports whether f is still in flight at t: its sync is the one
// playing and the call returns after t (a pod whose simulation ended
// leaves its calls behind).
func (f flight) live(t time.Time) bool {
	return f.sp.epoch == f.epoch && f.i < len(f.sp.out.Calls) && f.sp.start.Add(f.sp.out.Calls[f.i].Done).After(t)
}

// started is call i of sp starting (at its pod's loop's time).
func (l *runtimeLedger) started(sp *syncPlay, i int) {
	if !contended(sp.out.Calls[i].Method) {
		return
	}
	now := sp.p.loop.Now
	kept := l.flying[:0]
	for _, f := range l.flying {
		if f.live(now) {
			kept = append(kept, f)
		}
	}
	clear(l.flying[len(kept):])
	l.flying = kept
	for _, f := range l.flying {
		f.sp.shift(now, l.per)
	}
	if n := len(l.flying); n > 0 {
		sp.shift(now, time.Duration(n)*l.per)
	}
	l.flying = append(l.flying, flight{sp: sp, epoch: sp.epoch, i: i})
}

// done is call i of sp returning.
func (l *runtimeLedger) done(sp *syncPlay, i int) {
	for k, f := range l.flying {
		if f.sp == sp && f.epoch == sp.epoch && f.i == i {
			l.flying = append(l.flying[:k], l.flying[k+1:]...)
			return
		}
	}
}

// defaultContention is what RuntimeContention 0 means; a test sets it to
// 0 to run the in-order engine with calls that take their delays alone.
var defaultContention = DefaultRuntimeContention
