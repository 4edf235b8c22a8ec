package podstatus_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/manifest"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Check accepts every status Compute writes: whatever the hidden inputs of
// getPhase were, some value of them explains the phase, and the container
// status rules are the kubelet's own.
//
// One kind of runtime state is left out: a regular container still running
// in an older sandbox while a newer one is ready. A kubelet never leaves
// one (SyncPod creates a new sandbox only after killing every container of
// the old ones succeeded), and for it Compute writes Pending where the API
// status shows a running container, which Check rightly calls impossible
// (-rapid.seed=9064719441722548902 drew one).
func TestCheckAcceptsComputedStatuses(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := podgen.Cases(podgen.CaseOptions{}).Draw(rt, "case")
		if runsInOldSandbox(c.Pod, c.State) {
			rt.Skip("a regular container runs in an old sandbox next to a newer ready one")
		}
		want := podstatus.Compute(c.Pod, c.State, podstatus.Options{Features: c.Features, Probes: c.Probes})
		pod := c.Pod.DeepCopy()
		pod.Status = *want.Status.DeepCopy()
		terminal := want.Status.Phase == v1.PodSucceeded || want.Status.Phase == v1.PodFailed
		for _, m := range podstatus.Check(pod, podstatus.RecomputeOptions{Features: c.Features, PodIsTerminal: terminal}) {
			rt.Fatalf("Check rejects a status Compute wrote:\n%s", m)
		}
	})
}

