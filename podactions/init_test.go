package podactions_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

var (
	init0, init1 = ctr("init-0"), ctr("init-1")
	side1        = sidecar("sidecar-1")
)

func withStartup(c v1.Container) v1.Container {
	c.StartupProbe = &v1.Probe{}
	return c
}

func withLiveness(c v1.Container) v1.Container {
	c.LivenessProbe = &v1.Probe{}
	return c
}

func TestComputeInitContainers(t *testing.T) {
	twoInits := []v1.Container{init0, init1}
	run(t, []tcase{
		{
			name: "nothing ran in the sandbox: start the first init container",
			pod:  mkPod(v1.RestartPolicyAlways, twoInits, app0),
			st:   state(),
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(0, "init-0")},
		},
		{
			name: "first init container running: wait",
			pod:  mkPod(v1.RestartPolicyAlways, twoInits, app0),
			st:   state(inst("c1", init0, runtimestate.Running)),
			want: kept,
		},
		{
			name: "first init container succeeded: start the next",
			pod:  mkPod(v1.RestartPolicyAlways, twoInits, app0),
			st:   state(exited("c1", init0, 0)),
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(1, "init-1")},
		},
		{
			name: "last init container succeeded: start the regular containers",
			pod:  mkPod(v1.RestartPolicyAlways, twoInits, app0),
			st:   state(exited("c2", init1, 0), exited("c1", init0, 0)),
			want: podactions.Actions{SandboxID: "s1", ContainersToStart: refs(0, "app-0")},
		},
		{
			name: "init container stuck in created: start it again",
			pod:  mkPod(v1.RestartPolicyAlways, twoInits, app0),
			st:   state(inst("c2", init1, runtimestate.Created), exited("c1", init0, 0)),
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(1, "init-1")},
		},
		{
			name: "init container failed under Always: start it again",
			pod:  mkPod(v1.RestartPolicyAlways, twoInits, app0),
			st:   state(exited("c1", init0, 1)),
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(0, "init-0")},
		},
		{
			name: "init container OOMKilled with exit 0 counts as failed; under Never the pod is killed",
			pod:  mkPod(v1.RestartPolicyNever, twoInits, app0),
			st: func() *runtimestate.Pod {
				in := exited("c1", init0, 0)
				in.Reason = "OOMKilled"
				return state(in)
			}(),
			want: podactions.Actions{KillPod: true, SandboxID: "s1"},
		},
		{
			name: "init container failed under Never, its own policy OnFailure restarts it",
			pod:  mkPod(v1.RestartPolicyNever, []v1.Container{withPolicy(init0, v1.ContainerRestartPolicyOnFailure)}, app0),
			st:   state(exited("c1", withPolicy(init0, v1.ContainerRestartPolicyOnFailure), 1)),
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(0, "init-0")},
		},
		{
			name:  "init container failed under Never, its own policy ignored without ContainerRestartRules",
			pod:   mkPod(v1.RestartPolicyNever, []v1.Container{withPolicy(init0, v1.ContainerRestartPolicyOnFailure)}, app0),
			st:    state(exited("c1", withPolicy(init0, v1.ContainerRestartPolicyOnFailure), 1)),
			gates: gatesWith(features.ContainerRestartRules, false),
			want:  podactions.Actions{KillPod: true, SandboxID: "s1"},
		},
		{
			name: "init container failed under Always, its own policy Never: kill the pod",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{withPolicy(init0, v1.ContainerRestartPolicyNever)}, app0),
			st:   state(exited("c1", withPolicy(init0, v1.ContainerRestartPolicyNever), 1)),
			want: podactions.Actions{KillPod: true, SandboxID: "s1"},
		},
		{
			name: "init container in unknown state: kill and start again",
			pod:  mkPod(v1.RestartPolicyOnFailure, twoInits, app0),
			st:   state(inst("c2", init1, runtimestate.Unknown), exited("c1", init0, 0)),
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(1, "init-1"), ContainersToKill: []podactions.Kill{
				{ID: "c2", Name: "init-1", Init: true, Index: 1, Cause: podactions.CauseUnknownState, Reason: vocab.ReasonUnknown, Message: `Init container is in "unknown" state, try killing it before restart`},
			}},
		},
		{
			name: "init container in unknown state under Never: kill the pod",
			pod:  mkPod(v1.RestartPolicyNever, twoInits, app0),
			st:   state(inst("c1", init0, runtimestate.Unknown)),
			want: podactions.Actions{KillPod: true, SandboxID: "s1"},
		},
		{
			name: "init statuses garbage-collected after a regular container started here: initialized",
			pod:  mkPod(v1.RestartPolicyAlways, twoInits, app0),
			st:   state(inst("c3", app0, runtimestate.Running)),
			want: kept,
		},
		{
			name: "a regular container of an older sandbox does not count as initialized",
			pod:  mkPod(v1.RestartPolicyAlways, twoInits, app0),
			st: &runtimestate.Pod{
				Sandboxes: []runtimestate.Sandbox{{ID: "s2", Ready: true, Attempt: 1, IP: "10.0.0.2"}, {ID: "s1", Attempt: 0}},
				Containers: []runtimestate.Container{func() runtimestate.Container {
					in := exited("c1", app0, 0)
					in.SandboxID = "s1"
					return in
				}()},
			},
			want: podactions.Actions{SandboxID: "s2", Attempt: 1, InitContainersToStart: refs(0, "init-0")},
		},
	})
}

