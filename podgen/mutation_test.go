package podgen

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// This file tests the generators the podstatus and podactions tests draw
// from (StatusCases, PreviousStatus, StartFailures, PodWithStatus,
// Actuated, PodActionsOptions, PodActionsProbes, ReadinessGates) and
// Case's description, against what their doc comments promise. They were
// exercised only by other packages' tests, which gremlins does not count
// (issue 24).

// shapeSet records which named shapes a run of draws showed, and fails the
// test for each one never seen.
type shapeSet map[string]bool

func (s shapeSet) mark(name string, ok bool) {
	if ok {
		s[name] = true
	} else if _, in := s[name]; !in {
		s[name] = false
	}
}

// want registers shapes that are marked only when some part of a value
// exists (a mount, a condition), so that check fails when none ever does.
func (s shapeSet) want(names ...string) {
	for _, n := range names {
		s.mark(n, false)
	}
}

func (s shapeSet) check(t *testing.T) {
	t.Helper()
	var missing []string
	for name, ok := range s {
		if !ok {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("shape never drawn: %s", m)
	}
}

// containerNames returns the names of pod's containers by list.
func containerNames(pod *v1.Pod) (initNames, regular, ephemeral []string) {
	for _, c := range pod.Spec.InitContainers {
		initNames = append(initNames, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		regular = append(regular, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		ephemeral = append(ephemeral, c.Name)
	}
	return initNames, regular, ephemeral
}

func quantityIn(q resource.Quantity, values ...string) bool {
	return slices.ContainsFunc(values, func(v string) bool { return q.Cmp(resource.MustParse(v)) == 0 })
}

// mountProblems lists what v1.37.2 API validation rejects in the volume
// mounts of pod's containers: a mount of a volume the pod does not have,
// and a recursiveReadOnly other than Disabled without readOnly
// (validateMountRecursiveReadOnly). The same validation also rejects such
// a recursiveReadOnly with a mountPropagation other than None, which
// StatusCases draws on purpose (its doc says so): the kubelet's
// resolveRecursiveReadOnly has an error path for it.
func mountProblems(pod *v1.Pod) []string {
	var errs []string
	vols := map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		vols[v.Name] = true
	}
	check := func(c *v1.Container) {
		for _, m := range c.VolumeMounts {
			if !vols[m.Name] {
				errs = append(errs, fmt.Sprintf("%s mounts unknown volume %q", c.Name, m.Name))
			}
			if r := m.RecursiveReadOnly; r != nil && *r != v1.RecursiveReadOnlyDisabled {
				if !m.ReadOnly {
					errs = append(errs, fmt.Sprintf("%s: recursiveReadOnly %s without readOnly", c.Name, *r))
				}
			}
			if m.MountPropagation != nil && m.RecursiveReadOnly == nil {
				errs = append(errs, fmt.Sprintf("%s: mountPropagation without recursiveReadOnly (podgen sets it only with one)", c.Name))
			}
		}
	}
	for i := range pod.Spec.InitContainers {
		check(&pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		check(&pod.Spec.Containers[i])
	}
	return errs
}

// containerStatusProblems checks the statuses of one list against what
// PreviousStatus and PodWithStatus promise: names of the list's containers
// (in spec order) or "ghost" (last), container IDs among ids[name],
// restart counts 0-6, at most one state, terminated exit codes among the
// usual ones and the container's rule codes.
func containerStatusProblems(list []v1.ContainerStatus, names []string, ids func(name string) []string, rules map[string][]int32, sorted bool) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	last := -1
	for i, cs := range list {
		if cs.Name == "ghost" {
			if sorted && i != len(list)-1 {
				bad("ghost status not last")
			}
			continue
		}
		at := slices.Index(names, cs.Name)
		if at < 0 {
			bad("status of %q, not a container of this list", cs.Name)
			continue
		}
		if sorted && at <= last {
			bad("status of %q out of spec order", cs.Name)
		}
		last = at
		if cs.ContainerID != "" && !slices.Contains(ids(cs.Name), cs.ContainerID) {
			bad("%s: containerID %q not one of %v", cs.Name, cs.ContainerID, ids(cs.Name))
		}
		if (cs.ContainerID == "") != (cs.ImageID == "") {
			bad("%s: containerID %q with imageID %q", cs.Name, cs.ContainerID, cs.ImageID)
		}
		if cs.RestartCount < 0 || cs.RestartCount > 6 {
			bad("%s: restartCount %d", cs.Name, cs.RestartCount)
		}
		n := 0
		for _, set := range []bool{cs.State.Waiting != nil, cs.State.Running != nil, cs.State.Terminated != nil} {
			if set {
				n++
			}
		}
		if n > 1 {
			bad("%s: %d states", cs.Name, n)
		}
		codes := append([]int32{0, 1, 137, 42, 2, 143}, rules[cs.Name]...)
		for _, ts := range []*v1.ContainerStateTerminated{cs.State.Terminated, cs.LastTerminationState.Terminated} {
			if ts == nil {
				continue
			}
			if !slices.Contains(codes, ts.ExitCode) {
				bad("%s: exit code %d", cs.Name, ts.ExitCode)
			}
			if ts.FinishedAt.Before(&ts.StartedAt) || ts.StartedAt.Time.Before(Epoch) {
				bad("%s: started %v finished %v", cs.Name, ts.StartedAt, ts.FinishedAt)
			}
			if ts.ContainerID != "" && !slices.Contains(ids(cs.Name), ts.ContainerID) {
				bad("%s: terminated containerID %q", cs.Name, ts.ContainerID)
			}
		}
	}
	return errs
}

func ruleCodes(pod *v1.Pod) map[string][]int32 {
	out := map[string][]int32{}
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			for _, r := range c.RestartPolicyRules {
				if r.ExitCodes != nil {
					out[c.Name] = append(out[c.Name], r.ExitCodes.Values...)
				}
			}
		}
	}
	return out
}

