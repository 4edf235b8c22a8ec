package sim

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim/internal/engine"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SyncTerminatingPod and SyncTerminatedPod (kubelet.go), the status
// manager's TerminatePod, and the kill of a pod's containers
// (kuberuntime_container.go killContainer, killPodWithSyncResult).

func (s *syncer) syncTerminating() {
	if w := s.in.Memory.Worker; w != nil && w.ObservedRuntime {
		s.syncTerminatingRuntime()
		return
	}
	pod, in, m := s.pod, s.in, &s.out.Memory
	st := s.generate(false)
	if in.Eviction != nil {
		// The kill's status function (kubelet.go SyncTerminatingPod
		// applies it to the first status only).
		applyEviction(&st, pod, *in.Eviction, in.Kubelet.Features, metav1.NewTime(s.now()))
	}
	s.store(st, "SyncTerminatingPod")
	grace := in.Grace
	if grace <= 0 {
		grace, _ = termination.EffectiveGracePeriod(0, pod, nil, in.Kubelet.Features)
	}
	killStart := s.now()
	t := s.planKill(termination.Options{
		Features:            in.Kubelet.Features,
		GracePeriodOverride: &grace,
		PreStop:             s.preStops(),
	})
	s.applyKill(t)
	// Liveness and startup results go with their workers.
	for id, r := range m.Probes {
		r.Liveness, r.Startup = vocab.ProbeNoResult, vocab.ProbeNoResult
		m.Probes[id] = r
	}
	// The kubelet re-reads the runtime: every container has stopped now.
	stopped := stoppedView(in.Runtime, t, killStart, in.Containers)
	s.in.Runtime = stopped
	st = s.generate(true)
	s.store(st, "SyncTerminatingPod")
	s.out.Requeue = RequeueNow
}

// syncTerminatingRuntime is SyncTerminatingRuntimePod (kubelet.go): an
// orphan the kubelet has no configuration for (after a restart of the
// kubelet, a pod removed while it was down) is killed with the grace
// period override of 1 s the kill carries, and no status is generated or
// stored; the worker then forgets the pod (completeTerminatingRuntimePod).
// The pod worker's grace period is not read: the kubelet passes none.
func (s *syncer) syncTerminatingRuntime() {
	override := int64(1)
	t := s.planKill(termination.Options{
		Features:            s.in.Kubelet.Features,
		GracePeriodOverride: &override,
		PreStop:             s.preStops(),
	})
	s.applyKill(t)
	s.out.Requeue = RequeueNever
}

func (s *syncer) syncTerminated() {
	m := &s.out.Memory
	st := s.generate(true)
	s.store(st, "SyncTerminatedPod")
	s.waitForUnmount()
	// TerminatePod: the final, forced version.
	final := terminatePod(s.pod, *m.Status)
	// A refused TerminatePod leaves podIsFinished unset.
	m.Finished = s.store(final, "TerminatePod")
	s.out.Requeue = RequeueNever
}

// waitForUnmount is SyncTerminatedPod's wait for the pod's volumes
// (volume_manager.go WaitForUnmount): it checks at once, then every
// 300 ms, whether the volume manager has unmounted them; the poll for the
// pod's volume directories after it (kubelet.go, every 100 ms, at once
// first) passes at its first check, since unmounting removed them. The
// sync, and so TerminatePod and the kubelet's delete of the API object,
// waits that long.
func (s *syncer) waitForUnmount() {
	u := s.in.VolumesUnmounted
	if u.IsZero() || !s.now().Before(u) {
		return
	}
	wait := u.Sub(s.now())
	polls := (wait + unmountPoll - 1) / unmountPoll
	s.clock += polls * unmountPoll
	s.out.Messages = append(s.out.Messages, fmt.Sprintf("SyncTerminatedPod: waited %s for the volumes to be unmounted (WaitForUnmount polls every %s)", polls*unmountPoll, unmountPoll))
}

// unmountPoll is WaitForUnmount's poll period (volume_manager.go
// podAttachAndMountRetryInterval).
const unmountPoll = 300 * time.Millisecond

// volumeLoopPeriod is the period of the volume manager's populator and
// reconciler loops (volume_manager.go reconcilerLoopSleepPeriod,
// desiredStateOfWorldPopulatorLoopSleepPeriod).
const volumeLoopPeriod = 100 * time.Millisecond