func TestComputeSidecars(t *testing.T) {
	changed := func(c v1.Container, id string) runtimestate.Container {
		in := inst(id, c, runtimestate.Running)
		in.Hash = containerhash.Of(&v1.Container{Name: c.Name, Image: "other"})
		return in
	}
	run(t, []tcase{
		{
			name: "sidecar running without a startup probe: start the next init container",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{side1, init1}, app0),
			st:   state(inst("c1", side1, runtimestate.Running)),
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(1, "init-1")},
		},
		{
			name: "last sidecar running: the regular containers start",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{init0, side1}, app0),
			st:   state(inst("c2", side1, runtimestate.Running), exited("c1", init0, 0)),
			want: podactions.Actions{SandboxID: "s1", ContainersToStart: refs(0, "app-0")},
		},
		{
			name: "sidecar startup probe has no result yet: wait",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{withStartup(side1), init1}, app0),
			st:   state(inst("c1", withStartup(side1), runtimestate.Running)),
			want: kept,
		},
		{
			name: "sidecar startup probe unknown: wait",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{withStartup(side1), init1}, app0),
			st:   state(inst("c1", withStartup(side1), runtimestate.Running)),
			opts: podactions.Options{Probes: map[string]vocab.ProbeResults{"c1": {Startup: vocab.ProbeUnknown}}},
			want: kept,
		},
		{
			name: "sidecar startup probe failed: kill and start again",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{withStartup(side1), init1}, app0),
			st:   state(inst("c1", withStartup(side1), runtimestate.Running)),
			opts: podactions.Options{Probes: map[string]vocab.ProbeResults{"c1": {Startup: vocab.ProbeFailure}}},
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(0, "sidecar-1"), ContainersToKill: []podactions.Kill{
				{ID: "c1", Name: "sidecar-1", Init: true, Cause: podactions.CauseStartupProbe, Reason: vocab.ReasonStartupProbe, Message: "Init container sidecar-1 failed startup probe"},
			}},
		},
		{
			name: "sidecar started but liveness failed: the next init container still starts",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{withLiveness(withStartup(side1)), init1}, app0),
			st:   state(inst("c1", withLiveness(withStartup(side1)), runtimestate.Running)),
			opts: podactions.Options{Probes: map[string]vocab.ProbeResults{"c1": {Startup: vocab.ProbeSuccess, Liveness: vocab.ProbeFailure}}},
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(0, "sidecar-1", 1, "init-1"), ContainersToKill: []podactions.Kill{
				{ID: "c1", Name: "sidecar-1", Init: true, Cause: podactions.CauseLivenessProbe, Reason: vocab.ReasonLivenessProbe, Message: "Init container sidecar-1 failed liveness probe"},
			}},
		},
		{
			name: "sidecar liveness has no result yet after initialization: nothing",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{withLiveness(side1)}, app0),
			st:   state(inst("c2", app0, runtimestate.Running), inst("c1", withLiveness(side1), runtimestate.Running)),
			want: kept,
		},
		{
			name: "sidecar definition changed: kill and start again",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{side1}, app0),
			st:   state(inst("c2", app0, runtimestate.Running), changed(side1, "c1")),
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(0, "sidecar-1"), ContainersToKill: []podactions.Kill{
				{ID: "c1", Name: "sidecar-1", Init: true, Cause: podactions.CauseDefinitionChanged, Message: "Init container sidecar-1 definition changed"},
			}},
		},
		{
			name: "sidecar exited under Never: started again",
			pod:  mkPod(v1.RestartPolicyNever, []v1.Container{side1}, app0),
			st:   state(inst("c2", app0, runtimestate.Running), exited("c1", side1, 0)),
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(0, "sidecar-1")},
		},
		{
			name: "sidecar in unknown state: kill and start again",
			pod:  mkPod(v1.RestartPolicyNever, []v1.Container{side1}, app0),
			st:   state(inst("c2", app0, runtimestate.Running), inst("c1", side1, runtimestate.Unknown)),
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(0, "sidecar-1"), ContainersToKill: []podactions.Kill{
				{ID: "c1", Name: "sidecar-1", Init: true, Cause: podactions.CauseUnknownState, Reason: vocab.ReasonUnknown, Message: `Init container is in "unknown" state, try killing it before restart`},
			}},
		},
		{
			name: "sidecar instance gone after initialization: start it again",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{init0, side1}, app0),
			st:   state(inst("c2", app0, runtimestate.Running)),
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(1, "sidecar-1")},
		},
		{
			name: "regular containers done under Never: kill the pod, do not restart the exited sidecar",
			pod:  mkPod(v1.RestartPolicyNever, []v1.Container{side1}, app0),
			st:   state(exited("c2", app0, 0), exited("c1", side1, 137)),
			want: podactions.Actions{KillPod: true, SandboxID: "s1"},
		},
	})
}

