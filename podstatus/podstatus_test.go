package podstatus

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func sec(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

func ptr[T any](v T) *T { return &v }

// diff stands in for cmp.Diff (go-cmp is not a direct dependency of the
// library module yet): "" when equal, both values otherwise.
func diff(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return fmt.Sprintf("want %+v\ngot  %+v", want, got)
}

// onePod is a pod with one container "app" (readiness probe when
// withReadiness) and restartPolicy p.
func onePod(p v1.RestartPolicy, withReadiness bool) *v1.Pod {
	c := v1.Container{Name: "app", Image: "img"}
	if withReadiness {
		c.ReadinessProbe = &v1.Probe{}
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u", Generation: 3},
		Spec:       v1.PodSpec{RestartPolicy: p, Containers: []v1.Container{c}},
	}
}

// runningState: a ready sandbox with IPs and one running "app" instance.
func runningState(ips ...string) *runtimestate.Pod {
	st := &runtimestate.Pod{
		UID:        "u",
		Sandboxes:  []runtimestate.Sandbox{{ID: "sb", Ready: true, CreatedAt: sec(0)}},
		Containers: []runtimestate.Container{{ID: "c1", Name: "app", SandboxID: "sb", State: runtimestate.Running, Image: "img", CreatedAt: sec(1), StartedAt: sec(2)}},
	}
	if len(ips) > 0 {
		st.Sandboxes[0].IP = ips[0]
		if len(ips) > 1 {
			st.Sandboxes[0].AdditionalIPs = ips[1:]
		}
	}
	return st
}

func condition(s v1.PodStatus, t v1.PodConditionType) v1.PodCondition {
	for _, c := range s.Conditions {
		if c.Type == t {
			return c
		}
	}
	return v1.PodCondition{}
}

func TestComputeComposition(t *testing.T) {
	gates := features.V1_37()
	exited := func(code int) *runtimestate.Pod {
		st := runningState("10.0.0.5")
		st.Containers[0].State, st.Containers[0].ExitCode, st.Containers[0].FinishedAt = runtimestate.Exited, code, sec(9)
		return st
	}
	tests := []struct {
		name  string
		pod   *v1.Pod
		st    *runtimestate.Pod
		opts  Options
		check func(t *testing.T, r Result)
	}{{
		// The phase is computed before the probe step: a running container
		// whose readiness probe has not succeeded gives Running, while the
		// container and the pod are not ready.
		name: "running but not ready: phase from pre-probe statuses",
		pod:  onePod(v1.RestartPolicyAlways, true),
		st:   runningState("10.0.0.5"),
		opts: Options{Features: gates},
		check: func(t *testing.T, r Result) {
			s := r.Status
			if s.Phase != v1.PodRunning || s.ContainerStatuses[0].Ready || !*s.ContainerStatuses[0].Started {
				t.Errorf("phase %s ready %v started %v", s.Phase, s.ContainerStatuses[0].Ready, *s.ContainerStatuses[0].Started)
			}
			if c := condition(s, v1.PodReady); c.Status != v1.ConditionFalse || c.Reason != "ContainersNotReady" {
				t.Errorf("Ready condition %+v", c)
			}
		},
	}, {
		name: "readiness success makes the container and the pod ready",
		pod:  onePod(v1.RestartPolicyAlways, true),
		st:   runningState("10.0.0.5"),
		opts: Options{Features: gates, Probes: map[string]vocab.ProbeResults{"c1": {Readiness: vocab.ProbeSuccess}}},
		check: func(t *testing.T, r Result) {
			if !r.Status.ContainerStatuses[0].Ready || condition(r.Status, v1.PodReady).Status != v1.ConditionTrue {
				t.Errorf("not ready: %s", r)
			}
		},
	}, {
		name: "a startup worker that has not reported: not started, not ready",
		pod: func() *v1.Pod {
			p := onePod(v1.RestartPolicyAlways, false)
			p.Spec.Containers[0].StartupProbe = &v1.Probe{}
			return p
		}(),
		st:   runningState(),
		opts: Options{Features: gates},
		check: func(t *testing.T, r Result) {
			cs := r.Status.ContainerStatuses[0]
			if *cs.Started || cs.Ready || r.Status.Phase != v1.PodRunning {
				t.Errorf("started %v ready %v phase %s", *cs.Started, cs.Ready, r.Status.Phase)
			}
		},
	}, {
		name: "a startup failure for another runtime's ID does not count",
		pod: func() *v1.Pod {
			p := onePod(v1.RestartPolicyAlways, false)
			p.Spec.Containers[0].StartupProbe = &v1.Probe{}
			return p
		}(),
		st:   runningState(),
		opts: Options{Features: gates, RuntimeType: "cri-o", Probes: map[string]vocab.ProbeResults{"c1": {Startup: vocab.ProbeSuccess}}},
		check: func(t *testing.T, r Result) {
			if !*r.Status.ContainerStatuses[0].Started || r.Status.ContainerStatuses[0].ContainerID != "cri-o://c1" {
				t.Errorf("status %+v", r.Status.ContainerStatuses[0])
			}
		},
	}, {
		// A container running since before the kubelet restarted is ready
		// with no readiness result, unless it has a readiness probe and the
		// API does not say the pod is Ready.
		name: "kubelet restart: running before the prober started, API pod Ready",
		pod: func() *v1.Pod {
			p := onePod(v1.RestartPolicyAlways, true)
			p.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
			return p
		}(),
		st:   runningState(),
		opts: Options{Features: gates, ProberStart: sec(100)},
		check: func(t *testing.T, r Result) {
			if !r.Status.ContainerStatuses[0].Ready {
				t.Errorf("not ready")
			}
		},
	}, {
		name: "kubelet restart: API pod not Ready keeps it unready",
		pod:  onePod(v1.RestartPolicyAlways, true),
		st:   runningState(),
		opts: Options{Features: gates, ProberStart: sec(100)},
		check: func(t *testing.T, r Result) {
			if r.Status.ContainerStatuses[0].Ready {
				t.Errorf("ready")
			}
		},
	}, {
		name: "kubelet restart rule off with ChangeContainerStatusOnKubeletRestart",
		pod: func() *v1.Pod {
			p := onePod(v1.RestartPolicyAlways, true)
			p.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
			return p
		}(),
		st: runningState(),
		opts: func() Options {
			f := gates
			f, _ = f.With(features.ChangeContainerStatusOnKubeletRestart, true)
			return Options{Features: f, ProberStart: sec(100)}
		}(),
		check: func(t *testing.T, r Result) {
			if r.Status.ContainerStatuses[0].Ready {
				t.Errorf("ready")
			}
		},
	}, {
		// A terminal phase in the API sticks even when the containers run
		// again; the reason and message of the API status stay.
		name: "terminal phase sticks",
		pod: func() *v1.Pod {
			p := onePod(v1.RestartPolicyAlways, false)
			p.Status = v1.PodStatus{Phase: v1.PodFailed, Reason: "Evicted", Message: "low memory"}
			return p
		}(),
		st:   runningState("10.0.0.5"),
		opts: Options{Features: gates},
		check: func(t *testing.T, r Result) {
			s := r.Status
			if r.GetPhase.Phase != v1.PodRunning || s.Phase != v1.PodFailed || s.Reason != "Evicted" || s.Message != "low memory" {
				t.Errorf("getPhase %s, status %s %q %q", r.GetPhase.Phase, s.Phase, s.Reason, s.Message)
			}
			if c := condition(s, v1.ContainersReady); c.Reason != "PodFailed" {
				t.Errorf("ContainersReady %+v", c)
			}
		},
	}, {
		// Real-cluster fact 9 (docs/real-cluster-facts.md#fact-9).
		name: "restartPolicy Never, exit 7: Failed; exit 0: Succeeded (real-cluster fact 9)",
		pod:  onePod(v1.RestartPolicyNever, false),
		st:   exited(7),
		opts: Options{Features: gates},
		check: func(t *testing.T, r Result) {
			if r.Status.Phase != v1.PodFailed || r.Status.ContainerStatuses[0].RestartCount != 0 {
				t.Errorf("%s", r)
			}
			r = Compute(onePod(v1.RestartPolicyNever, false), exited(0), Options{Features: gates})
			if r.Status.Phase != v1.PodSucceeded {
				t.Errorf("%s", r)
			}
		},
	}, {
		name: "active deadline passed: Failed DeadlineExceeded",
		pod: func() *v1.Pod {
			p := onePod(v1.RestartPolicyAlways, false)
			p.Spec.ActiveDeadlineSeconds = ptr(int64(60))
			p.Status.StartTime = &metav1.Time{Time: sec(0)}
			return p
		}(),
		st:   runningState(),
		opts: Options{Features: gates, Now: sec(61)},
		check: func(t *testing.T, r Result) {
			if r.Status.Phase != v1.PodFailed || r.Status.Reason != "DeadlineExceeded" {
				t.Errorf("%s", r)
			}
		},
	}, {
		name: "pod IPs: node prefers IPv6, at most one per family, canonical form",
		pod:  onePod(v1.RestartPolicyAlways, false),
		st:   runningState("010.000.000.005", "10.0.0.6", "fd00::0005", "fd00::6"),
		opts: Options{Features: gates, NodeIPs: []string{"fd00::1"}},
		check: func(t *testing.T, r Result) {
			want := []v1.PodIP{{IP: "fd00::5"}, {IP: "10.0.0.5"}}
			if d := diff(want, r.Status.PodIPs); d != "" || r.Status.PodIP != "fd00::5" {
				t.Errorf("pod IPs (-want +got):\n%s", d)
			}
		},
	}, {
		name: "pod IPs: an unparsable IP drops them all",
		pod:  onePod(v1.RestartPolicyAlways, false),
		st:   runningState("10.0.0.5", "not-an-ip"),
		opts: Options{Features: gates},
		check: func(t *testing.T, r Result) {
			if r.Status.PodIPs != nil || r.Status.PodIP != "" {
				t.Errorf("pod IPs %v", r.Status.PodIPs)
			}
		},
	}, {
		name: "host network: host IPs become pod IPs, second family added",
		pod: func() *v1.Pod {
			p := onePod(v1.RestartPolicyAlways, false)
			p.Spec.HostNetwork = true
			return p
		}(),
		st:   runningState(),
		opts: Options{Features: gates, HostIPs: []string{"192.168.0.1", "fd00::10"}},
		check: func(t *testing.T, r Result) {
			s := r.Status
			if s.HostIP != "192.168.0.1" || len(s.HostIPs) != 2 || len(s.PodIPs) != 2 || s.PodIP != "192.168.0.1" || s.PodIPs[1].IP != "fd00::10" {
				t.Errorf("host %v %v pod %v %v", s.HostIP, s.HostIPs, s.PodIP, s.PodIPs)
			}
		},
	}, {
		name: "no host IPs: hostIP unset",
		pod:  onePod(v1.RestartPolicyAlways, false),
		st:   runningState("10.0.0.5"),
		opts: Options{Features: gates},
		check: func(t *testing.T, r Result) {
			if r.Status.HostIP != "" || r.Status.HostIPs != nil {
				t.Errorf("host IPs %v", r.Status.HostIPs)
			}
		},
	}, {
		name: "QoS: Guaranteed, and an API class is kept",
		pod: func() *v1.Pod {
			p := onePod(v1.RestartPolicyAlways, false)
			rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")}
			p.Spec.Containers[0].Resources = v1.ResourceRequirements{Requests: rl, Limits: rl}
			return p
		}(),
		st:   nil,
		opts: Options{Features: gates},
		check: func(t *testing.T, r Result) {
			if r.Status.QOSClass != v1.PodQOSGuaranteed {
				t.Errorf("QoS %s", r.Status.QOSClass)
			}
			p := onePod(v1.RestartPolicyAlways, false)
			p.Status.QOSClass = v1.PodQOSBurstable
			if q := Compute(p, nil, Options{Features: gates}).Status.QOSClass; q != v1.PodQOSBurstable {
				t.Errorf("API QoS not kept: %s", q)
			}
		},
	}, {
		name: "observedGeneration: the pod's generation with tracking, else 0",
		pod:  onePod(v1.RestartPolicyAlways, false),
		st:   nil,
		opts: Options{Features: gates},
		check: func(t *testing.T, r Result) {
			if r.Status.ObservedGeneration != 3 {
				t.Errorf("observedGeneration %d", r.Status.ObservedGeneration)
			}
			off, _ := features.V1_37().With(features.PodObservedGenerationTracking, false)
			if g := Compute(onePod(v1.RestartPolicyAlways, false), nil, Options{Features: off}).Status.ObservedGeneration; g != 0 {
				t.Errorf("observedGeneration without the gate %d", g)
			}
		},
	}, {
		name: "no runtime state: Pending, ContainerCreating, sandbox not ready, PodScheduled last",
		pod:  onePod(v1.RestartPolicyAlways, false),
		st:   nil,
		opts: Options{Features: gates},
		check: func(t *testing.T, r Result) {
			s := r.Status
			if s.Phase != v1.PodPending || s.ContainerStatuses[0].State.Waiting == nil || s.ContainerStatuses[0].State.Waiting.Reason != "ContainerCreating" {
				t.Errorf("%s", r)
			}
			if c := condition(s, v1.PodReadyToStartContainers); c.Status != v1.ConditionFalse {
				t.Errorf("PodReadyToStartContainers %+v", c)
			}
			if last := s.Conditions[len(s.Conditions)-1]; last.Type != v1.PodScheduled || last.Status != v1.ConditionTrue {
				t.Errorf("last condition %+v", last)
			}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, Compute(tc.pod, tc.st, tc.opts))
		})
	}
}

