package conditions

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

var (
	defaults = features.V1_37()
	t0       = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
)

func ctr(name string) v1.Container { return v1.Container{Name: name, Image: "busybox"} }

func sidecar(name string) v1.Container {
	c := ctr(name)
	always := v1.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

func pod(init []v1.Container, containers ...v1.Container) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Generation: 2},
		Spec:       v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways, InitContainers: init, Containers: containers},
	}
}

func cs(name string, ready bool, started *bool) v1.ContainerStatus {
	return v1.ContainerStatus{Name: name, Ready: ready, Started: started,
		State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}
}

func waiting(name string) v1.ContainerStatus {
	return v1.ContainerStatus{Name: name, State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "PodInitializing"}}}
}

func completed(name string) v1.ContainerStatus {
	return v1.ContainerStatus{Name: name, Ready: true,
		State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{Reason: "Completed"}}}
}

func yes() *bool { b := true; return &b }

var prev = &v1.PodStatus{}

func cond(t v1.PodConditionType, s v1.ConditionStatus, reason, msg string) v1.PodCondition {
	return v1.PodCondition{Type: t, Status: s, Reason: reason, Message: msg, ObservedGeneration: 2}
}

func check(t *testing.T, got, want v1.PodCondition) {
	t.Helper()
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestContainersReady(t *testing.T) {
	p := pod([]v1.Container{ctr("init"), sidecar("side")}, ctr("a"), ctr("b"))
	tests := []struct {
		name     string
		statuses []v1.ContainerStatus
		phase    v1.PodPhase
		want     v1.PodCondition
	}{
		{"no statuses at all", nil, v1.PodRunning, cond(v1.ContainersReady, v1.ConditionFalse, ReasonUnknownContainerStatuses, "")},
		{"all ready (the regular init container is not read)", []v1.ContainerStatus{cs("side", true, yes()), cs("a", true, yes()), cs("b", true, yes())},
			v1.PodRunning, cond(v1.ContainersReady, v1.ConditionTrue, "", "")},
		{"unknown and unready listed in spec order, sidecars first",
			[]v1.ContainerStatus{cs("b", false, nil), cs("side", false, nil)}, v1.PodRunning,
			cond(v1.ContainersReady, v1.ConditionFalse, ReasonContainersNotReady, "containers with unknown status: [a], containers with unready status: [side b]")},
		{"succeeded with all known", []v1.ContainerStatus{cs("side", false, nil), cs("a", false, nil), cs("b", false, nil)},
			v1.PodSucceeded, cond(v1.ContainersReady, v1.ConditionFalse, ReasonPodCompleted, "")},
		{"succeeded with one unknown is not completed", []v1.ContainerStatus{cs("side", true, nil), cs("a", true, nil)},
			v1.PodSucceeded, cond(v1.ContainersReady, v1.ConditionFalse, ReasonContainersNotReady, "containers with unknown status: [b]")},
		{"failed, even with all ready", []v1.ContainerStatus{cs("side", true, nil), cs("a", true, nil), cs("b", true, nil)},
			v1.PodFailed, cond(v1.ContainersReady, v1.ConditionFalse, ReasonPodFailed, "")},
		{"empty (not nil) statuses list every container as unknown", []v1.ContainerStatus{}, v1.PodPending,
			cond(v1.ContainersReady, v1.ConditionFalse, ReasonContainersNotReady, "containers with unknown status: [side a b]")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, ContainersReady(p, prev, tt.statuses, tt.phase, defaults), tt.want)
		})
	}
}