// A pod with an init container, a sidecar and an app, and the status a
// kubelet writes once all three have started.
func checkedPod(t *testing.T) *v1.Pod {
	t.Helper()
	pod, err := manifest.Pod([]byte(`{apiVersion: v1, kind: Pod, metadata: {name: web, namespace: shop, uid: u-1}, spec: {
  restartPolicy: Always, terminationGracePeriodSeconds: 30,
  initContainers: [{name: migrate, image: busybox}, {name: proxy, image: envoy, restartPolicy: Always}],
  containers: [{name: b-app, image: nginx}, {name: a-log, image: fluentbit}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	st, err := runtimestate.FromYAML([]byte(`{sandboxes: [{id: s1, ready: true, ip: 10.244.1.6}], containers: [
  {id: c4, name: a-log, sandboxID: s1, state: running},
  {id: c3, name: b-app, sandboxID: s1, state: running},
  {id: c2, name: proxy, sandboxID: s1, state: running},
  {id: c1, name: migrate, sandboxID: s1, state: exited, exitCode: 0, reason: Completed}]}`))
	if err != nil {
		t.Fatal(err)
	}
	pod.Status = podstatus.Compute(pod, st, podstatus.Options{}).Status
	if ms := podstatus.Check(pod, podstatus.RecomputeOptions{}); len(ms) > 0 {
		t.Fatalf("the unbroken status is rejected: %v", ms)
	}
	return pod
}

// Each hand-broken status is caught, on the field that was broken.
func TestCheckCatchesBrokenStatuses(t *testing.T) {
	no, yes := false, true
	for _, tc := range []struct {
		name  string
		field string // a field Check must name
		brk   func(s *v1.PodStatus)
	}{
		{"phase Pending while everything runs", "status.phase", func(s *v1.PodStatus) { s.Phase = v1.PodPending }},
		{"phase Succeeded while everything runs", "status.conditions[Ready].status", func(s *v1.PodStatus) { s.Phase = v1.PodSucceeded }},
		{"Ready=False with every container ready", "status.conditions[Ready].status", func(s *v1.PodStatus) { setCond(s, v1.PodReady, v1.ConditionFalse) }},
		{"ContainersReady=True with an unready app", "status.conditions[ContainersReady].status", func(s *v1.PodStatus) {
			s.ContainerStatuses[1].Ready = false
			s.ContainerStatuses[1].Started = &no
		}},
		{"Initialized=False after the init container completed", "status.conditions[Initialized].status", func(s *v1.PodStatus) { setCond(s, v1.PodInitialized, v1.ConditionFalse) }},
		{"no Initialized condition", "status.conditions[Initialized]", func(s *v1.PodStatus) { dropCond(s, v1.PodInitialized) }},
		{"a wrong condition message", "status.conditions[Ready].message", func(s *v1.PodStatus) { s.Conditions[2].Message = "all good" }},
		{"container statuses in spec order, not by name", "status.containerStatuses[*].name", func(s *v1.PodStatus) {
			s.ContainerStatuses[0], s.ContainerStatuses[1] = s.ContainerStatuses[1], s.ContainerStatuses[0]
		}},
		{"a status for a container the spec lacks", "status.containerStatuses[*].name", func(s *v1.PodStatus) {
			s.ContainerStatuses = append(s.ContainerStatuses, v1.ContainerStatus{Name: "ghost", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "ContainerCreating"}}, Started: &no})
		}},
		{"a container without a status", "status.containerStatuses[*].name", func(s *v1.PodStatus) { s.ContainerStatuses = s.ContainerStatuses[:1] }},
		{"a state that is both running and terminated", "status.containerStatuses[b-app].state", func(s *v1.PodStatus) {
			s.ContainerStatuses[1].State.Terminated = &v1.ContainerStateTerminated{ExitCode: 1}
		}},
		{"ready while waiting", "status.containerStatuses[b-app].ready", func(s *v1.PodStatus) {
			s.ContainerStatuses[1].State = v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
			s.ContainerStatuses[1].Started = &no
		}},
		{"started while terminated", "status.containerStatuses[a-log].started", func(s *v1.PodStatus) {
			s.ContainerStatuses[0].State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}
			s.ContainerStatuses[0].Ready = false
			s.ContainerStatuses[0].Started = &yes
		}},
		{"no started at all", "status.containerStatuses[a-log].started", func(s *v1.PodStatus) { s.ContainerStatuses[0].Started = nil }},
		{"a completed init container not ready", "status.initContainerStatuses[migrate].ready", func(s *v1.PodStatus) { s.InitContainerStatuses[0].Ready = false }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := checkedPod(t)
			tc.brk(&pod.Status)
			ms := podstatus.Check(pod, podstatus.RecomputeOptions{})
			var fields []string
			for _, m := range ms {
				fields = append(fields, m.Field)
				if m.Field == tc.field {
					if !strings.Contains(m.String(), m.Why) {
						t.Errorf("String() lacks the rule: %q", m.String())
					}
					return
				}
			}
			t.Errorf("not caught on %s; Check named %v", tc.field, fields)
		})
	}
}

func setCond(s *v1.PodStatus, t v1.PodConditionType, v v1.ConditionStatus) {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			s.Conditions[i].Status = v
		}
	}
}

func dropCond(s *v1.PodStatus, t v1.PodConditionType) {
	var kept []v1.PodCondition
	for _, c := range s.Conditions {
		if c.Type != t {
			kept = append(kept, c)
		}
	}
	s.Conditions = kept
}

// A status nobody but the scheduler wrote is not checked; nor is a nil pod.
func TestCheckNothingToCheck(t *testing.T) {
	pod := checkedPod(t)
	pod.Status = v1.PodStatus{Phase: v1.PodPending, Conditions: []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionTrue}}}
	if ms := podstatus.Check(pod, podstatus.RecomputeOptions{}); ms != nil {
		t.Errorf("scheduler-only status: %v", ms)
	}
	if podstatus.KubeletWrote(&pod.Status) {
		t.Error("KubeletWrote on a status without container statuses")
	}
	if ms := podstatus.Check(nil, podstatus.RecomputeOptions{}); ms != nil {
		t.Errorf("nil pod: %v", ms)
	}
}

// runsInOldSandbox: a regular container's running instance is in a sandbox
// other than the active one while the active one is ready.
func runsInOldSandbox(pod *v1.Pod, st *runtimestate.Pod) bool {
	active := st.ActiveSandbox()
	if active == nil {
		return false
	}
	regular := map[string]bool{}
	for _, c := range pod.Spec.Containers {
		regular[c.Name] = true
	}
	for _, c := range st.Containers {
		if regular[c.Name] && c.State == runtimestate.Running && c.SandboxID != active.ID {
			return true
		}
	}
	return false
}