// previousProblems checks a status drawn by PreviousStatus(pod, st).
func previousProblems(pod *v1.Pod, st *runtimestate.Pod, s *v1.PodStatus) []string {
	ids := func(name string) []string {
		out := []string{"containerd://gone-" + name}
		if st != nil {
			for _, in := range st.Instances(name) {
				out = append(out, "containerd://"+in.ID)
			}
		}
		return out
	}
	initNames, regular, ephemeral := containerNames(pod)
	rules := ruleCodes(pod)
	var errs []string
	errs = append(errs, containerStatusProblems(s.InitContainerStatuses, initNames, ids, rules, true)...)
	errs = append(errs, containerStatusProblems(s.ContainerStatuses, regular, ids, rules, true)...)
	errs = append(errs, containerStatusProblems(s.EphemeralContainerStatuses, ephemeral, ids, rules, true)...)
	if !slices.Contains([]v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed}, s.Phase) {
		errs = append(errs, fmt.Sprintf("phase %q", s.Phase))
	}
	for _, c := range s.Conditions {
		if c.Type != v1.AllContainersRestarting {
			errs = append(errs, fmt.Sprintf("condition %s", c.Type))
		}
	}
	if len(s.Conditions) > 1 {
		errs = append(errs, "more than one AllContainersRestarting condition")
	}
	return errs
}

func anyStatus(s *v1.PodStatus, fn func(cs *v1.ContainerStatus) bool) bool {
	for _, list := range [][]v1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses, s.EphemeralContainerStatuses} {
		for i := range list {
			if fn(&list[i]) {
				return true
			}
		}
	}
	return false
}