func TestReady(t *testing.T) {
	p := pod(nil, ctr("a"))
	p.Spec.ReadinessGates = []v1.PodReadinessGate{{ConditionType: "example.com/lb"}, {ConditionType: "example.com/db"}}
	ready := []v1.ContainerStatus{cs("a", true, yes())}
	tests := []struct {
		name     string
		conds    []v1.PodCondition
		statuses []v1.ContainerStatus
		phase    v1.PodPhase
		want     v1.PodCondition
	}{
		{"containers not ready: same status, reason and message", nil, []v1.ContainerStatus{cs("a", false, yes())}, v1.PodRunning,
			cond(v1.PodReady, v1.ConditionFalse, ReasonContainersNotReady, "containers with unready status: [a]")},
		{"terminal phase: Ready copies PodFailed", nil, ready, v1.PodFailed, cond(v1.PodReady, v1.ConditionFalse, ReasonPodFailed, "")},
		{"gates missing", nil, ready, v1.PodRunning, cond(v1.PodReady, v1.ConditionFalse, ReasonReadinessGatesNotReady,
			`corresponding condition of pod readiness gate "example.com/lb" does not exist., corresponding condition of pod readiness gate "example.com/db" does not exist.`)},
		{"one gate False", []v1.PodCondition{{Type: "example.com/lb", Status: v1.ConditionTrue}, {Type: "example.com/db", Status: v1.ConditionFalse}},
			ready, v1.PodRunning, cond(v1.PodReady, v1.ConditionFalse, ReasonReadinessGatesNotReady,
				`the status of pod readiness gate "example.com/db" is not "True", but False`)},
		{"all gates True", []v1.PodCondition{{Type: "example.com/db", Status: v1.ConditionTrue}, {Type: "example.com/lb", Status: v1.ConditionTrue}},
			ready, v1.PodRunning, cond(v1.PodReady, v1.ConditionTrue, "", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, Ready(p, prev, tt.conds, tt.statuses, tt.phase, defaults), tt.want)
		})
	}
}

func TestInitialized(t *testing.T) {
	p := pod([]v1.Container{ctr("i1"), sidecar("s"), ctr("i2")}, ctr("a"))
	wasInitialized := &v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodInitialized, Status: v1.ConditionTrue}}}
	noRA := defaults
	noRA, _ = noRA.With(features.RestartAllContainersOnContainerExits, false)
	tests := []struct {
		name     string
		prev     *v1.PodStatus
		statuses []v1.ContainerStatus
		phase    v1.PodPhase
		gates    features.Set
		want     v1.PodCondition
	}{
		{"no statuses with init containers", prev, nil, v1.PodPending, defaults,
			cond(v1.PodInitialized, v1.ConditionFalse, ReasonUnknownContainerStatuses, "")},
		{"all done: init Ready, sidecar Started", prev,
			[]v1.ContainerStatus{completed("i1"), cs("s", false, yes()), completed("i2"), waiting("a")}, v1.PodPending, defaults,
			cond(v1.PodInitialized, v1.ConditionTrue, "", "")},
		{"unknown and incomplete", prev,
			[]v1.ContainerStatus{completed("i1"), cs("s", true, nil), waiting("a")}, v1.PodPending, defaults,
			cond(v1.PodInitialized, v1.ConditionFalse, ReasonContainersNotInitialized,
				"containers with unknown status: [i2], containers with incomplete status: [s]")},
		{"succeeded, none unknown", prev,
			[]v1.ContainerStatus{waiting("i1"), waiting("s"), waiting("i2")}, v1.PodSucceeded, defaults,
			cond(v1.PodInitialized, v1.ConditionTrue, ReasonPodCompleted, "")},
		{"a regular container started: initialized before", prev,
			[]v1.ContainerStatus{waiting("i1"), cs("a", false, nil)}, v1.PodRunning, defaults,
			cond(v1.PodInitialized, v1.ConditionTrue, "", "")},
		{"in-place restart keeps Initialized", wasInitialized,
			[]v1.ContainerStatus{waiting("i1"), waiting("s"), waiting("i2"), waiting("a")}, v1.PodRunning, defaults,
			cond(v1.PodInitialized, v1.ConditionTrue, "", "")},
		{"without the gate the earlier condition is not read", wasInitialized,
			[]v1.ContainerStatus{waiting("i1"), waiting("s"), waiting("i2"), waiting("a")}, v1.PodRunning, noRA,
			cond(v1.PodInitialized, v1.ConditionFalse, ReasonContainersNotInitialized, "containers with incomplete status: [i1 s i2]")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, Initialized(p, tt.prev, tt.statuses, tt.phase, tt.gates), tt.want)
		})
	}
	// A nil previous status gives observedGeneration 0 and is read as one
	// without conditions.
	got := Initialized(p, nil, []v1.ContainerStatus{}, v1.PodPending, defaults)
	if got.ObservedGeneration != 0 || got.Status != v1.ConditionFalse {
		t.Errorf("nil prev: %+v", got)
	}
	// Without init containers and without statuses the pod is initialized.
	check(t, Initialized(pod(nil, ctr("a")), prev, nil, v1.PodPending, defaults), cond(v1.PodInitialized, v1.ConditionTrue, "", ""))
}