// volumesUnmountedAt is when the volume manager has unmounted the volumes
// of a pod whose SyncTerminatingPod completed at done: the populator's
// next pass removes them from the desired state once the pod worker says
// the pod's runtime may be removed (desired_state_of_world_populator.go
// findAndRemoveDeletedPods), the reconciler's next pass after that
// unmounts them (the tear-down of an emptyDir, projected, secret or
// configMap volume takes milliseconds, taken as none).
func volumesUnmountedAt(c engine.Clocks, done time.Time) time.Time {
	removed := engine.NextAfter(c.VolumePopulator, volumeLoopPeriod, done)
	return engine.NextAfter(c.VolumeReconciler, volumeLoopPeriod, removed)
}

// hasMountedVolumes: some volume of the pod is mounted into a container
// (init, regular or ephemeral) or given to one as a device; the volume
// manager mounts only those (util.GetPodVolumeNames).
func hasMountedVolumes(spec *v1.PodSpec) bool {
	if len(spec.Volumes) == 0 {
		return false
	}
	// A pod has a few volumes: a scan, no map made on the sync's path.
	declared := func(name string) bool {
		for i := range spec.Volumes {
			if spec.Volumes[i].Name == name {
				return true
			}
		}
		return false
	}
	uses := func(mounts []v1.VolumeMount, devices []v1.VolumeDevice) bool {
		for _, m := range mounts {
			if declared(m.Name) {
				return true
			}
		}
		for _, d := range devices {
			if declared(d.Name) {
				return true
			}
		}
		return false
	}
	for i := range spec.InitContainers {
		if uses(spec.InitContainers[i].VolumeMounts, spec.InitContainers[i].VolumeDevices) {
			return true
		}
	}
	for i := range spec.Containers {
		if uses(spec.Containers[i].VolumeMounts, spec.Containers[i].VolumeDevices) {
			return true
		}
	}
	for i := range spec.EphemeralContainers {
		c := &spec.EphemeralContainers[i].EphemeralContainerCommon
		if uses(c.VolumeMounts, c.VolumeDevices) {
			return true
		}
	}
	return false
}

// terminatePod mirrors the status manager's TerminatePod: once the pod
// has initialized (read from the pod's own status, pod.Status, as the
// kubelet reads it), regular containers with no terminated state are
// reported as unknown failures; so are the init containers before the
// last that ever tried to start; and a pod that is not static is given a
// terminal phase (a static pod keeps its phase).
func terminatePod(pod *v1.Pod, st v1.PodStatus) v1.PodStatus {
	// The lists it changes, and the conditions storeStatus changes, are
	// copies; the rest is shared when storeStatus writes none of its
	// times (see patchStatus).
	if normalized(&st) {
		st.ContainerStatuses = slices.Clone(st.ContainerStatuses)
		st.InitContainerStatuses = slices.Clone(st.InitContainerStatuses)
		st.Conditions = slices.Clone(st.Conditions)
	} else {
		st = *st.DeepCopy()
	}
	unknown := func() v1.ContainerState {
		return v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
			Reason:   "ContainerStatusUnknown",
			Message:  "The container could not be located when the pod was terminated",
			ExitCode: 137,
		}}
	}
	if podInitialized(pod) {
		for i := range st.ContainerStatuses {
			if st.ContainerStatuses[i].State.Terminated == nil {
				st.ContainerStatuses[i].State = unknown()
			}
		}
	}
	for i := range initializedPrefix(st.InitContainerStatuses) {
		if st.InitContainerStatuses[i].State.Terminated == nil {
			st.InitContainerStatuses[i].State = unknown()
		}
	}
	if !phase.IsStaticPod(pod) && st.Phase != v1.PodSucceeded && st.Phase != v1.PodFailed {
		st.Phase = v1.PodFailed
	}
	return st
}

// initializedPrefix is the status manager's initializedContainers: the
// statuses up to the last one that left the waiting state (or has a last
// termination); the first alone when none did.
func initializedPrefix(l []v1.ContainerStatus) []v1.ContainerStatus {
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].State.Waiting == nil || l[i].LastTerminationState.Terminated != nil {
			return l[:i+1]
		}
	}
	if len(l) > 0 {
		return l[:1]
	}
	return nil
}

// podInitialized is the status manager's hasPodInitialized, which reads
// the pod's own status (pod.Status): no init containers; or a regular
// container that left the waiting state or has a last termination; or the
// last init container's status shows it done (a sidecar running and
// started, a regular init container that exited 0).
func podInitialized(pod *v1.Pod) bool {
	if len(pod.Spec.InitContainers) == 0 {
		return true
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.LastTerminationState.Terminated != nil || cs.State.Waiting == nil {
			return true
		}
	}
	n := len(pod.Status.InitContainerStatuses)
	if n == 0 || n > len(pod.Spec.InitContainers) {
		return false
	}
	c := &pod.Spec.InitContainers[n-1]
	cs := pod.Status.InitContainerStatuses[n-1]
	if restart.IsSidecar(c) {
		return cs.State.Running != nil && cs.Started != nil && *cs.Started
	}
	for _, t := range []*v1.ContainerStateTerminated{cs.LastTerminationState.Terminated, cs.State.Terminated} {
		if t != nil && t.ExitCode == 0 {
			return true
		}
	}
	return false
}