// TestStatusCases checks every StatusCase: the pod passes the API checks
// (volume mounts included), the state is consistent with it, the previous
// status is one PreviousStatus promises and sits in Previous or in
// Pod.Status, and the reason-cache entries name containers; and that the
// shapes the doc comment lists appear.
func TestStatusCases(t *testing.T) {
	opts := CaseOptions{}
	seen := shapeSet{}
	seen.want("a read-write mount", "a read-only mount", "recursiveReadOnly unset on a read-only mount",
		"recursiveReadOnly Disabled", "recursiveReadOnly IfPossible", "recursiveReadOnly Enabled",
		"mountPropagation None", "recursiveReadOnly with a mountPropagation the API server rejects",
		"a cpu request of a few millicores", "a cpu limit of a few millicores",
		"a reported cpu request of a few millicores", "a reported cpu limit of a few millicores")
	rapid.Check(t, func(rt *rapid.T) {
		// Twelve cases per check: the rarest shape (a mountPropagation
		// beside recursiveReadOnly) is in under 1 % of cases.
		for range 12 {
			c := StatusCases(opts).Draw(rt, "case")
			report(rt, "pod", append(podProblems(c.Pod, opts.Pod), mountProblems(c.Pod)...))
			prev := c.Previous
			seen.mark("previous in the status cache", prev != nil)
			seen.mark("previous in pod.status", prev == nil)
			if prev == nil {
				prev = &c.Pod.Status
			} else if !equalStatus(&c.Pod.Status, &v1.PodStatus{}) {
				rt.Fatalf("Previous set and Pod.Status not empty: %+v", c.Pod.Status)
			}
			report(rt, "previous status", previousProblems(c.Pod, c.State, prev))
			names := slices.Concat(containerNamesFlat(c.Pod))
			for n, f := range c.StartFailures {
				if !slices.Contains(names, n) {
					rt.Fatalf("start failure for %q, not a container", n)
				}
				if !slices.Contains(psStartFailureReasons, f.Reason) {
					rt.Fatalf("start failure reason %q", f.Reason)
				}
			}
			seen.mark("a start failure", len(c.StartFailures) > 0)
			for _, list := range [][]v1.Container{c.Pod.Spec.InitContainers, c.Pod.Spec.Containers} {
				for _, ctr := range list {
					for _, m := range ctr.VolumeMounts {
						if m.MountPath != "/mnt/"+m.Name {
							rt.Fatalf("mount path %q of %s", m.MountPath, m.Name)
						}
						seen.mark("a read-write mount", !m.ReadOnly)
						seen.mark("a read-only mount", m.ReadOnly)
						seen.mark("recursiveReadOnly unset on a read-only mount", m.ReadOnly && m.RecursiveReadOnly == nil)
						for _, mode := range []v1.RecursiveReadOnlyMode{v1.RecursiveReadOnlyDisabled, v1.RecursiveReadOnlyIfPossible, v1.RecursiveReadOnlyEnabled} {
							seen.mark("recursiveReadOnly "+string(mode), m.RecursiveReadOnly != nil && *m.RecursiveReadOnly == mode)
						}
						seen.mark("mountPropagation None", m.MountPropagation != nil && *m.MountPropagation == v1.MountPropagationNone)
						seen.mark("recursiveReadOnly with a mountPropagation the API server rejects", m.MountPropagation != nil &&
							*m.MountPropagation != v1.MountPropagationNone && *m.RecursiveReadOnly != v1.RecursiveReadOnlyDisabled)
					}
					if q, ok := ctr.Resources.Requests[v1.ResourceCPU]; ok {
						seen.mark("a cpu request of a few millicores", quantityIn(q, "1m", "2m", "3m"))
					}
					if q, ok := ctr.Resources.Limits[v1.ResourceCPU]; ok {
						seen.mark("a cpu limit of a few millicores", quantityIn(q, "5m", "10m", "11m"))
					}
				}
			}
			for _, in := range c.State.Containers {
				if r := in.Resources; r != nil && r.CPURequest != nil {
					// Cgroup shares never read back as 1m.
					if r.CPURequest.Cmp(resource.MustParse("1m")) == 0 {
						rt.Fatalf("%s reports a cpu request of 1m", in.ID)
					}
					seen.mark("a reported cpu request of a few millicores", quantityIn(*r.CPURequest, "2m", "3m", "4m"))
				}
				if r := in.Resources; r != nil && r.CPULimit != nil {
					seen.mark("a reported cpu limit of a few millicores", quantityIn(*r.CPULimit, "5m", "10m", "11m"))
				}
			}
		}
	})
	seen.check(t)

	// "About half the time" in the status cache.
	const draws = 600
	g := StatusCases(opts)
	n := 0
	for seed := range draws {
		if g.Example(seed).Previous != nil {
			n++
		}
	}
	if pct := 100 * n / draws; pct < 40 || pct > 60 {
		t.Errorf("previous status in the status cache in %d%% of draws, want about 50%%", pct)
	}
}

func containerNamesFlat(pod *v1.Pod) []string {
	a, b, c := containerNames(pod)
	return slices.Concat(a, b, c)
}

func equalStatus(a, b *v1.PodStatus) bool {
	return len(a.ContainerStatuses) == 0 && len(a.InitContainerStatuses) == 0 &&
		len(a.EphemeralContainerStatuses) == 0 && len(a.Conditions) == 0 && a.Phase == b.Phase
}

