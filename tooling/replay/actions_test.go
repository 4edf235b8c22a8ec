package replay

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// TestReplayActions replays, sync by sync, every CRI call the kubelet made
// for the pod before its removal against podactions.Compute.
//
// The calls of one SyncPod come one after the other in a fixed order: the
// kills (StopContainer; with KillPod every running container, then
// StopPodSandbox for each sandbox), RunPodSandbox, then CreateContainer and
// StartContainer for each container started (ephemeral, init, regular); or,
// for a RestartAllContainers reset, the reset's StopContainer and
// RemoveContainer calls. The test walks the calls in time order. At the
// first call not yet explained it computes podactions on the state the
// kubelet held then (stateAt) and requires the calls that follow to be
// exactly that decision:
//
//   - RunPodSandbox iff CreateSandbox, with the decided attempt;
//   - the StopContainer calls are exactly ContainersToKill (all running
//     containers with KillPod): no kill missing, none extra, so the
//     containers not killed are checked too; each call's timeout is the one
//     termination.ContainerGracePeriod and StopTimeout give for the kill's
//     reason; each kill message the kubelet logged ("Message for Container
//     of pod") equals the decided message;
//   - StopPodSandbox for every sandbox iff KillPod;
//   - a CreateContainer for each container to start, in the decided order;
//     a decided start without a call is accepted only when the kubelet
//     logged, for that container, a sync that failed with CrashLoopBackOff
//     right after (the start was refused by the back-off, which
//     TestReplayBackOff checks), or with an image manager error
//     (ErrImagePull, ImagePullBackOff, ErrImageNeverPull: podactions
//     decides the start, the image manager refuses it before any
//     CreateContainer); where the capture recorded PullImage calls, a
//     failed PullImage of the container's image right after the decision
//     is that refusal and ends the sync (image-pull-flaky: the start
//     decided with the sandbox's creation, the pull failed, and a sync
//     14 s later pulled and created the container);
//   - for a reset, the StopContainer (Kill) and RemoveContainer calls in the
//     decided order, and nothing else.
//
// Several syncs can follow each other within milliseconds (a sidecar
// started, then the app in the next sync). The decision of the first sync
// must be used up completely before the next call opens a new sync, which
// is computed again on the state at that call; a decision that merged two
// syncs into one (app started together with the sidecar) is caught where a
// poll or a back-off separates them (startorder, appkilled, restartall),
// not where the calls are contiguous. One exception is known from the
// kubelet: a sync that creates a sandbox starts its containers in it, so
// when it started none and the next call creates one there, that call was
// its own and undecided.
//
// Not compared: RemoveContainer calls outside a reset (the container
// deletor, garbage collection and pruning of init containers remove exited
// instances on their own schedule; they are not podactions decisions) and
// the attempt numbers of CreateContainer (restart counts, which
// TestReplayStatus checks); syncs that made no call (a start refused by the
// back-off, nothing to do) leave no trace to compare.
//
// stateAt rebuilds the runtime at a call's time from the instances'
// timestamps (created, started, finished; removed by a RemoveContainer
// before it), and the sandboxes from the last poll before it. Probe results
// come from the kubelet's log (probes_test.go).
func TestReplayActions(t *testing.T) {
	gates := features.V1_37()
	for _, f := range loadFixtures(t) {
		t.Run(f.Scenario, func(t *testing.T) {
			evs, err := f.probeTimeline()
			if err != nil {
				t.Fatalf("probe results: %v", err)
			}
			removed := f.terminatingAt()
			var calls []criCall
			for _, c := range f.CRICalls {
				if !removed.IsZero() && !c.Time.Before(removed) {
					continue
				}
				switch c.Method {
				case "RunPodSandbox", "StopPodSandbox", "CreateContainer", "StopContainer", "RemoveContainer":
					calls = append(calls, c)
				case "PullImage":
					// A failed pull is the image manager refusing a
					// decided start (recorded since the registry capture).
					if c.Error != "" {
						calls = append(calls, c)
					}
				}
			}
			checkStarts(t, f, removed)
			var msgs []killMessage
			for _, m := range f.killMessages() {
				if removed.IsZero() || m.At.Before(removed) {
					msgs = append(msgs, m)
				}
			}
			r := &replayer{t: t, f: f, gates: gates, evs: evs, calls: calls, msgs: msgs, msgUsed: make([]bool, len(msgs))}
			for r.i < len(calls) {
				r.sync()
			}
			for k, m := range msgs {
				if !r.msgUsed[k] {
					t.Errorf("kill message for %s (%s) logged at %s, no replayed decision killed it: %q",
						m.Name, m.ID[:12], m.At.Format("15:04:05.000"), m.Message)
				}
			}
			c := r.cov
			t.Logf("%d syncs replayed over %d calls: %d sandbox creations (attempt compared), %d starts, %d kills (%d timeouts, %d logged messages compared), %d sandbox stops, %d reset removals; %d decided starts refused by the back-off (log), %d by the image manager (log or a failed PullImage: %d); not compared: %d RemoveContainer calls outside resets",
				c.syncs, len(calls), c.sandboxes, c.starts, c.kills, c.timeouts, c.messages, c.sandboxStops, c.resetRemovals, c.backOff, c.imageRefused, c.failedPulls, c.gcRemoves)
			// A pod whose image can never be had starts nothing: its
			// decided starts must then all have been refused by the image
			// manager, as logged.
			if c.syncs == 0 || (c.starts == 0 && c.imageRefused == 0) {
				t.Errorf("nothing replayed")
			}
		})
	}
}