// Init containers: a regular init container that exited 0 is Ready; a
// sidecar is started and ready like a regular container; the Initialized
// condition reads them after the probe step.
func TestComputeInitContainers(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: "u"},
		Spec: v1.PodSpec{
			RestartPolicy:  v1.RestartPolicyAlways,
			InitContainers: []v1.Container{{Name: "init", Image: "i"}, {Name: "side", Image: "s", RestartPolicy: &always, StartupProbe: &v1.Probe{}}},
			Containers:     []v1.Container{{Name: "app", Image: "a"}},
		},
	}
	st := &runtimestate.Pod{
		Sandboxes: []runtimestate.Sandbox{{ID: "sb", Ready: true, IP: "10.0.0.9"}},
		Containers: []runtimestate.Container{
			{ID: "a1", Name: "app", SandboxID: "sb", State: runtimestate.Running, CreatedAt: sec(5), StartedAt: sec(5)},
			{ID: "s1", Name: "side", SandboxID: "sb", State: runtimestate.Running, CreatedAt: sec(3), StartedAt: sec(3)},
			{ID: "i1", Name: "init", SandboxID: "sb", State: runtimestate.Exited, CreatedAt: sec(1), StartedAt: sec(1), FinishedAt: sec(2)},
		},
	}
	gates := features.V1_37()

	r := Compute(pod, st, Options{Features: gates})
	init, side := r.Status.InitContainerStatuses[0], r.Status.InitContainerStatuses[1]
	if !init.Ready || *init.Started || *side.Started || side.Ready {
		t.Errorf("before the startup probe: init ready=%v started=%v, side ready=%v started=%v", init.Ready, *init.Started, side.Ready, *side.Started)
	}
	if c := condition(r.Status, v1.PodInitialized); c.Status != v1.ConditionTrue {
		t.Errorf("Initialized %+v (a regular container runs)", c)
	}
	if r.Status.Phase != v1.PodRunning {
		t.Errorf("phase %s", r.Status.Phase)
	}

	r = Compute(pod, st, Options{Features: gates, Probes: map[string]vocab.ProbeResults{"s1": {Startup: vocab.ProbeSuccess}}})
	side = r.Status.InitContainerStatuses[1]
	if !*side.Started || !side.Ready || condition(r.Status, v1.ContainersReady).Status != v1.ConditionTrue {
		t.Errorf("after the startup probe: %s", r)
	}

	// Workers given explicitly: no startup worker, so the sidecar is
	// started without a result.
	r = Compute(pod, st, Options{Features: gates, ProbeWorkers: map[string]ProbeWorkers{}})
	if !*r.Status.InitContainerStatuses[1].Started {
		t.Errorf("no worker: %s", r)
	}
}