// TestPreviousStatus checks PreviousStatus with and without a runtime
// state: every status keeps its promises and each kind of status appears.
func TestPreviousStatus(t *testing.T) {
	seen := shapeSet{}
	completedOrError, consistent := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		for range 10 {
			pod := Pod(PodOptions{}).Draw(rt, "pod")
			var st *runtimestate.Pod
			if rapid.Bool().Draw(rt, "with state") {
				st = RuntimeState(pod, StateOptions{}).Draw(rt, "state")
			}
			s := PreviousStatus(pod, st).Draw(rt, "previous")
			report(rt, "previous status", previousProblems(pod, st, s))
			for _, cond := range []v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse} {
				seen.mark("AllContainersRestarting "+string(cond), len(s.Conditions) == 1 && s.Conditions[0].Status == cond)
			}
			seen.mark("no AllContainersRestarting", len(s.Conditions) == 0)
			for _, p := range []v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed} {
				seen.mark("phase "+string(p), s.Phase == p)
			}
			initNames, regular, ephemeral := containerNames(pod)
			seen.mark("an init container without a status", len(s.InitContainerStatuses) < len(initNames))
			seen.mark("a container without a status", len(s.ContainerStatuses) < len(regular))
			seen.mark("an ephemeral container status", len(s.EphemeralContainerStatuses) > 0)
			seen.mark("an ephemeral container without a status", len(s.EphemeralContainerStatuses) < len(ephemeral))
			seen.mark("a status of a container the spec does not have", anyStatus(s, func(cs *v1.ContainerStatus) bool { return cs.Name == "ghost" }))
			seen.mark("a status naming an instance of the state", anyStatus(s, func(cs *v1.ContainerStatus) bool {
				return strings.HasPrefix(cs.ContainerID, "containerd://") && !strings.HasPrefix(cs.ContainerID, "containerd://gone-")
			}))
			seen.mark("a status naming an instance that is gone", anyStatus(s, func(cs *v1.ContainerStatus) bool {
				return strings.HasPrefix(cs.ContainerID, "containerd://gone-")
			}))
			seen.mark("a status without a containerID", anyStatus(s, func(cs *v1.ContainerStatus) bool { return cs.ContainerID == "" }))
			for _, r := range psWaitingReasons {
				seen.mark("waiting reason "+r, anyStatus(s, func(cs *v1.ContainerStatus) bool {
					return cs.State.Waiting != nil && cs.State.Waiting.Reason == r
				}))
			}
			for _, r := range psTerminatedReasons {
				seen.mark("terminated reason "+r, anyStatus(s, func(cs *v1.ContainerStatus) bool {
					return cs.State.Terminated != nil && cs.State.Terminated.Reason == r
				}))
			}
			seen.mark("Completed with exit code 0 and Error otherwise", anyStatus(s, func(cs *v1.ContainerStatus) bool {
				ts := cs.State.Terminated
				return ts != nil && ((ts.ExitCode == 0) == (ts.Reason == "Completed")) && ts.Reason != ""
			}))
			rules := ruleCodes(pod)
			seen.mark("an exit code of the container's own rules", anyStatus(s, func(cs *v1.ContainerStatus) bool {
				ts := cs.State.Terminated
				return ts != nil && !slices.Contains([]int32{0, 1, 137, 42, 2, 143}, ts.ExitCode) && slices.Contains(rules[cs.Name], ts.ExitCode)
			}))
			anyStatus(s, func(cs *v1.ContainerStatus) bool {
				if ts := cs.State.Terminated; ts != nil && (ts.Reason == "Completed" || ts.Reason == "Error") {
					completedOrError++
					if (ts.ExitCode == 0) == (ts.Reason == "Completed") {
						consistent++
					}
				}
				return false
			})
			seen.mark("running", anyStatus(s, func(cs *v1.ContainerStatus) bool { return cs.State.Running != nil }))
			seen.mark("no state", anyStatus(s, func(cs *v1.ContainerStatus) bool {
				return cs.State.Running == nil && cs.State.Waiting == nil && cs.State.Terminated == nil
			}))
			seen.mark("a last termination state", anyStatus(s, func(cs *v1.ContainerStatus) bool { return cs.LastTerminationState.Terminated != nil }))
			seen.mark("a signal", anyStatus(s, func(cs *v1.ContainerStatus) bool {
				return cs.State.Terminated != nil && cs.State.Terminated.Signal != 0
			}))
			seen.mark("restartCount 6", anyStatus(s, func(cs *v1.ContainerStatus) bool { return cs.RestartCount == 6 }))
			seen.mark("ready", anyStatus(s, func(cs *v1.ContainerStatus) bool { return cs.Ready }))
			seen.mark("started true", anyStatus(s, func(cs *v1.ContainerStatus) bool { return cs.Started != nil && *cs.Started }))
			seen.mark("started false", anyStatus(s, func(cs *v1.ContainerStatus) bool { return cs.Started != nil && !*cs.Started }))
			seen.mark("started nil", anyStatus(s, func(cs *v1.ContainerStatus) bool { return cs.Started == nil }))
			seen.mark("old volume mounts", anyStatus(s, func(cs *v1.ContainerStatus) bool { return len(cs.VolumeMounts) > 0 }))
			seen.mark("old resources", anyStatus(s, func(cs *v1.ContainerStatus) bool { return cs.Resources != nil }))
		}
	})
	seen.check(t)
	// Half of the terminated states take their reason from the exit code
	// (Completed for 0, Error otherwise), the rest from the list: of the
	// Completed and Error reasons, most agree with the code.
	if completedOrError < 50 {
		t.Fatalf("only %d Completed or Error states", completedOrError)
	}
	if pct := 100 * consistent / completedOrError; pct < 70 {
		t.Errorf("%d%% of Completed and Error reasons agree with the exit code, want about 90%%", pct)
	}
}

// TestStartFailures checks the reason-cache entries: container names only,
// the listed reasons, CrashLoopBackOff most often, the kubelet's message
// shape, each container with an entry about a third of the time.
func TestStartFailures(t *testing.T) {
	seen := shapeSet{}
	rapid.Check(t, func(rt *rapid.T) {
		pod := Pod(PodOptions{}).Draw(rt, "pod")
		names := containerNamesFlat(pod)
		for n, f := range StartFailures(pod).Draw(rt, "failures") {
			if !slices.Contains(names, n) {
				rt.Fatalf("entry for %q, not a container", n)
			}
			want := fmt.Sprintf("%s restarting failed container=%s pod=%s_%s(%s)", f.Reason, n, pod.Name, pod.Namespace, pod.UID)
			if f.Message != want {
				rt.Fatalf("message %q, want %q", f.Message, want)
			}
			if !slices.Contains(psStartFailureReasons, f.Reason) {
				rt.Fatalf("reason %q", f.Reason)
			}
			seen.mark("reason "+f.Reason, true)
			seen.mark("an entry for an ephemeral container", strings.HasPrefix(n, "debug-"))
		}
	})
	for _, r := range psStartFailureReasons {
		seen.mark("reason "+r, false)
	}
	seen.check(t)

	const draws = 600
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app-0"}, {Name: "app-1"}, {Name: "app-2"}}}}
	g := StartFailures(pod)
	entries, crash := 0, 0
	for seed := range draws {
		for _, f := range g.Example(seed) {
			entries++
			if f.Reason == "CrashLoopBackOff" {
				crash++
			}
		}
	}
	if pct := 100 * entries / (3 * draws); pct < 26 || pct > 40 {
		t.Errorf("a container has an entry in %d%% of draws, want about 33%%", pct)
	}
	// Half of the entries are CrashLoopBackOff outright, and a sixth of
	// the rest: the most frequent by far.
	if pct := 100 * crash / max(entries, 1); pct < 48 || pct > 68 {
		t.Errorf("CrashLoopBackOff in %d%% of entries, want about 58%%", pct)
	}
}