type coverage struct {
	syncs, sandboxes, starts, kills, timeouts, messages, sandboxStops, resetRemovals, backOff, imageRefused, failedPulls, gcRemoves int
}

type replayer struct {
	t       *testing.T
	f       *fixture
	gates   features.Set
	evs     []probeEvent
	calls   []criCall
	i       int
	msgs    []killMessage
	msgUsed []bool
	cov     coverage
}

// peek returns the index of the next call of the sync from j on, skipping
// RemoveContainer calls unless removes is set (they are not podactions
// decisions outside a reset), or -1.
func (r *replayer) peek(j int, removes bool) int {
	for ; j < len(r.calls); j++ {
		if r.calls[j].Method == "RemoveContainer" && !removes {
			continue
		}
		return j
	}
	return -1
}

func callString(c criCall) string {
	s := c.Method + " " + c.Name
	if c.ID != "" {
		s += " " + c.ID[:12]
	}
	if c.Sandbox != "" && c.Method != "CreateContainer" {
		s += " sandbox " + c.Sandbox[:12]
	}
	return s + " at " + c.Time.Format("15:04:05.000")
}

// sync explains the calls from r.i on as one SyncPod.
func (r *replayer) sync() {
	t, f := r.t, r.f
	first := r.calls[r.i]
	at := first.Time
	pod, st, acts := r.decide(at)
	where := fmt.Sprintf("sync at %s", at.Format("15:04:05.000"))
	if first.Method == "RemoveContainer" && len(acts.ContainersToReset) == 0 {
		r.cov.gcRemoves++
		r.i++
		return
	}
	j := r.i
	bad := func(format string, args ...any) {
		t.Errorf("%s: %s\npodactions on the state then:\n%s", where, fmt.Sprintf(format, args...), acts)
	}
	expect := func(method, id string, removes bool) (criCall, bool) {
		k := r.peek(j, removes)
		if k < 0 || r.calls[k].Method != method || (id != "" && r.calls[k].ID != id && r.calls[k].Sandbox != id) {
			got := "no further call"
			if k >= 0 {
				got = callString(r.calls[k])
			}
			bad("decided %s %s, next call: %s", method, id, got)
			return criCall{}, false
		}
		for ; j < k; j++ {
			r.cov.gcRemoves++
		}
		j = k + 1
		return r.calls[k], true
	}
	defer func() {
		if j == r.i {
			bad("call %s is not what podactions decided", callString(first))
			j++
		}
		r.i = j
		r.cov.syncs++
	}()

	if len(acts.ContainersToReset) > 0 {
		for _, rs := range acts.ContainersToReset {
			if rs.Kill {
				if _, ok := expect("StopContainer", rs.ID, true); !ok {
					return
				}
				r.cov.kills++
			}
			if _, ok := expect("RemoveContainer", rs.ID, true); !ok {
				return
			}
			r.cov.resetRemovals++
		}
		return
	}

	// Kills, in any order (the kubelet ranges over a map, or kills in
	// parallel with KillPod).
	kills := map[string]podactions.Kill{}
	for _, k := range acts.ContainersToKill {
		kills[k.ID] = k
	}
	if acts.KillPod {
		for _, c := range st.Containers {
			if c.State == runtimestate.Running {
				if _, ok := kills[c.ID]; !ok {
					kills[c.ID] = podactions.Kill{ID: c.ID, Name: c.Name}
				}
			}
		}
	}
	for n := 0; n < len(kills); n++ {
		k := r.peek(j, false)
		if k < 0 || r.calls[k].Method != "StopContainer" {
			var ids []string
			for id, kl := range kills {
				ids = append(ids, kl.Name+" "+id[:12])
			}
			sort.Strings(ids)
			got := "no further call"
			if k >= 0 {
				got = callString(r.calls[k])
			}
			bad("decided to kill %v, %d still to come, next call: %s", ids, len(kills)-n, got)
			return
		}
		c := r.calls[k]
		kl, ok := kills[c.ID]
		if !ok {
			bad("the kubelet stopped %s, podactions did not kill it", callString(c))
			return
		}
		delete(kills, c.ID)
		n--
		for ; j < k; j++ {
			r.cov.gcRemoves++
		}
		j = k + 1
		r.cov.kills++
		spec := f.specIn(pod, kl.Name)
		if spec != nil && (spec.Lifecycle == nil || spec.Lifecycle.PreStop == nil) && c.Timeout != nil {
			grace := termination.ContainerGracePeriod(pod, spec, vocab.KillReason(kl.Reason), r.gates)
			want := termination.StopTimeout(grace, termination.StopOptions{Features: r.gates}).Timeout
			if *c.Timeout != want {
				bad("StopContainer %s timeout %d s, termination gives %d s for reason %q", kl.Name, *c.Timeout, want, kl.Reason)
			}
			r.cov.timeouts++
		}
	}
	for _, kl := range acts.ContainersToKill {
		if !loggedMessage(kl.Message) {
			continue
		}
		found := false
		for n, m := range r.msgs {
			if !r.msgUsed[n] && m.ID == kl.ID && !m.At.Before(at.Add(-200*time.Millisecond)) && !m.At.After(at.Add(5*time.Millisecond)) {
				r.msgUsed[n], found = true, true
				if m.Message != kl.Message || m.Name != kl.Name {
					bad("kill of %s: the kubelet logged message %q, podactions gives %q", kl.Name, m.Message, kl.Message)
				}
				r.cov.messages++
				break
			}
		}
		if !found {
			bad("kill of %s with message %q: the kubelet logged no such message", kl.Name, kl.Message)
		}
	}
	if acts.KillPod {
		want := map[string]bool{}
		for _, s := range st.Sandboxes {
			want[s.ID] = true
		}
		for len(want) > 0 {
			k := r.peek(j, false)
			if k < 0 || r.calls[k].Method != "StopPodSandbox" || !want[r.calls[k].Sandbox] {
				bad("KillPod: StopPodSandbox expected for %d sandboxes", len(want))
				return
			}
			delete(want, r.calls[k].Sandbox)
			for ; j < k; j++ {
				r.cov.gcRemoves++
			}
			j = k + 1
			r.cov.sandboxStops++
		}
	}
	if acts.CreateSandbox {
		c, ok := expect("RunPodSandbox", "", false)
		if !ok {
			return
		}
		if c.Attempt != acts.Attempt {
			bad("RunPodSandbox attempt %d, podactions decided attempt %d", c.Attempt, acts.Attempt)
		}
		r.cov.sandboxes++
		// SyncPod starts its containers in the sandbox it created: when
		// this sync started none and the very next call creates one in
		// it, that start was this sync's and podactions did not decide it.
		// A start decided and refused (back-off, image manager) counts:
		// the next CreateContainer is then a later sync's.
		decided := func() int { return r.cov.starts + r.cov.backOff + r.cov.imageRefused }
		before := decided()
		defer func() {
			if k := r.peek(j, false); k >= 0 && decided() == before && r.calls[k].Method == "CreateContainer" && r.calls[k].Sandbox == c.Response {
				bad("%s in the sandbox this sync created, not decided by it", callString(r.calls[k]))
			}
		}()
	}
	var starts []string
	for _, l := range [][]podactions.Ref{acts.EphemeralContainersToStart, acts.InitContainersToStart, acts.ContainersToStart} {
		for _, ref := range l {
			starts = append(starts, ref.Name)
		}
	}
	for _, name := range starts {
		k := r.peek(j, false)
		if k >= 0 && r.calls[k].Method == "CreateContainer" && r.calls[k].Name == name {
			for ; j < k; j++ {
				r.cov.gcRemoves++
			}
			j = k + 1
			r.cov.starts++
			continue
		}
		// A failed PullImage of the container's image: the image manager
		// refused the decided start (image-pull-flaky); the sync ends
		// there and a later one starts the container.
		if spec := f.specIn(pod, name); k >= 0 && spec != nil && r.calls[k].Method == "PullImage" && r.calls[k].Image == spec.Image {
			for ; j < k; j++ {
				r.cov.gcRemoves++
			}
			j = k + 1
			r.cov.imageRefused++
			r.cov.failedPulls++
			continue
		}
		refused := false
		for _, b := range f.backOffAt(name) {
			if !b.Before(at) && b.Before(at.Add(3*time.Second)) {
				refused = true
			}
		}
		imageRefused := false
		for _, b := range f.imageFailureAt(name) {
			if !b.Before(at) && b.Before(at.Add(3*time.Second)) {
				imageRefused = true
			}
		}
		if imageRefused && !refused {
			r.cov.imageRefused++
			continue
		}
		if !refused {
			got := "no further call"
			if k >= 0 {
				got = callString(r.calls[k])
			}
			bad("decided to start %s, the kubelet did not (next call: %s) and logged no back-off for it", name, got)
			continue
		}
		r.cov.backOff++
	}
}