func TestPodReadyToStartContainers(t *testing.T) {
	p := pod(nil, ctr("a"))
	hostNet := pod(nil, ctr("a"))
	hostNet.Spec.HostNetwork = true
	sb := func(id string, ready bool, ip string) runtimestate.Sandbox {
		return runtimestate.Sandbox{ID: id, Ready: ready, IP: ip}
	}
	tests := []struct {
		name string
		pod  *v1.Pod
		st   *runtimestate.Pod
		msg  string // "" = True
	}{
		{"no runtime state", p, nil, vocab.MsgNoPodSandbox},
		{"no sandbox", p, &runtimestate.Pod{}, vocab.MsgNoPodSandbox},
		{"ready sandbox with an IP", p, &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{sb("s1", true, "10.0.0.1")}}, ""},
		{"two ready sandboxes", p, &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{sb("s2", true, "10.0.0.2"), sb("s1", true, "10.0.0.1")}}, vocab.MsgMultipleSandboxes},
		{"latest not ready", p, &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{sb("s2", false, ""), sb("s1", true, "10.0.0.1")}}, vocab.MsgSandboxNotReady},
		{"hostNetwork pod in a POD-mode sandbox", hostNet, &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{sb("s1", true, "")}}, vocab.MsgNetworkNamespaceMode},
		{"hostNetwork pod needs no IP", hostNet, &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, NetworkMode: runtimestate.NamespaceNode}}}, ""},
		{"no IP", p, &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, NoIP: true}}}, vocab.MsgNoIPAddress},
		{"IP left out: taken to have one", p, &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{sb("s1", true, "")}}, ""},
		{"no network status at all is not a missing IP", p, &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, NoNetworkStatus: true}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := cond(v1.PodReadyToStartContainers, v1.ConditionTrue, "", "")
			if tt.msg != "" {
				want = cond(v1.PodReadyToStartContainers, v1.ConditionFalse, ReasonPodSandboxNotReady, tt.msg)
			}
			check(t, PodReadyToStartContainers(tt.pod, prev, tt.st, defaults), want)
			// v1.35 and v1.36 give the same status without reason and
			// message (D22 of shared/kubelet-versions.md).
			want.Reason, want.Message = "", ""
			for _, f := range []features.Set{features.V1_35(), features.V1_36()} {
				check(t, PodReadyToStartContainers(tt.pod, prev, tt.st, f), want)
			}
		})
	}
}

func TestAllContainersRestarting(t *testing.T) {
	never := v1.ContainerRestartPolicyNever
	app := ctr("app")
	app.RestartPolicy = &never
	app.RestartPolicyRules = []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
	p := pod([]v1.Container{ctr("init")}, app)
	exited := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "c2", Name: "app", State: runtimestate.Exited, ExitCode: 42},
		{ID: "c1", Name: "init", State: runtimestate.Exited},
	}}
	tests := []struct {
		name  string
		st    *runtimestate.Pod
		phase v1.PodPhase
		want  v1.PodCondition
	}{
		{"rule fired, containers still there", exited, v1.PodRunning, v1.PodCondition{Type: v1.AllContainersRestarting, Status: v1.ConditionTrue,
			Reason: ReasonRestartAllContainersStarted, Message: MessageRestartAllContainersStarted}},
		{"rule fired, everything removed", &runtimestate.Pod{}, v1.PodRunning, v1.PodCondition{Type: v1.AllContainersRestarting, Status: v1.ConditionFalse}},
		{"no rule fired", &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c2", Name: "app", State: runtimestate.Exited, ExitCode: 1}}},
			v1.PodRunning, v1.PodCondition{Type: v1.AllContainersRestarting, Status: v1.ConditionFalse}},
		{"succeeded", exited, v1.PodSucceeded, v1.PodCondition{Type: v1.AllContainersRestarting, Status: v1.ConditionFalse, Reason: ReasonPodCompleted}},
		{"failed", exited, v1.PodFailed, v1.PodCondition{Type: v1.AllContainersRestarting, Status: v1.ConditionFalse, Reason: ReasonPodFailed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, AllContainersRestarting(p, tt.st, prev, tt.phase, defaults), tt.want)
		})
	}
}

