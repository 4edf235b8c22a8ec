package podactions_test

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Builders for hand-written cases. A pod has containers "app-N", init
// containers "init-N" and sidecars "sidecar-N"; its runtime state has one
// ready sandbox "s1" with an IP unless a case says otherwise.

func ctr(name string) v1.Container { return v1.Container{Name: name, Image: "busybox:1.37"} }

func sidecar(name string) v1.Container {
	c := ctr(name)
	c.RestartPolicy = ptr(v1.ContainerRestartPolicyAlways)
	return c
}

func withPolicy(c v1.Container, p v1.ContainerRestartPolicy) v1.Container {
	c.RestartPolicy = &p
	return c
}

func ptr[T any](v T) *T { return &v }

func mkPod(policy v1.RestartPolicy, inits []v1.Container, ctrs ...v1.Container) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "uid-1"},
		Spec:       v1.PodSpec{RestartPolicy: policy, InitContainers: inits, Containers: ctrs},
	}
}

func readySandbox() runtimestate.Sandbox {
	return runtimestate.Sandbox{ID: "s1", Ready: true, Attempt: 0, NetworkMode: runtimestate.NamespacePod, IP: "10.0.0.1"}
}

// inst is an instance of spec container c in sandbox s1, created from the
// current definition.
func inst(id string, c v1.Container, st runtimestate.State) runtimestate.Container {
	return runtimestate.Container{ID: id, Name: c.Name, SandboxID: "s1", State: st, Hash: containerhash.Of(&c), Image: c.Image}
}

func exited(id string, c v1.Container, code int) runtimestate.Container {
	in := inst(id, c, runtimestate.Exited)
	in.ExitCode = code
	return in
}

func state(insts ...runtimestate.Container) *runtimestate.Pod {
	return &runtimestate.Pod{UID: "uid-1", Sandboxes: []runtimestate.Sandbox{readySandbox()}, Containers: insts}
}

func refs(names ...any) []podactions.Ref {
	var out []podactions.Ref
	for i := 0; i < len(names); i += 2 {
		out = append(out, podactions.Ref{Index: names[i].(int), Name: names[i+1].(string)})
	}
	return out
}

type tcase struct {
	name  string
	pod   *v1.Pod
	st    *runtimestate.Pod
	gates *features.Set
	opts  podactions.Options
	want  podactions.Actions
}

func run(t *testing.T, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := features.V1_37()
			if tc.gates != nil {
				f = *tc.gates
			}
			var before *v1.Pod
			if tc.pod != nil {
				before = tc.pod.DeepCopy()
			}
			opts := tc.opts
			opts.Features = f
			got := podactions.Compute(tc.pod, tc.st, opts)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Compute:\n got  %#v\n want %#v\n\ngot:\n%s\n\nwant:\n%s", got, tc.want, got, tc.want)
			}
			if tc.pod != nil && !reflect.DeepEqual(before, tc.pod) {
				t.Errorf("Compute changed the pod")
			}
		})
	}
}

func gatesWith(g features.Gate, on bool) *features.Set {
	f, err := features.V1_37().With(g, on)
	if err != nil {
		panic(err)
	}
	if g == features.ContainerRestartRules && !on {
		f, _ = f.With(features.RestartAllContainersOnContainerExits, false)
	}
	return &f
}

var (
	app0, app1 = ctr("app-0"), ctr("app-1")
	kept       = podactions.Actions{SandboxID: "s1"}
)