func TestComputeRestartAllContainers(t *testing.T) {
	rule := v1.ContainerRestartRule{Action: v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}
	src := withPolicy(app1, v1.ContainerRestartPolicyNever)
	src.RestartPolicyRules = []v1.ContainerRestartRule{rule}
	pod := mkPod(v1.RestartPolicyAlways, []v1.Container{init0, side1}, app0, src)
	st := state(
		exited("c5", src, 42), inst("c4", app0, runtimestate.Running),
		inst("c3", side1, runtimestate.Running), exited("c2", src, 1), exited("c1", init0, 0),
	)
	run(t, []tcase{
		{
			name: "marked: remove every instance, triggers last, regular before init",
			pod:  pod,
			st:   st,
			opts: podactions.Options{RestartAllContainers: true},
			want: podactions.Actions{SandboxID: "s1", ContainersToReset: []podactions.Reset{
				{ID: "c4", Name: "app-0", Index: 0, Kill: true},
				{ID: "c2", Name: "app-1", Index: 1},
				{ID: "c1", Name: "init-0", Init: true, Index: 0},
				{ID: "c3", Name: "sidecar-1", Init: true, Index: 1, Kill: true},
				{ID: "c5", Name: "app-1", Index: 1, Source: true},
			}},
		},
		{
			name:  "mark ignored without RestartAllContainersOnContainerExits",
			pod:   pod,
			st:    st,
			gates: gatesWith(features.RestartAllContainersOnContainerExits, false),
			opts:  podactions.Options{RestartAllContainers: true},
			want:  kept,
		},
	})
}

// An init container whose exit matches a RestartAllContainers rule is a
// source too: the four groups in computePodActions' order (regular
// targets, init targets, regular sources, init sources), each of them
// present (found by gremlins: the last group's start was never tested).
func TestComputeRestartAllContainersInitSource(t *testing.T) {
	rule := v1.ContainerRestartRule{Action: v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}
	src := withPolicy(app1, v1.ContainerRestartPolicyNever)
	src.RestartPolicyRules = []v1.ContainerRestartRule{rule}
	initSrc := init0
	initSrc.RestartPolicyRules = []v1.ContainerRestartRule{rule}
	pod := mkPod(v1.RestartPolicyAlways, []v1.Container{initSrc, side1}, app0, src)
	st := state(
		exited("c5", src, 42), inst("c4", app0, runtimestate.Running),
		inst("c3", side1, runtimestate.Running), exited("c1", initSrc, 42),
	)
	run(t, []tcase{{
		name: "init source last",
		pod:  pod,
		st:   st,
		opts: podactions.Options{RestartAllContainers: true},
		want: podactions.Actions{SandboxID: "s1", ContainersToReset: []podactions.Reset{
			{ID: "c4", Name: "app-0", Index: 0, Kill: true},
			{ID: "c3", Name: "sidecar-1", Init: true, Index: 1, Kill: true},
			{ID: "c5", Name: "app-1", Index: 1, Source: true},
			{ID: "c1", Name: "init-0", Init: true, Index: 0, Source: true},
		}},
	}})
}

// An init container in an unknown state is started again unless its
// own restartPolicy (read with ContainerRestartRules) says Never; one
// without its own follows the pod's (found by gremlins).
func TestComputeUnknownInitOwnPolicy(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctr  v1.Container
		kill bool
	}{
		{"own Never", withPolicy(init0, v1.ContainerRestartPolicyNever), true},
		{"own OnFailure", withPolicy(init0, v1.ContainerRestartPolicyOnFailure), false},
		{"none: the pod's Always", init0, false},
	} {
		pod := mkPod(v1.RestartPolicyAlways, []v1.Container{tc.ctr}, app0)
		got := podactions.Compute(pod, state(inst("c1", tc.ctr, runtimestate.Unknown)), podactions.Options{Features: features.V1_37()})
		if got.KillPod != tc.kill {
			t.Errorf("%s: KillPod %v, want %v\n%s", tc.name, got.KillPod, tc.kill, got)
		}
	}
}