func TestComputeNil(t *testing.T) {
	if d := diff(Result{}, Compute(nil, nil, Options{})); d != "" {
		t.Errorf("nil pod (-want +got):\n%s", d)
	}
	r := Compute(&v1.Pod{}, nil, Options{Features: features.V1_37()})
	if r.Status.Phase != v1.PodPending {
		t.Errorf("empty pod: %s", r)
	}
	_ = r.String()
}

// Compute does not modify its arguments.
func TestComputeLeavesInputs(t *testing.T) {
	pod := onePod(v1.RestartPolicyAlways, true)
	pod.Status.Conditions = []v1.PodCondition{{Type: "example.com/gate", Status: v1.ConditionTrue}}
	st := runningState("10.0.0.5")
	cached := &v1.PodStatus{Phase: v1.PodRunning, ContainerStatuses: []v1.ContainerStatus{{Name: "app", Started: ptr(true)}}}
	p0, s0, c0 := pod.DeepCopy(), st.DeepCopy(), cached.DeepCopy()
	Compute(pod, st, Options{Features: features.V1_37(), Cached: cached, Probes: map[string]vocab.ProbeResults{"c1": {Readiness: vocab.ProbeSuccess}}})
	if d := diff(p0, pod); d != "" {
		t.Errorf("pod changed:\n%s", d)
	}
	if d := diff(s0, st); d != "" {
		t.Errorf("state changed:\n%s", d)
	}
	if d := diff(c0, cached); d != "" {
		t.Errorf("cached changed:\n%s", d)
	}
}