// TestPodWithStatus checks pods with an API status as a client reads it.
func TestPodWithStatus(t *testing.T) {
	seen := shapeSet{}
	seen.want("condition status True", "condition status False", "condition status Unknown",
		"SchedulingGated", "a readiness-gate condition", "a condition listed twice")
	rapid.Check(t, func(rt *rapid.T) {
		for range 10 {
			pod := PodWithStatus(PodOptions{}).Draw(rt, "pod")
			// The readiness gates PodWithStatus adds are valid ones.
			report(rt, "pod", podProblems(pod, PodOptions{}))
			s := &pod.Status
			initNames, regular, ephemeral := containerNames(pod)
			ids := func(list []string, base int) func(string) []string {
				return func(name string) []string {
					out := []string{"containerd://gone-" + name}
					if i := slices.Index(list, name); i >= 0 && base >= 0 {
						out = append(out, fmt.Sprintf("containerd://c%02d", base+i))
					}
					return out
				}
			}
			rules := ruleCodes(pod)
			report(rt, "init statuses", containerStatusProblems(s.InitContainerStatuses, initNames, ids(initNames, 0), rules, false))
			report(rt, "statuses", containerStatusProblems(s.ContainerStatuses, regular, ids(regular, 50), rules, false))
			report(rt, "ephemeral statuses", containerStatusProblems(s.EphemeralContainerStatuses, ephemeral, ids(ephemeral, -1), rules, true))
			if !slices.Contains(psPhases, s.Phase) {
				rt.Fatalf("phase %q", s.Phase)
			}
			if !slices.Contains(psReasons, s.Reason) {
				rt.Fatalf("reason %q", s.Reason)
			}
			gates := map[v1.PodConditionType]bool{}
			for i, g := range pod.Spec.ReadinessGates {
				if want := v1.PodConditionType(fmt.Sprintf("example.com/gate-%d", i)); g.ConditionType != want {
					rt.Fatalf("readiness gate %d is %s, want %s", i, g.ConditionType, want)
				}
				gates[g.ConditionType] = true
			}
			if len(pod.Spec.ReadinessGates) > 2 {
				rt.Fatalf("%d readiness gates", len(pod.Spec.ReadinessGates))
			}
			count := map[v1.PodConditionType]int{}
			for _, c := range s.Conditions {
				count[c.Type]++
				switch c.Type {
				case v1.PodScheduled, v1.PodInitialized, v1.ContainersReady, v1.PodReady:
				default:
					if !gates[c.Type] {
						rt.Fatalf("condition of type %s", c.Type)
					}
				}
				if c.Reason == v1.PodReasonSchedulingGated && (c.Type != v1.PodScheduled || c.Status == v1.ConditionTrue) {
					rt.Fatalf("SchedulingGated on %s=%s", c.Type, c.Status)
				}
				seen.mark("condition status "+string(c.Status), true)
				seen.mark("SchedulingGated", c.Reason == v1.PodReasonSchedulingGated)
				seen.mark("a readiness-gate condition", gates[c.Type])
			}
			for ct, n := range count {
				if n > 2 {
					rt.Fatalf("%d conditions of type %s", n, ct)
				}
				seen.mark("a condition listed twice", n == 2)
			}
			seen.mark("PodScheduled missing", count[v1.PodScheduled] == 0)
			for _, p := range psPhases {
				seen.mark("phase "+string(p), s.Phase == p)
			}
			for _, r := range psReasons[1:] {
				seen.mark("reason "+r, s.Reason == r)
			}
			seen.mark("two readiness gates", len(pod.Spec.ReadinessGates) == 2)
			seen.mark("conditions out of order", !sort.SliceIsSorted(s.Conditions, func(i, j int) bool {
				return condRank(s.Conditions[i].Type) < condRank(s.Conditions[j].Type)
			}))
			seen.mark("statuses out of spec order", !inSpecOrder(s.ContainerStatuses, regular))
			seen.mark("init statuses out of spec order", !inSpecOrder(s.InitContainerStatuses, initNames))
			seen.mark("a status naming a running instance's ID", anyStatus(s, func(cs *v1.ContainerStatus) bool {
				return strings.HasPrefix(cs.ContainerID, "containerd://c")
			}))
			seen.mark("an ephemeral status", len(s.EphemeralContainerStatuses) > 0)
			seen.mark("startTime", s.StartTime != nil)
			if s.StartTime != nil && !s.StartTime.Time.Equal(Epoch.Add(60e9)) {
				rt.Fatalf("startTime %v", s.StartTime)
			}
			seen.mark("a deleted pod", pod.DeletionTimestamp != nil)
		}
	})
	seen.check(t)
}