func TestKeepTransitionTimes(t *testing.T) {
	earlier := metav1.NewTime(t0.Add(-time.Hour))
	old := &v1.PodStatus{Conditions: []v1.PodCondition{
		{Type: v1.PodReady, Status: v1.ConditionTrue, Reason: "old", LastTransitionTime: earlier},
		{Type: v1.ContainersReady, Status: v1.ConditionTrue, LastTransitionTime: earlier},
		{Type: "example.com/gate", Status: v1.ConditionTrue, LastTransitionTime: earlier},
	}}
	in := []v1.PodCondition{
		{Type: v1.PodReady, Status: v1.ConditionTrue, Reason: "new reason"},
		{Type: v1.ContainersReady, Status: v1.ConditionFalse},
		{Type: v1.PodScheduled, Status: v1.ConditionTrue},
		{Type: "example.com/gate", Status: v1.ConditionTrue},
		{Type: v1.PodReady, Status: v1.ConditionTrue},
	}
	got := KeepTransitionTimes(in, old, t0)
	want := []metav1.Time{earlier, metav1.NewTime(t0), metav1.NewTime(t0), {}, {}}
	for i := range want {
		if !got[i].LastTransitionTime.Equal(&want[i]) {
			t.Errorf("condition %d (%s): lastTransitionTime %v, want %v", i, got[i].Type, got[i].LastTransitionTime, want[i])
		}
	}
	if !in[0].LastTransitionTime.IsZero() {
		t.Error("KeepTransitionTimes changed its input")
	}
	if KeepTransitionTimes(nil, old, t0) != nil {
		t.Error("nil conditions give a non-nil list")
	}
	if got := KeepTransitionTimes(in[:1], nil, t0); !got[0].LastTransitionTime.Equal(&metav1.Time{Time: t0}) {
		t.Error("nil prev does not give now")
	}
}

// Real-cluster fact 6 (docs/real-cluster-facts.md#fact-6): removing the readiness
// marker makes Ready False with no restart; restoring it makes the pod Ready again. Each flip is a
// transition.
func TestFact6ReadinessFlips(t *testing.T) {
	p := pod([]v1.Container{ctr("prepare"), sidecar("sidecar")}, ctr("app"))
	statuses := func(appReady bool) *v1.PodStatus {
		return &v1.PodStatus{Phase: v1.PodRunning,
			InitContainerStatuses: []v1.ContainerStatus{completed("prepare"), cs("sidecar", true, yes())},
			ContainerStatuses:     []v1.ContainerStatus{cs("app", appReady, yes())}}
	}
	st := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, IP: "10.244.1.6"}}}
	var stored *v1.PodStatus
	step := func(appReady bool, now time.Time) []v1.PodCondition {
		conds := Generate(p, statuses(appReady), Options{Features: defaults, Cached: stored, Runtime: st})
		conds = KeepTransitionTimes(conds, stored, now)
		stored = statuses(appReady)
		stored.Conditions = conds
		return conds
	}
	readyOf := func(conds []v1.PodCondition) v1.PodCondition { return *find(conds, v1.PodReady) }

	c1 := step(true, t0)
	c2 := step(false, t0.Add(time.Minute))
	c3 := step(true, t0.Add(2*time.Minute))
	if r := readyOf(c1); r.Status != v1.ConditionTrue {
		t.Fatalf("ready before: %+v", r)
	}
	r2 := readyOf(c2)
	if r2.Status != v1.ConditionFalse || r2.Reason != ReasonContainersNotReady || r2.Message != "containers with unready status: [app]" ||
		!r2.LastTransitionTime.Time.Equal(t0.Add(time.Minute)) {
		t.Errorf("marker removed: %+v", r2)
	}
	if r3 := readyOf(c3); r3.Status != v1.ConditionTrue || !r3.LastTransitionTime.Time.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("marker restored: %+v", r3)
	}
	if i := find(c3, v1.PodInitialized); i.Status != v1.ConditionTrue || !i.LastTransitionTime.Time.Equal(t0) {
		t.Errorf("Initialized moved: %+v", i)
	}
}