func TestComputeSandbox(t *testing.T) {
	notReady := func(attempt uint32) *runtimestate.Pod {
		st := state(exited("c1", app0, 1))
		st.Sandboxes[0].Ready = false
		st.Sandboxes[0].Attempt = attempt
		return st
	}
	run(t, []tcase{
		{
			name: "nil pod: nothing to do",
			want: podactions.Actions{},
		},
		{
			name: "no sandbox: create one and start every container",
			pod:  mkPod(v1.RestartPolicyAlways, nil, app0, app1),
			st:   nil,
			want: podactions.Actions{KillPod: true, CreateSandbox: true, SandboxMessage: vocab.MsgNoPodSandbox, ContainersToStart: refs(0, "app-0", 1, "app-1")},
		},
		{
			name: "all running in a ready sandbox: keep",
			pod:  mkPod(v1.RestartPolicyAlways, nil, app0, app1),
			st:   state(inst("c2", app1, runtimestate.Running), inst("c1", app0, runtimestate.Running)),
			want: kept,
		},
		{
			name: "sandbox not ready: next attempt, start everything again",
			pod:  mkPod(v1.RestartPolicyAlways, nil, app0),
			st:   notReady(2),
			want: podactions.Actions{KillPod: true, CreateSandbox: true, SandboxID: "s1", Attempt: 3, SandboxMessage: vocab.MsgSandboxNotReady, ContainersToStart: refs(0, "app-0")},
		},
		{
			name: "sandbox not ready under Never after containers ran: only kill",
			pod:  mkPod(v1.RestartPolicyNever, nil, app0),
			st:   notReady(0),
			want: podactions.Actions{KillPod: true, SandboxID: "s1", Attempt: 1, SandboxMessage: vocab.MsgSandboxNotReady},
		},
		{
			name: "no sandbox under Never with leftover containers: attempt 0 still creates one",
			pod:  mkPod(v1.RestartPolicyNever, nil, app0),
			st:   &runtimestate.Pod{Containers: []runtimestate.Container{exited("c1", app0, 0)}},
			want: podactions.Actions{KillPod: true, CreateSandbox: true, SandboxMessage: vocab.MsgNoPodSandbox, ContainersToStart: refs(0, "app-0")},
		},
		{
			name: "sandbox not ready under OnFailure: succeeded containers are not started again",
			pod:  mkPod(v1.RestartPolicyOnFailure, nil, app0, app1),
			st: func() *runtimestate.Pod {
				st := state(exited("c2", app1, 1), exited("c1", app0, 0))
				st.Sandboxes[0].Ready = false
				return st
			}(),
			want: podactions.Actions{KillPod: true, CreateSandbox: true, SandboxID: "s1", Attempt: 1, SandboxMessage: vocab.MsgSandboxNotReady, ContainersToStart: refs(1, "app-1")},
		},
		{
			name: "sandbox not ready under OnFailure, every container succeeded: no new sandbox",
			pod:  mkPod(v1.RestartPolicyOnFailure, nil, app0),
			st: func() *runtimestate.Pod {
				st := state(exited("c1", app0, 0))
				st.Sandboxes[0].Ready = false
				return st
			}(),
			want: podactions.Actions{KillPod: true, SandboxID: "s1", Attempt: 1, SandboxMessage: vocab.MsgSandboxNotReady},
		},
		{
			name: "container-level OnFailure overrides pod Always on the sandbox path",
			pod:  mkPod(v1.RestartPolicyAlways, nil, withPolicy(app0, v1.ContainerRestartPolicyOnFailure), app1),
			st: func() *runtimestate.Pod {
				st := state(exited("c2", app1, 0), exited("c1", withPolicy(app0, v1.ContainerRestartPolicyOnFailure), 0))
				st.Sandboxes[0].Ready = false
				return st
			}(),
			want: podactions.Actions{KillPod: true, CreateSandbox: true, SandboxID: "s1", Attempt: 1, SandboxMessage: vocab.MsgSandboxNotReady, ContainersToStart: refs(1, "app-1")},
		},
		{
			name: "sandbox re-created for a pod with init containers: start the first one only",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{ctr("init-0"), sidecar("sidecar-1")}, app0),
			st:   nil,
			want: podactions.Actions{KillPod: true, CreateSandbox: true, SandboxMessage: vocab.MsgNoPodSandbox, InitContainersToStart: refs(0, "init-0")},
		},
		{
			name: "two ready sandboxes: reconcile with a new one",
			pod:  mkPod(v1.RestartPolicyAlways, nil, app0),
			st: &runtimestate.Pod{Sandboxes: []runtimestate.Sandbox{
				{ID: "s2", Ready: true, Attempt: 1, IP: "10.0.0.2"}, {ID: "s1", Ready: true, IP: "10.0.0.1"},
			}},
			want: podactions.Actions{KillPod: true, CreateSandbox: true, SandboxID: "s2", Attempt: 2, SandboxMessage: vocab.MsgMultipleSandboxes, ContainersToStart: refs(0, "app-0")},
		},
		{
			name: "network namespace mode changed: the sandbox ID is not passed on",
			pod:  func() *v1.Pod { p := mkPod(v1.RestartPolicyAlways, nil, app0); p.Spec.HostNetwork = true; return p }(),
			st:   state(inst("c1", app0, runtimestate.Running)),
			want: podactions.Actions{KillPod: true, CreateSandbox: true, Attempt: 1, SandboxMessage: vocab.MsgNetworkNamespaceMode, ContainersToStart: refs(0, "app-0")},
		},
		{
			name: "ready sandbox without an IP",
			pod:  mkPod(v1.RestartPolicyAlways, nil, app0),
			st: func() *runtimestate.Pod {
				st := state(inst("c1", app0, runtimestate.Running))
				st.Sandboxes[0].IP, st.Sandboxes[0].NoIP = "", true
				return st
			}(),
			want: podactions.Actions{KillPod: true, CreateSandbox: true, SandboxID: "s1", Attempt: 1, SandboxMessage: vocab.MsgNoIPAddress, ContainersToStart: refs(0, "app-0")},
		},
		{
			name: "no network status at all is not a missing IP",
			pod:  mkPod(v1.RestartPolicyAlways, nil, app0),
			st: func() *runtimestate.Pod {
				st := state(inst("c1", app0, runtimestate.Running))
				st.Sandboxes[0].IP, st.Sandboxes[0].NoNetworkStatus = "", true
				return st
			}(),
			want: kept,
		},
	})
}