// applyKill turns a termination timeline into calls and advances the
// sync's clock past it.
func (s *syncer) applyKill(t termination.Timeline) {
	base := s.clock
	type timed struct {
		at time.Duration
		c  Call
	}
	var calls []timed
	end := time.Duration(0)
	hooks := s.preStops()
	for _, k := range t.Containers {
		if k.Error != "" {
			s.out.Messages = append(s.out.Messages, fmt.Sprintf("cannot kill %s: %s", k.Name, k.Error))
			continue
		}
		if k.Stop.PreStopRan {
			if hc, ok := s.preStopExec(containerByName(s.pod, k.Name), k.Name, k.ID, base, hooks[k.Name], base+k.Exit); ok {
				calls = append(calls, timed{0, hc})
			}
		}
		timeout := k.Stop.Timeout
		code := int32(137)
		if r, ok := s.in.Containers[k.ID]; ok && !k.Killed {
			code = r.TermExitCode
		}
		sc := Call{Method: "StopContainer", Name: k.Name, ID: k.ID, Timeout: &timeout, ExitCode: code, Killed: k.Killed}
		if k.Stop.PreStopRan {
			sc.PreStop = k.Stop.PreStopElapsed
		}
		if k.Stop.Waited {
			sc.Waited = k.Stop.WaitElapsed
		}
		sc.AfterExit = k.Return - k.Exit
		calls = append(calls, timed{k.StopCall, sc})
		calls[len(calls)-1].c.Done = base + k.Return
		if k.Return > end {
			end = k.Return
		}
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].at < calls[j].at })
	for _, c := range calls {
		c.c.At = base + c.at
		s.out.Calls = append(s.out.Calls, c.c)
		s.out.ActedOnRuntime = true
	}
	if t.SandboxStop > end {
		end = t.SandboxStop
	}
	s.clock = base + end
	for _, id := range t.Sandboxes {
		s.call(Call{Method: "StopPodSandbox", ID: id}, s.in.Delays.StopPodSandbox.D())
	}
}

// stopContainer is killContainer for one instance, waited for in SyncPod.
func (s *syncer) stopContainer(name, id string, c *v1.Container, grace int64, override *int64) {
	s.stopInstance(name, id, c, grace, override, s.in.Containers[id], false)
}

// stopInstance is killContainer for one instance that behaves as run;
// exited says its process has already ended (StopContainer then returns at
// once, and an exec or httpGet preStop hook fails at once).
func (s *syncer) stopInstance(name, id string, c *v1.Container, grace int64, override *int64, run Run, exited bool) {
	hasPreStop := c != nil && c.Lifecycle != nil && c.Lifecycle.PreStop != nil
	var preStop time.Duration
	if hasPreStop && (!exited || c.Lifecycle.PreStop.Sleep != nil) {
		preStop = hookDuration(c, run)
	}
	st := termination.StopTimeout(grace, termination.StopOptions{Features: s.in.Kubelet.Features, GracePeriodOverride: override, HasPreStop: hasPreStop, PreStop: preStop})
	hookAt := s.clock
	if st.PreStopRan {
		s.clock += st.PreStopElapsed
	}
	timeout := st.Timeout
	exit, killed := exitAfterSignal(run, s.termDelay(run, id, s.clock), timeout)
	code := run.TermExitCode
	if killed {
		code = 137
	}
	if exited {
		exit, killed, code = 0, false, run.ExitCode
	}
	if st.PreStopRan {
		s.preStopCall(c, name, id, hookAt, preStop, s.clock+exit)
	}
	c0 := Call{Method: "StopContainer", Name: name, ID: id, Timeout: &timeout, ExitCode: code, Killed: killed}
	if st.PreStopRan {
		c0.PreStop = st.PreStopElapsed
	}
	if !exited {
		c0.AfterExit = s.in.Delays.StopContainer.D()
	}
	s.call(c0, exit+c0.AfterExit)
}

// exitAfterSignal is how long after SIGTERM a process with behaviour r
// ends, given how long it takes to exit on the signal (termDelay) and the
// stop timeout, and whether it had to be killed.
func exitAfterSignal(r Run, after time.Duration, timeout int64) (time.Duration, bool) {
	limit := time.Duration(timeout) * time.Second
	if r.IgnoreSIGTERM || after >= limit {
		return limit, true
	}
	return after, false
}

