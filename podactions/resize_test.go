package podactions_test

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

func rl(kv ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func withResources(c v1.Container, req, lim v1.ResourceList, policy ...v1.ContainerResizePolicy) v1.Container {
	c.Resources = v1.ResourceRequirements{Requests: req, Limits: lim}
	c.ResizePolicy = policy
	return c
}

func restartOn(r v1.ResourceName) v1.ContainerResizePolicy {
	return v1.ContainerResizePolicy{ResourceName: r, RestartPolicy: v1.RestartContainer}
}

func actuated(kv ...any) podactions.Actuated {
	a := podactions.Actuated{Containers: map[string]v1.ResourceRequirements{}}
	for i := 0; i < len(kv); i += 2 {
		a.Containers[kv[i].(string)] = kv[i+1].(v1.ResourceRequirements)
	}
	return a
}

func TestComputeResize(t *testing.T) {
	small := v1.ResourceRequirements{Requests: rl("cpu", "100m", "memory", "64Mi"), Limits: rl("cpu", "200m", "memory", "128Mi")}
	cpuUp := withResources(app0, rl("cpu", "250m", "memory", "64Mi"), rl("cpu", "200m", "memory", "128Mi"))
	memLimitUp := withResources(app1, rl("cpu", "100m", "memory", "64Mi"), rl("cpu", "200m", "memory", "256Mi"), restartOn(v1.ResourceMemory))
	cpuDown := withResources(app1, rl("cpu", "50m", "memory", "64Mi"), rl("cpu", "200m", "memory", "128Mi"))
	res := func(memLim, memReq, cpuLim, cpuReq int64) podactions.Resources {
		return podactions.Resources{MemoryLimit: memLim, MemoryRequest: memReq, CPULimit: cpuLim, CPURequest: cpuReq}
	}
	const mi = 1 << 20
	run(t, []tcase{
		{
			name: "cpu request raised, no resize policy (NotRequired): update in place",
			pod:  mkPod(v1.RestartPolicyAlways, nil, cpuUp),
			st:   state(inst("c1", cpuUp, runtimestate.Running)),
			opts: podactions.Options{Actuated: actuated("app-0", small)},
			want: podactions.Actions{SandboxID: "s1", CPUUpdates: []podactions.Update{
				{ID: "c1", Name: "app-0", Desired: res(128*mi, 64*mi, 200, 250), Current: res(128*mi, 64*mi, 200, 100)},
			}},
		},
		{
			name: "memory limit raised with RestartContainer: kill, restart, resize the pod cgroup",
			pod:  mkPod(v1.RestartPolicyAlways, nil, app0, memLimitUp),
			st:   state(inst("c2", memLimitUp, runtimestate.Running), inst("c1", app0, runtimestate.Running)),
			opts: podactions.Options{Actuated: actuated("app-1", small)},
			want: podactions.Actions{SandboxID: "s1", ContainersToStart: refs(1, "app-1"), UpdatePodResources: true, ContainersToKill: []podactions.Kill{
				{ID: "c2", Name: "app-1", Index: 1, Cause: podactions.CauseResize, Message: "Container app-1 resize requires restart"},
			}},
		},
		{
			name: "decreases are queued before increases",
			pod:  mkPod(v1.RestartPolicyAlways, nil, cpuUp, cpuDown),
			st:   state(inst("c2", cpuDown, runtimestate.Running), inst("c1", cpuUp, runtimestate.Running)),
			opts: podactions.Options{Actuated: actuated("app-0", small, "app-1", small)},
			want: podactions.Actions{SandboxID: "s1", CPUUpdates: []podactions.Update{
				{ID: "c2", Name: "app-1", Index: 1, Desired: res(128*mi, 64*mi, 200, 50), Current: res(128*mi, 64*mi, 200, 100)},
				{ID: "c1", Name: "app-0", Desired: res(128*mi, 64*mi, 200, 250), Current: res(128*mi, 64*mi, 200, 100)},
			}},
		},
		{
			name: "no actuated record, Exact: compared with zeros",
			pod:  mkPod(v1.RestartPolicyAlways, nil, withResources(app0, rl("memory", "64Mi"), nil)),
			st:   state(inst("c1", app0, runtimestate.Running)),
			opts: podactions.Options{Actuated: podactions.Actuated{Exact: true}},
			want: podactions.Actions{SandboxID: "s1", MemoryUpdates: []podactions.Update{
				{ID: "c1", Name: "app-0", Desired: res(0, 64*mi, 0, 0)},
			}},
		},
		{
			name: "no actuated record, default: actuated as the spec has it, nothing to resize",
			pod:  mkPod(v1.RestartPolicyAlways, nil, withResources(app0, rl("memory", "64Mi"), nil)),
			st:   state(inst("c1", app0, runtimestate.Running)),
			want: kept,
		},
		{
			name:  "no in-place resize without InPlacePodVerticalScaling",
			pod:   mkPod(v1.RestartPolicyAlways, nil, cpuUp),
			st:    state(inst("c1", cpuUp, runtimestate.Running)),
			gates: gatesWith(features.InPlacePodVerticalScaling, false),
			opts:  podactions.Options{Actuated: actuated("app-0", small)},
			want:  kept,
		},
		{
			name: "a container about to start with changed resources resizes the pod cgroup",
			pod:  mkPod(v1.RestartPolicyAlways, nil, cpuUp),
			st:   state(exited("c1", cpuUp, 1)),
			opts: podactions.Options{Actuated: actuated("app-0", small)},
			want: podactions.Actions{SandboxID: "s1", ContainersToStart: refs(0, "app-0"), UpdatePodResources: true},
		},
		{
			name: "running regular init container is resized in place",
			pod:  mkPod(v1.RestartPolicyAlways, []v1.Container{withResources(init0, rl("cpu", "250m", "memory", "64Mi"), rl("cpu", "200m", "memory", "128Mi"))}, app0),
			st:   state(inst("c1", init0, runtimestate.Running)),
			opts: podactions.Options{Actuated: actuated("init-0", small)},
			want: podactions.Actions{SandboxID: "s1", CPUUpdates: []podactions.Update{
				{ID: "c1", Name: "init-0", Init: true, Desired: res(128*mi, 64*mi, 200, 250), Current: res(128*mi, 64*mi, 200, 100)},
			}},
		},
		{
			name: "sidecar resize with RestartContainer restarts the sidecar",
			pod: mkPod(v1.RestartPolicyAlways, []v1.Container{
				withResources(side1, rl("cpu", "100m"), rl("cpu", "500m"), restartOn(v1.ResourceCPU)),
			}, app0),
			st:   state(inst("c2", app0, runtimestate.Running), inst("c1", side1, runtimestate.Running)),
			opts: podactions.Options{Actuated: actuated("sidecar-1", v1.ResourceRequirements{Requests: rl("cpu", "100m"), Limits: rl("cpu", "200m")}, "app-0", v1.ResourceRequirements{})},
			want: podactions.Actions{SandboxID: "s1", InitContainersToStart: refs(0, "sidecar-1"), UpdatePodResources: true, ContainersToKill: []podactions.Kill{
				{ID: "c1", Name: "sidecar-1", Init: true, Cause: podactions.CauseResize, Message: "Container sidecar-1 resize requires restart"},
			}},
		},
	})
}

func TestComputePodLevelResize(t *testing.T) {
	pod := mkPod(v1.RestartPolicyAlways, nil, withResources(app0, rl("cpu", "100m"), nil))
	pod.Spec.Resources = &v1.ResourceRequirements{Requests: rl("cpu", "500m"), Limits: rl("cpu", "1")}
	st := state(inst("c1", app0, runtimestate.Running))
	sameCtr := actuated("app-0", v1.ResourceRequirements{Requests: rl("cpu", "100m")})
	sameCtr.Exact = true
	inherit := podactions.Update{ID: "c1", Name: "app-0",
		Desired: podactions.Resources{CPULimit: 1000, CPURequest: 100}, Current: podactions.Resources{CPURequest: 100}}
	withPod := sameCtr
	withPod.Pod = &v1.ResourceRequirements{Requests: rl("cpu", "500m"), Limits: rl("cpu", "1")}
	run(t, []tcase{
		{
			name: "pod-level resources not actuated yet: update them; the container inherits the pod cpu limit",
			pod:  pod,
			st:   st,
			opts: podactions.Options{Actuated: sameCtr},
			want: podactions.Actions{SandboxID: "s1", UpdatePodLevelResources: true, CPUUpdates: []podactions.Update{inherit}},
		},
		{
			name: "pod-level record left out, default: actuated as the spec has it, nothing",
			pod:  pod,
			st:   st,
			want: kept,
		},
		{
			name: "pod-level resources as actuated: nothing",
			pod:  pod,
			st:   st,
			opts: podactions.Options{Actuated: withPod},
			want: kept,
		},
		{
			name:  "without InPlacePodLevelResourcesVerticalScaling: no pod-level update, no inherited limit",
			pod:   pod,
			st:    st,
			gates: gatesWith(features.InPlacePodLevelResourcesVerticalScaling, false),
			opts:  podactions.Options{Actuated: sameCtr},
			want:  kept,
		},
	})
}

func TestComputeVolumeResize(t *testing.T) {
	pod := mkPod(v1.RestartPolicyAlways, nil, app0)
	vol := func(name, medium, size string) v1.Volume {
		ed := &v1.EmptyDirVolumeSource{Medium: v1.StorageMedium(medium)}
		if size != "" {
			ed.SizeLimit = ptr(resource.MustParse(size))
		}
		return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{EmptyDir: ed}}
	}
	pod.Spec.Volumes = []v1.Volume{
		vol("grow", "Memory", "128Mi"), vol("shrink", "Memory", "64Mi"), vol("same", "Memory", "64Mi"),
		vol("unrecorded", "Memory", "1Gi"), vol("disk", "", "1Gi"), vol("nolimit", "Memory", ""), vol("zero", "Memory", "0"),
	}
	st := state(inst("c1", app0, runtimestate.Running))
	opts := podactions.Options{Actuated: podactions.Actuated{Exact: true, EmptyDirLimits: map[string]resource.Quantity{
		"grow": resource.MustParse("64Mi"), "shrink": resource.MustParse("128Mi"), "same": resource.MustParse("64Mi"),
	}}}
	friendly := opts
	friendly.Actuated.Exact = false
	run(t, []tcase{
		{
			name:  "Exact: memory-backed emptyDirs grow, shrink, or grow when unrecorded",
			pod:   pod,
			st:    st,
			gates: gatesWith(features.InPlacePodVerticalScalingMemoryBackedVolumes, true),
			opts:  opts,
			want:  podactions.Actions{SandboxID: "s1", VolumesToUpsize: []string{"grow", "unrecorded"}, VolumesToDownsize: []string{"shrink"}},
		},
		{
			name:  "default: an unrecorded volume reads as actuated at its spec limit",
			pod:   pod,
			st:    st,
			gates: gatesWith(features.InPlacePodVerticalScalingMemoryBackedVolumes, true),
			opts:  friendly,
			want:  podactions.Actions{SandboxID: "s1", VolumesToUpsize: []string{"grow"}, VolumesToDownsize: []string{"shrink"}},
		},
		{
			name: "not without InPlacePodVerticalScalingMemoryBackedVolumes (off by default)",
			pod:  pod,
			st:   st,
			opts: opts,
			want: kept,
		},
	})
}