// decide returns the pod, the runtime state and podactions' decision at t.
func (r *replayer) decide(at time.Time) (*v1.Pod, *runtimestate.Pod, podactions.Actions) {
	f := r.f
	o := f.observationAt(at)
	pod := f.specAt(at)
	var prev *v1.PodStatus
	if o != nil {
		prev = o.Status
	}
	st := f.stateAt(at)
	opts := podactions.Options{Probes: map[string]vocab.ProbeResults{}}
	for id, res := range probesAt(r.evs, at) {
		p := vocab.ProbeResults{Liveness: res["liveness"], Startup: res["startup"]}
		if p != (vocab.ProbeResults{}) {
			opts.Probes[id] = p
		}
	}
	// The RestartAllContainers mark is what the kubelet derives from the
	// status it generates at the start of the sync.
	ph := podstatus.Compute(pod, st, podstatus.Options{Features: r.gates, Cached: prev, Now: at, RuntimeType: "containerd"}).Phase.Phase
	opts.RestartAllContainers = restart.RestartingAllContainers(pod, st, prev, ph, r.gates)
	opts.Features = r.gates
	// Resizes: the allocated pod and the actuated record the kubelet held.
	pod = f.allocatedAt(pod, at)
	opts.Actuated = actuatedAt(o)
	return pod, st, podactions.Compute(pod, st, opts)
}