// termDelay is how long the process of instance id, behaving as r, takes
// to exit on a SIGTERM sent at the sync's clock offset at: TermAfter, after
// the end of the step the signal falls in when the run has a TermStep
// (its steps follow one another from the instance's start). An instance
// whose start is unknown exits TermAfter after the signal.
func (s *syncer) termDelay(r Run, id string, at time.Duration) time.Duration {
	d := r.TermAfter.D()
	step := r.TermStep.D()
	if step <= 0 {
		return d
	}
	started, ok := s.startedAt(id)
	if !ok {
		return d
	}
	if since := s.in.Now.Add(at).Sub(started); since > 0 {
		d += (step - since%step) % step
	}
	return d
}

// startedAt is when instance id started: from the runtime the sync
// read, or from this sync's own StartContainer call.
func (s *syncer) startedAt(id string) (time.Time, bool) {
	for _, c := range s.in.Runtime.Containers {
		if c.ID == id && !c.StartedAt.IsZero() {
			return c.StartedAt, true
		}
	}
	for _, c := range s.out.Calls {
		if c.Method == "StartContainer" && c.ID == id {
			return s.in.Now.Add(c.Done), true
		}
	}
	return time.Time{}, false
}

// planKill is termination.Plan with each process's exit after the stop
// signal taken from when its signal comes (termDelay). A sidecar's signal
// waits for other containers' exits, so the plan is made again with the
// last plan's signal times until they hold: a container waits only for
// containers that do not wait for it, so one more plan per container
// settles it.
func (s *syncer) planKill(opts termination.Options) termination.Timeline {
	opts.ExitAfter = s.exitAfters(nil)
	opts.StopReturnAfter = s.in.Delays.StopContainer.D()
	t := termination.Plan(s.pod, s.in.Runtime, opts)
	for range len(s.in.Runtime.Containers) {
		signals := make(map[string]time.Duration, len(t.Containers))
		for _, k := range t.Containers {
			signals[k.ID] = k.StopCall
		}
		next := s.exitAfters(signals)
		if maps.Equal(next, opts.ExitAfter) {
			break
		}
		opts.ExitAfter = next
		t = termination.Plan(s.pod, s.in.Runtime, opts)
	}
	return t
}

func hookDuration(c *v1.Container, r Run) time.Duration {
	if c.Lifecycle.PreStop.Sleep != nil {
		return time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	}
	return r.PreStop.D()
}

func (s *syncer) preStops() map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, c := range s.in.Runtime.Containers {
		// Only a running instance is killed and runs its hook; an exited
		// one of the same name (an earlier run) must not lend it its own.
		if c.State != runtimestate.Running {
			continue
		}
		spec := containerByName(s.pod, c.Name)
		if spec == nil || spec.Lifecycle == nil || spec.Lifecycle.PreStop == nil || spec.Lifecycle.PreStop.Sleep != nil {
			continue
		}
		if r, ok := s.in.Containers[c.ID]; ok {
			out[c.Name] = r.PreStop.D()
		}
	}
	return out
}

// exitAfters are, per running container, how long its process takes to
// exit after the stop signal, sent at the sync's clock plus signals[id]
// (plus 0 for an instance not listed).
func (s *syncer) exitAfters(signals map[string]time.Duration) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, c := range s.in.Runtime.Containers {
		if c.State != runtimestate.Running {
			continue
		}
		r, ok := s.in.Containers[c.ID]
		if !ok {
			out[c.Name] = 0
			continue
		}
		if !r.IgnoreSIGTERM {
			out[c.Name] = s.termDelay(r, c.ID, s.clock+signals[c.ID])
		}
	}
	return out
}

// stoppedView is the runtime state after a kill: every running or created
// instance has exited and every sandbox is not ready.
func stoppedView(st *runtimestate.Pod, t termination.Timeline, start time.Time, runs map[string]Run) *runtimestate.Pod {
	out := st.DeepCopy()
	exits := map[string]termination.ContainerStop{}
	for _, k := range t.Containers {
		exits[k.ID] = k
	}
	for i := range out.Containers {
		c := &out.Containers[i]
		if c.State != runtimestate.Running && c.State != runtimestate.Created {
			continue
		}
		k, ok := exits[c.ID]
		if !ok || k.Error != "" || k.StopFailed {
			continue
		}
		c.State = runtimestate.Exited
		c.FinishedAt = start.Add(k.Exit)
		c.ExitCode = 137
		if !k.Killed {
			if r, ok := runs[c.ID]; ok {
				c.ExitCode = int(r.TermExitCode)
			}
		}
		c.Reason = exitReason(int32(c.ExitCode))
	}
	for i := range out.Sandboxes {
		out.Sandboxes[i].Ready = false
	}
	return out
}
