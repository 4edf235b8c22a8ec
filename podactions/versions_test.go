package podactions_test

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// The code-only differences between kubelet versions in computePodActions,
// each built from the example input of shared/kubelet-versions.md (D6,
// D17, D18, D19), answered under every version.
func TestComputeVersions(t *testing.T) {
	setup := ctr("setup")
	small := v1.ResourceRequirements{Requests: rl("cpu", "100m")}
	grown := withResources(app0, rl("cpu", "200m"), nil)
	static := mkPod(v1.RestartPolicyAlways, nil, grown)
	static.Annotations = map[string]string{"kubernetes.io/config.source": "file"}
	oldSandbox := runtimestate.Sandbox{ID: "s0", Attempt: 0, NetworkMode: runtimestate.NamespacePod}
	newSandbox := readySandbox()
	newSandbox.Attempt = 1
	inOld := func(c runtimestate.Container) runtimestate.Container { c.SandboxID = "s0"; return c }
	twoSandboxes := func(insts ...runtimestate.Container) *runtimestate.Pod {
		return &runtimestate.Pod{UID: "uid-1", Sandboxes: []runtimestate.Sandbox{newSandbox, oldSandbox}, Containers: insts}
	}

	type want struct{ v135, v136, v137 podactions.Actions }
	same := func(older, v137 podactions.Actions) want { return want{older, older, v137} }
	cases := []struct {
		name string
		pod  *v1.Pod
		st   *runtimestate.Pod
		opts podactions.Options
		want want
	}{
		{
			// D17 (a): the init container's record was garbage-collected
			// and the app exited in the current sandbox.
			name: "D17a init record gone, app exited in the active sandbox",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{setup}, app0),
			st:   state(exited("c2", app0, 1)),
			want: same(
				podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(0, "setup")},
				podactions.Actions{SandboxID: "s1", ContainersToStart: refs(0, "app-0")}),
		},
		{
			// D17 (b): the only app record is a created one in the old
			// sandbox; no init container ran in the new one.
			name: "D17b app created in an old sandbox, nothing in the new one",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{setup}, app0),
			st:   twoSandboxes(inOld(inst("c1", app0, runtimestate.Created))),
			want: same(
				podactions.Actions{SandboxID: "s1", Attempt: 1, ContainersToStart: refs(0, "app-0")},
				podactions.Actions{SandboxID: "s1", Attempt: 1, InitContainersToStart: refs(0, "setup")}),
		},
		{
			// D18: init-1 finished in the old sandbox, init-0 runs in the
			// new one.
			name: "D18 init-1 done in an old sandbox, init-0 running in the active one",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{init0, init1}, app0),
			st:   twoSandboxes(inst("c2", init0, runtimestate.Running), inOld(exited("c1", init1, 0))),
			want: same(
				podactions.Actions{SandboxID: "s1", Attempt: 1, ContainersToStart: refs(0, "app-0")},
				podactions.Actions{SandboxID: "s1", Attempt: 1}),
		},
		{
			// D19: resized while down; the start marks the pod cgroup for
			// resize only in v1.37.
			name: "D19 a container resized while down starts again",
			pod:  mkPod(v1.RestartPolicyAlways, nil, grown),
			st:   state(exited("c1", grown, 1)),
			opts: podactions.Options{Actuated: actuated("app-0", small)},
			want: same(
				podactions.Actions{SandboxID: "s1", ContainersToStart: refs(0, "app-0")},
				podactions.Actions{SandboxID: "s1", ContainersToStart: refs(0, "app-0"), UpdatePodResources: true}),
		},
		{
			// D6: a static pod is resized in place from v1.36 on.
			name: "D6 static pod with a pending resize",
			pod:  static,
			st:   state(inst("c1", grown, runtimestate.Running)),
			opts: podactions.Options{Actuated: actuated("app-0", small)},
			want: want{
				v135: podactions.Actions{SandboxID: "s1"},
				v136: podactions.Actions{SandboxID: "s1", CPUUpdates: []podactions.Update{{ID: "c1", Name: "app-0",
					Desired: podactions.Resources{CPURequest: 200}, Current: podactions.Resources{CPURequest: 100}}}},
				v137: podactions.Actions{SandboxID: "s1", CPUUpdates: []podactions.Update{{ID: "c1", Name: "app-0",
					Desired: podactions.Resources{CPURequest: 200}, Current: podactions.Resources{CPURequest: 100}}}},
			},
		},
	}
	for _, tc := range cases {
		for _, v := range []struct {
			set  features.Set
			want podactions.Actions
		}{{features.V1_35(), tc.want.v135}, {features.V1_36(), tc.want.v136}, {features.V1_37(), tc.want.v137}} {
			t.Run(tc.name+"/"+v.set.Version().String(), func(t *testing.T) {
				opts := tc.opts
				opts.Features = v.set
				got := podactions.Compute(tc.pod, tc.st, opts)
				if !reflect.DeepEqual(got, v.want) {
					t.Errorf("got:\n%s\nwant:\n%s", got, v.want)
				}
			})
		}
	}
}