// specAt returns the pod as the kubelet held it at t: the fixture's pod, or,
// once the harness added an ephemeral container (through the API, which
// the kubelet watches), the pod the next observation records (the poll
// reads the pod after the kubelet acted on it).
func (f *fixture) specAt(t time.Time) *v1.Pod {
	pod := f.Pod
	for _, e := range f.Events {
		if !strings.HasPrefix(e.What, "ephemeral container") || !e.Time.Before(t) {
			continue
		}
		for _, o := range f.Observations {
			if o.Pod != nil && !o.Time.Before(e.Time) {
				pod = o.Pod
				break
			}
		}
	}
	return pod
}

// observationAt returns the last observation made at or before t (nil
// before the first).
func (f *fixture) observationAt(t time.Time) *observation {
	var out *observation
	for i := range f.Observations {
		if f.Observations[i].Time.After(t) {
			break
		}
		out = &f.Observations[i]
	}
	return out
}

// stateAt rebuilds the runtime's view at t: every instance created before
// t and not removed before t, in the state its timestamps give at t
// (running from its start, exited from its finish, with the exit details
// the runtime reported), and the sandboxes of the last poll before t plus
// any created before t that a later poll shows.
func (f *fixture) stateAt(t time.Time) *runtimestate.Pod {
	st := &runtimestate.Pod{UID: f.Pod.UID, Name: f.Pod.Name, Namespace: f.Pod.Namespace}
	seen := map[string]bool{}
	if o := f.observationAt(t); o != nil {
		st.Name, st.Namespace = o.Runtime.Name, o.Runtime.Namespace
		for _, s := range o.Runtime.Sandboxes {
			st.Sandboxes = append(st.Sandboxes, s)
			seen[s.ID] = true
		}
	}
	for _, o := range f.Observations {
		for _, s := range o.Runtime.Sandboxes {
			if !seen[s.ID] && s.CreatedAt.Before(t) {
				st.Sandboxes = append(st.Sandboxes, s)
				seen[s.ID] = true
			}
		}
	}
	removedAt := map[string]time.Time{}
	for _, c := range f.CRICalls {
		if c.Method == "RemoveContainer" && c.Error == "" {
			removedAt[c.ID] = c.Time
		}
	}
	for _, c := range f.instances() {
		if !c.CreatedAt.Before(t) {
			continue
		}
		if r, ok := removedAt[c.ID]; ok && r.Before(t) {
			continue
		}
		switch {
		case !c.FinishedAt.IsZero() && c.FinishedAt.Before(t):
			// as reported
		case !c.StartedAt.IsZero() && c.StartedAt.Before(t):
			c.State, c.ExitCode, c.Reason, c.Message, c.FinishedAt = runtimestate.Running, 0, "", "", time.Time{}
		default:
			c.State, c.ExitCode, c.Reason, c.Message, c.StartedAt, c.FinishedAt = runtimestate.Created, 0, "", "", time.Time{}, time.Time{}
		}
		st.Containers = append(st.Containers, c)
	}
	st.Normalize()
	return st
}

// specIn returns the spec of the container named name in pod, in any list.
func (f *fixture) specIn(pod *v1.Pod, name string) *v1.Container {
	for _, l := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range l {
			if l[i].Name == name {
				return &l[i]
			}
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		if c := &pod.Spec.EphemeralContainers[i]; c.Name == name {
			v := v1.Container(c.EphemeralContainerCommon)
			return &v
		}
	}
	return nil
}

// checkStarts checks that every successful CreateContainer before removal
// was followed by a StartContainer of the new instance.
func checkStarts(t *testing.T, f *fixture, removed time.Time) {
	started := map[string]bool{}
	for _, c := range f.CRICalls {
		if c.Method == "StartContainer" {
			started[c.ID] = true
		}
	}
	for _, c := range f.CRICalls {
		if c.Method == "CreateContainer" && c.Error == "" && (removed.IsZero() || c.Time.Before(removed)) && !started[c.Response] {
			t.Errorf("CreateContainer %s at %s: no StartContainer for %s", c.Name, c.Time.Format("15:04:05.000"), c.Response)
		}
	}
}