// inSpecOrder tells whether the statuses of containers in names (others,
// such as "ghost", left out) are in the order of names.
func inSpecOrder(list []v1.ContainerStatus, names []string) bool {
	last := -1
	for _, cs := range list {
		if i := slices.Index(names, cs.Name); i >= 0 {
			if i < last {
				return false
			}
			last = i
		}
	}
	return true
}

// condRank orders condition types as PodWithStatus first lists them
// (kubelet-owned, then readiness gates).
func condRank(ct v1.PodConditionType) int {
	if i := slices.Index([]v1.PodConditionType{v1.PodScheduled, v1.PodInitialized, v1.ContainersReady, v1.PodReady}, ct); i >= 0 {
		return i
	}
	return 10
}

// TestActuated checks the actuated-resources records: only init and
// regular containers, at most three values changed from the spec, memory
// emptyDir limits from the spec's, 32Mi or 2Gi; a nil pod gives none.
// actuatedShapes are the shapes actuatedProblems marks.
var actuatedShapes = []string{"a container as the spec has it", "a container changed", "a container with none recorded",
	"pod level as the spec has it", "pod level changed", "pod level without pod-level resources in the spec",
	"pod level none recorded", "an emptyDir limit none recorded"}

func TestActuated(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		if a := Actuated(nil).Draw(rt, "actuated"); a.Containers != nil || a.Pod != nil || a.EmptyDirLimits != nil || a.Exact {
			rt.Fatalf("nil pod: %+v", a)
		}
	})
	seen := shapeSet{}
	seen.want(actuatedShapes...)
	rapid.Check(t, func(rt *rapid.T) {
		for range 10 {
			pod := Pod(PodOptions{}).Draw(rt, "pod")
			a := Actuated(pod).Draw(rt, "actuated")
			actuatedProblems(rt, pod, a, seen)
		}
	})
	seen.check(t)

	// Pod-level resources are recorded as the spec has them about half
	// the time (none 20 %, changed 30 %), not only when a change happens
	// to change nothing.
	type pair struct {
		pod *v1.Pod
		a   podactions.Actuated
	}
	g := rapid.Custom(func(t *rapid.T) pair {
		pod := Pod(PodOptions{}).Draw(t, "pod")
		return pair{pod, Actuated(pod).Draw(t, "actuated")}
	})
	withPodLevel, same := 0, 0
	for seed := range 3000 {
		p := g.Example(seed)
		if p.pod.Spec.Resources == nil {
			continue
		}
		withPodLevel++
		if p.a.Pod != nil && resourceDiff(*p.pod.Spec.Resources, *p.a.Pod) == 0 {
			same++
		}
	}
	if withPodLevel < 100 {
		t.Fatalf("only %d pods with pod-level resources in 3000", withPodLevel)
	}
	if pct := 100 * same / withPodLevel; pct < 40 || pct > 70 {
		t.Errorf("pod-level actuated as the spec has it for %d%% of pods with pod-level resources, want about 50%%", pct)
	}
}

func actuatedProblems(rt *rapid.T, pod *v1.Pod, a podactions.Actuated, seen shapeSet) {
	if a.Exact {
		rt.Fatal("Exact drawn")
	}
	spec := map[string]*v1.Container{}
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			spec[list[i].Name] = &list[i]
		}
	}
	for name, rr := range a.Containers {
		c, ok := spec[name]
		if !ok {
			rt.Fatalf("actuated resources of %q, not an init or regular container", name)
		}
		d := resourceDiff(c.Resources, rr)
		if d > 3 {
			rt.Fatalf("%s: %d values changed, want at most 3", name, d)
		}
		seen.mark("a container as the spec has it", d == 0)
		seen.mark("a container changed", d > 0)
	}
	for name := range spec {
		seen.mark("a container with none recorded", !hasKey(a.Containers, name))
	}
	if a.Pod != nil {
		var base v1.ResourceRequirements
		if pod.Spec.Resources != nil {
			base = *pod.Spec.Resources
		}
		d := resourceDiff(base, *a.Pod)
		if d > 3 {
			rt.Fatalf("pod level: %d values changed", d)
		}
		seen.mark("pod level as the spec has it", pod.Spec.Resources != nil && d == 0)
		seen.mark("pod level changed", pod.Spec.Resources != nil && d > 0)
		seen.mark("pod level without pod-level resources in the spec", pod.Spec.Resources == nil)
	} else {
		seen.mark("pod level none recorded", pod.Spec.Resources != nil)
	}
	limits := map[string]resource.Quantity{}
	for _, v := range pod.Spec.Volumes {
		if ed := v.EmptyDir; ed != nil && ed.Medium == v1.StorageMediumMemory && ed.SizeLimit != nil {
			limits[v.Name] = *ed.SizeLimit
			_, ok := a.EmptyDirLimits[v.Name]
			seen.mark("an emptyDir limit none recorded", !ok)
		}
	}
	for name, q := range a.EmptyDirLimits {
		l, ok := limits[name]
		if !ok {
			rt.Fatalf("emptyDir limit of %q, not a memory emptyDir with a size limit", name)
		}
		switch {
		case q.Cmp(l) == 0:
			seen.mark("an emptyDir limit the same", true)
		case quantityIn(q, "32Mi"):
			seen.mark("an emptyDir limit smaller", true)
		case quantityIn(q, "2Gi"):
			seen.mark("an emptyDir limit larger", true)
		default:
			rt.Fatalf("emptyDir %s limit %s (spec %s)", name, q.String(), l.String())
		}
	}
	for _, s := range []string{"an emptyDir limit the same", "an emptyDir limit smaller", "an emptyDir limit larger"} {
		seen.mark(s, false)
	}
}