// Real-cluster facts 17 and 18 (docs/real-cluster-facts.md#fact-17, #fact-18):
// right after scheduling, before containers start, PodScheduled is True (and nothing is ready); a running nginx pod is
// Ready and PodScheduled.
func TestFacts17And18(t *testing.T) {
	p := pod(nil, ctr("nginx"))
	pending := &v1.PodStatus{Phase: v1.PodPending, ContainerStatuses: []v1.ContainerStatus{
		{Name: "nginx", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}}
	got := Generate(p, pending, Options{Features: defaults, Runtime: &runtimestate.Pod{}})
	wantTypes := []v1.PodConditionType{v1.PodReadyToStartContainers, v1.PodInitialized, v1.PodReady, v1.ContainersReady, v1.PodScheduled}
	if len(got) != len(wantTypes) {
		t.Fatalf("fact 17: %d conditions: %+v", len(got), got)
	}
	for i, ty := range wantTypes {
		if got[i].Type != ty {
			t.Errorf("fact 17: condition %d is %s, want %s", i, got[i].Type, ty)
		}
	}
	check(t, *find(got, v1.PodScheduled), cond(v1.PodScheduled, v1.ConditionTrue, "", ""))
	check(t, *find(got, v1.PodReadyToStartContainers), cond(v1.PodReadyToStartContainers, v1.ConditionFalse, ReasonPodSandboxNotReady, vocab.MsgNoPodSandbox))
	check(t, *find(got, v1.PodReady), cond(v1.PodReady, v1.ConditionFalse, ReasonContainersNotReady, "containers with unready status: [nginx]"))

	running := &v1.PodStatus{Phase: v1.PodRunning, ContainerStatuses: []v1.ContainerStatus{cs("nginx", true, yes())}}
	st := &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, IP: "10.244.1.9"}}}
	got = Generate(p, running, Options{Features: defaults, Runtime: st})
	for _, ty := range []v1.PodConditionType{v1.PodScheduled, v1.PodReady, v1.ContainersReady, v1.PodInitialized, v1.PodReadyToStartContainers} {
		if c := find(got, ty); c == nil || c.Status != v1.ConditionTrue {
			t.Errorf("fact 18: %s = %+v", ty, c)
		}
	}
}

func TestGenerateOrderAndCarryOver(t *testing.T) {
	p := pod(nil, ctr("a"))
	p.Spec.ReadinessGates = []v1.PodReadinessGate{{ConditionType: "example.com/lb"}}
	p.Status.Conditions = []v1.PodCondition{
		{Type: v1.PodReady, Status: v1.ConditionTrue},          // owned: dropped
		{Type: "example.com/lb", Status: v1.ConditionTrue},     // kept
		{Type: v1.DisruptionTarget, Status: v1.ConditionFalse}, // replaced by the cached one
	}
	cached := &v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: terminationByKubelet}}}
	resize := []v1.PodCondition{{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: "Deferred", ObservedGeneration: 1}}
	s := &v1.PodStatus{Phase: v1.PodRunning, ContainerStatuses: []v1.ContainerStatus{cs("a", true, yes())}}
	got := Generate(p, s, Options{Features: defaults, Cached: cached, ResizeConditions: resize})
	var types []v1.PodConditionType
	for _, c := range got {
		types = append(types, c.Type)
	}
	want := []v1.PodConditionType{"example.com/lb", v1.DisruptionTarget, v1.PodResizePending, v1.PodReadyToStartContainers,
		v1.PodInitialized, v1.PodReady, v1.ContainersReady, v1.PodScheduled}
	if len(types) != len(want) {
		t.Fatalf("types %v, want %v", types, want)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("types %v, want %v", types, want)
		}
	}
	if got[1].Reason != terminationByKubelet || got[2].ObservedGeneration != 1 || got[5].Status != v1.ConditionTrue {
		t.Errorf("conditions: %+v", got)
	}
	if got := Generate(p, s, Options{Features: defaults, PodIsTerminal: true, ResizeConditions: resize}); find(got, v1.PodResizePending) != nil {
		t.Error("a terminal pod keeps its resize conditions")
	}
	if got := Generate(nil, nil, Options{Features: defaults}); len(got) != 5 {
		t.Errorf("nil pod and status: %+v", got)
	}
}

const terminationByKubelet = "TerminationByKubelet"

// With PodObservedGenerationTracking off (a locked gate in v1.37.2), a
// condition carries the pod's generation only when the previous status's
// condition of its type carried one.
func TestObservedGenerationWithoutTracking(t *testing.T) {
	off := defaults
	off, _ = off.With(features.PodObservedGenerationTracking, false)
	p := pod(nil, ctr("a"))
	had := &v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.ContainersReady, ObservedGeneration: 1}}}
	if g := ContainersReady(p, had, nil, v1.PodRunning, off).ObservedGeneration; g != 2 {
		t.Errorf("previous generation set: observedGeneration %d, want 2", g)
	}
	if g := Ready(p, had, nil, nil, v1.PodRunning, off).ObservedGeneration; g != 0 {
		t.Errorf("no previous Ready generation: observedGeneration %d, want 0", g)
	}
}