func TestComputeRegularContainers(t *testing.T) {
	deleting := func(p *v1.Pod) *v1.Pod { p.DeletionTimestamp = &metav1.Time{}; return p }
	run(t, []tcase{
		{
			name: "exited under Always: start again",
			pod:  mkPod(v1.RestartPolicyAlways, nil, app0, app1),
			st:   state(exited("c2", app1, 0), inst("c1", app0, runtimestate.Running)),
			want: podactions.Actions{SandboxID: "s1", ContainersToStart: refs(1, "app-1")},
		},
		{
			name: "exited 0 under OnFailure: not started, the other keeps running",
			pod:  mkPod(v1.RestartPolicyOnFailure, nil, app0, app1),
			st:   state(exited("c2", app1, 0), inst("c1", app0, runtimestate.Running)),
			want: kept,
		},
		{
			name: "all exited under Never: kill the pod",
			pod:  mkPod(v1.RestartPolicyNever, nil, app0, app1),
			st:   state(exited("c2", app1, 0), exited("c1", app0, 1)),
			want: podactions.Actions{KillPod: true, SandboxID: "s1"},
		},
		{
			name: "never ran: start it",
			pod:  mkPod(v1.RestartPolicyNever, nil, app0, app1),
			st:   state(inst("c1", app0, runtimestate.Running)),
			want: podactions.Actions{SandboxID: "s1", ContainersToStart: refs(1, "app-1")},
		},
		{
			name: "created but not started: start it again without a kill",
			pod:  mkPod(v1.RestartPolicyNever, nil, app0),
			st:   state(inst("c1", app0, runtimestate.Created)),
			want: podactions.Actions{SandboxID: "s1", ContainersToStart: refs(0, "app-0")},
		},
		{
			name: "unknown state: kill before the restart",
			pod:  mkPod(v1.RestartPolicyAlways, nil, app0),
			st:   state(inst("c1", app0, runtimestate.Unknown)),
			want: podactions.Actions{SandboxID: "s1", ContainersToStart: refs(0, "app-0"), ContainersToKill: []podactions.Kill{
				{ID: "c1", Name: "app-0", Cause: podactions.CauseUnknownState, Reason: vocab.ReasonUnknown, Message: `Container is in "unknown" state, try killing it before restart`},
			}},
		},
		{
			name: "unknown state while the pod is deleted: no kill, no start, kill the pod",
			pod:  deleting(mkPod(v1.RestartPolicyAlways, nil, app0)),
			st:   state(inst("c1", app0, runtimestate.Unknown)),
			want: podactions.Actions{KillPod: true, SandboxID: "s1"},
		},
		{
			name: "definition changed: restarted even under Never",
			pod:  mkPod(v1.RestartPolicyNever, nil, app0),
			st: func() *runtimestate.Pod {
				in := inst("c1", app0, runtimestate.Running)
				in.Hash = containerhash.Of(&v1.Container{Name: "app-0", Image: "busybox:1.36"})
				return state(in)
			}(),
			want: podactions.Actions{SandboxID: "s1", ContainersToStart: refs(0, "app-0"), ContainersToKill: []podactions.Kill{
				{ID: "c1", Name: "app-0", Cause: podactions.CauseDefinitionChanged, Message: "Container app-0 definition changed, will be restarted"},
			}},
		},
		{
			name: "liveness failure under Always: kill and restart",
			pod:  mkPod(v1.RestartPolicyAlways, nil, app0),
			st:   state(inst("c1", app0, runtimestate.Running)),
			opts: podactions.Options{Probes: map[string]vocab.ProbeResults{"c1": {Liveness: vocab.ProbeFailure, Startup: vocab.ProbeFailure}}},
			want: podactions.Actions{SandboxID: "s1", ContainersToStart: refs(0, "app-0"), ContainersToKill: []podactions.Kill{
				{ID: "c1", Name: "app-0", Cause: podactions.CauseLivenessProbe, Reason: vocab.ReasonLivenessProbe, Message: "Container app-0 failed liveness probe, will be restarted"},
			}},
		},
		{
			name: "startup failure under Never: kill without restart, then kill the pod",
			pod:  mkPod(v1.RestartPolicyNever, nil, app0),
			st:   state(inst("c1", app0, runtimestate.Running)),
			opts: podactions.Options{Probes: map[string]vocab.ProbeResults{"c1": {Liveness: vocab.ProbeUnknown, Startup: vocab.ProbeFailure}}},
			want: podactions.Actions{KillPod: true, SandboxID: "s1", ContainersToKill: []podactions.Kill{
				{ID: "c1", Name: "app-0", Cause: podactions.CauseStartupProbe, Reason: vocab.ReasonStartupProbe, Message: "Container app-0 failed startup probe"},
			}},
		},
		{
			name: "liveness unknown or success: keep",
			pod:  mkPod(v1.RestartPolicyAlways, nil, app0, app1),
			st:   state(inst("c2", app1, runtimestate.Running), inst("c1", app0, runtimestate.Running)),
			opts: podactions.Options{Probes: map[string]vocab.ProbeResults{"c1": {Liveness: vocab.ProbeUnknown}, "c2": {Liveness: vocab.ProbeSuccess, Startup: "odd"}}},
			want: kept,
		},
		{
			name: "container policy Never overrides pod Always for a liveness failure",
			pod:  mkPod(v1.RestartPolicyAlways, nil, withPolicy(app0, v1.ContainerRestartPolicyNever), app1),
			st:   state(inst("c2", app1, runtimestate.Running), inst("c1", withPolicy(app0, v1.ContainerRestartPolicyNever), runtimestate.Running)),
			opts: podactions.Options{Probes: map[string]vocab.ProbeResults{"c1": {Liveness: vocab.ProbeFailure}}},
			want: podactions.Actions{SandboxID: "s1", ContainersToKill: []podactions.Kill{
				{ID: "c1", Name: "app-0", Cause: podactions.CauseLivenessProbe, Reason: vocab.ReasonLivenessProbe, Message: "Container app-0 failed liveness probe"},
			}},
		},
		{
			name:  "container policy ignored without ContainerRestartRules",
			pod:   mkPod(v1.RestartPolicyAlways, nil, withPolicy(app0, v1.ContainerRestartPolicyNever)),
			st:    state(inst("c1", withPolicy(app0, v1.ContainerRestartPolicyNever), runtimestate.Running)),
			gates: gatesWith(features.ContainerRestartRules, false),
			opts:  podactions.Options{Probes: map[string]vocab.ProbeResults{"c1": {Liveness: vocab.ProbeFailure}}},
			want: podactions.Actions{SandboxID: "s1", ContainersToStart: refs(0, "app-0"), ContainersToKill: []podactions.Kill{
				{ID: "c1", Name: "app-0", Cause: podactions.CauseLivenessProbe, Reason: vocab.ReasonLivenessProbe, Message: "Container app-0 failed liveness probe, will be restarted"},
			}},
		},
		{
			name: "ephemeral containers that never ran start; those that ran do not",
			pod: func() *v1.Pod {
				p := mkPod(v1.RestartPolicyAlways, nil, app0)
				p.Spec.EphemeralContainers = []v1.EphemeralContainer{
					{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug-0", Image: "busybox"}},
					{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug-1", Image: "busybox"}},
				}
				return p
			}(),
			st:   state(runtimestate.Container{ID: "c2", Name: "debug-0", SandboxID: "s1", State: runtimestate.Exited}, inst("c1", app0, runtimestate.Running)),
			want: podactions.Actions{SandboxID: "s1", EphemeralContainersToStart: refs(1, "debug-1")},
		},
	})
}