func hasKey[V any](m map[string]V, k string) bool { _, ok := m[k]; return ok }

// resourceDiff counts the (list, resource) values that differ between a
// and b: changed, removed or added.
func resourceDiff(a, b v1.ResourceRequirements) int {
	n := 0
	for _, l := range [][2]v1.ResourceList{{a.Requests, b.Requests}, {a.Limits, b.Limits}} {
		keys := map[v1.ResourceName]bool{}
		for k := range l[0] {
			keys[k] = true
		}
		for k := range l[1] {
			keys[k] = true
		}
		for k := range keys {
			x, okx := l[0][k]
			y, oky := l[1][k]
			if okx != oky || x.Cmp(y) != 0 {
				n++
			}
		}
	}
	return n
}

// TestPodActionsOptions checks the options drawn for a case: the case's
// gates, its probe results as they are (podactions reads only liveness
// and startup), RestartAllContainers about a quarter of the time, actuated
// resources as Actuated promises.
func TestPodActionsOptions(t *testing.T) {
	seen := shapeSet{}
	seen.want(actuatedShapes...)
	seen.want("an instance with only a readiness result", "liveness only", "startup only")
	rapid.Check(t, func(rt *rapid.T) {
		for range 10 {
			podActionsOptionsCase(rt, seen)
		}
	})
	seen.check(t)

	const draws = 600
	c := Cases(CaseOptions{}).Example(1)
	g := PodActionsOptions(c)
	n := 0
	for seed := range draws {
		if g.Example(seed).RestartAllContainers {
			n++
		}
	}
	if pct := 100 * n / draws; pct < 18 || pct > 32 {
		t.Errorf("RestartAllContainers in %d%% of draws, want about 25%%", pct)
	}
}

func podActionsOptionsCase(rt *rapid.T, seen shapeSet) {
	c := Cases(CaseOptions{}).Draw(rt, "case")
	o := PodActionsOptions(c).Draw(rt, "options")
	if o.Features != c.Features {
		rt.Fatal("gates are not the case's")
	}
	for id, p := range c.Probes {
		got, ok := o.Probes[id]
		if !ok || got != p {
			rt.Fatalf("%s: %+v from %+v", id, got, p)
		}
		seen.mark("an instance with only a readiness result", p.Liveness == vocab.ProbeNoResult && p.Startup == vocab.ProbeNoResult && p.Readiness != vocab.ProbeNoResult)
		seen.mark("liveness only", p.Liveness != vocab.ProbeNoResult && p.Startup == vocab.ProbeNoResult)
		seen.mark("startup only", p.Startup != vocab.ProbeNoResult && p.Liveness == vocab.ProbeNoResult)
	}
	if len(o.Probes) != len(c.Probes) {
		rt.Fatalf("%d results from %d", len(o.Probes), len(c.Probes))
	}
	seen.mark("restart all containers", o.RestartAllContainers)
	actuatedProblems(rt, c.Pod, o.Actuated, seen)
}

// TestReadinessGatesAndSortedStatuses checks ReadinessGates (0-2 gates of
// the four types, each appearing) and that APIStatus sorts regular
// statuses by name, as the kubelet does, also past ten containers where
// name order is not spec order.
func TestReadinessGatesAndSortedStatuses(t *testing.T) {
	seen := shapeSet{}
	types := []v1.PodConditionType{"example.com/gate-0", "example.com/gate-1", v1.DisruptionTarget, v1.PodInitialized}
	rapid.Check(t, func(rt *rapid.T) {
		gates := ReadinessGates().Draw(rt, "gates")
		if len(gates) > 2 {
			rt.Fatalf("%d gates", len(gates))
		}
		seen.mark(fmt.Sprintf("%d gates", len(gates)), true)
		for _, g := range gates {
			if !slices.Contains(types, g.ConditionType) {
				rt.Fatalf("gate %s", g.ConditionType)
			}
			seen.mark("gate "+string(g.ConditionType), true)
		}

		pod := Pod(PodOptions{MaxContainers: 12}).Draw(rt, "pod")
		s := APIStatus(pod, APIStatusOptions{NoStrangers: true}).Draw(rt, "status")
		if !sort.SliceIsSorted(s.ContainerStatuses, func(i, j int) bool { return s.ContainerStatuses[i].Name < s.ContainerStatuses[j].Name }) {
			rt.Fatalf("statuses not sorted by name: %v", statusNames(s.ContainerStatuses))
		}
		seen.mark("more than ten statuses", len(s.ContainerStatuses) > 10)
	})
	for i := range 3 {
		seen.mark(fmt.Sprintf("%d gates", i), false)
	}
	for _, ty := range types {
		seen.mark("gate "+string(ty), false)
	}
	seen.check(t)
}

func statusNames(list []v1.ContainerStatus) []string {
	var out []string
	for _, cs := range list {
		out = append(out, cs.Name)
	}
	return out
}

// TestChanceEdges: chance never comes up at 0 % or below and always at
// 100 % or above.
func TestChanceEdges(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		if chance(rt, 0, "never") || chance(rt, -5, "never either") {
			rt.Fatal("chance(0) came up")
		}
		if !chance(rt, 100, "always") || !chance(rt, 150, "always too") {
			rt.Fatal("chance(100) did not come up")
		}
	})
}

// TestCaseString checks the description of a case against the case: the
// deletion and its grace, sandbox IPs, and how each instance's hash
// relates to its spec container.
func TestCaseString(t *testing.T) {
	seen := shapeSet{}
	seen.want("a deleted pod", "a sandbox with an IP")
	rapid.Check(t, func(rt *rapid.T) {
		for range 5 {
			caseStringCase(rt, seen)
		}
	})
	for _, w := range []string{"", " not-in-spec", " hash-missing", " hash-from-spec", " hash="} {
		seen.mark("instance"+w, false)
	}
	seen.check(t)
}

func caseStringCase(rt *rapid.T, seen shapeSet) {
	c := Cases(CaseOptions{}).Draw(rt, "case")
	s := c.String()
	if c.GoString() != "\n"+s {
		rt.Fatal("GoString is not a newline and String")
	}
	if d := c.Pod.DeletionTimestamp; d != nil {
		want := fmt.Sprintf(" deleted=T+%s(grace %d)", d.Sub(Epoch), *c.Pod.DeletionGracePeriodSeconds)
		if !strings.Contains(s, want) {
			rt.Fatalf("no %q in\n%s", want, s)
		}
		seen.mark("a deleted pod", true)
	}
	lines := strings.Split(s, "\n")
	for _, sb := range c.State.Sandboxes {
		line := lineWith(lines, "sandbox "+sb.ID+" ")
		wantIP := sb.IP != "" && !sb.NoIP && !sb.NoNetworkStatus
		if got := strings.Contains(line, " ip="+sb.IP); got != wantIP {
			rt.Fatalf("sandbox ip %q (noIP %t, no status %t) rendered as %q", sb.IP, sb.NoIP, sb.NoNetworkStatus, line)
		}
		seen.mark("a sandbox with an IP", wantIP)
	}
	for _, in := range c.State.Containers {
		line := lineWith(lines, "  "+in.ID+" "+in.Name+" ")
		spec, _ := specContainer(c.Pod, in.Name)
		var want string
		switch {
		case spec == nil:
			want = " not-in-spec"
		case in.HashMissing:
			want = " hash-missing"
		case in.Hash == 0:
			want = " hash-from-spec"
		case in.Hash != containerhash.Of(spec):
			want = fmt.Sprintf(" hash=%d(", in.Hash)
		}
		for _, w := range []string{" not-in-spec", " hash-missing", " hash-from-spec", " hash="} {
			if strings.Contains(line, w) != (want != "" && strings.HasPrefix(want, w)) {
				rt.Fatalf("instance %s (hash %d, missing %t) rendered as %q", in.ID, in.Hash, in.HashMissing, line)
			}
		}
		if strings.HasPrefix(want, " hash=") {
			want = " hash="
		}
		seen.mark("instance"+want, true)
	}
	// A hand-written state leaves Hash 0: the instance is taken to
	// come from the current spec.
	for i, in := range c.State.Containers {
		if spec, _ := specContainer(c.Pod, in.Name); spec != nil && !in.HashMissing {
			st := *c.State
			st.Containers = slices.Clone(st.Containers)
			st.Containers[i].Hash = 0
			c.State = &st
			if line := lineWith(strings.Split(c.String(), "\n"), "  "+in.ID+" "+in.Name+" "); !strings.Contains(line, " hash-from-spec") {
				rt.Fatalf("instance without a hash rendered as %q", line)
			}
			seen.mark("instance hash-from-spec", true)
			break
		}
	}
}

func lineWith(lines []string, prefix string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
