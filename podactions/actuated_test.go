package podactions_test

import (
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// resizes lists the resize decisions in a: in-place updates, restarts to
// resize, pod cgroup and pod-level resizes, emptyDir resizes.
func resizes(a podactions.Actions) []string {
	var out []string
	for _, u := range append(append([]podactions.Update{}, a.MemoryUpdates...), a.CPUUpdates...) {
		out = append(out, "update "+u.Name)
	}
	for _, k := range a.ContainersToKill {
		if k.Cause == podactions.CauseResize {
			out = append(out, "restart "+k.Name)
		}
	}
	if a.UpdatePodResources {
		out = append(out, "pod cgroup")
	}
	if a.UpdatePodLevelResources {
		out = append(out, "pod level")
	}
	out = append(out, a.VolumesToUpsize...)
	return append(out, a.VolumesToDownsize...)
}

// runningWithResources is a running pod with resources everywhere: pod
// level, a sidecar, a regular container with a RestartContainer policy for
// memory, and a memory-backed emptyDir with a size limit.
func runningWithResources() (*v1.Pod, *runtimestate.Pod) {
	app := withResources(ctr("app"), rl("cpu", "100m", "memory", "32Mi"), rl("memory", "64Mi"), restartOn(v1.ResourceMemory))
	side := sidecar("log")
	side.Resources = v1.ResourceRequirements{Requests: rl("cpu", "50m"), Limits: rl("cpu", "200m", "memory", "32Mi")}
	pod := mkPod(v1.RestartPolicyAlways, []v1.Container{side}, app)
	pod.Spec.Resources = &v1.ResourceRequirements{Limits: rl("cpu", "1", "memory", "256Mi")}
	pod.Spec.Volumes = []v1.Volume{{Name: "scratch", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{
		Medium: v1.StorageMediumMemory, SizeLimit: ptr(resource.MustParse("16Mi"))}}}}
	return pod, state(inst("c2", app, runtimestate.Running), inst("c1", side, runtimestate.Running))
}

// TestZeroActuatedRunningPodNoResize: the zero Options on a running pod with
// resources resize nothing (issue 23, item 1); Exact gives the reading of
// computePodActions with an empty checkpoint, which resizes everything.
func TestZeroActuatedRunningPodNoResize(t *testing.T) {
	pod, st := runningWithResources()
	vol, _ := features.V1_37().With(features.InPlacePodVerticalScalingMemoryBackedVolumes, true)
	for _, f := range []features.Set{features.V1_37(), vol, features.V1_36(), features.V1_35()} {
		got := podactions.Compute(pod, st, podactions.Options{Features: f})
		if r := resizes(got); len(r) != 0 || got.String() != "keep the pod as it is" {
			t.Errorf("%v: zero Options resize %q:\n%s", f.Version(), r, got)
		}
		exact := podactions.Compute(pod, st, podactions.Options{Features: f, Actuated: podactions.Actuated{Exact: true}})
		if !strings.Contains(exact.String(), "resize") {
			t.Errorf("%v: Exact with no record should resize (the kubelet reads zeros):\n%s", f.Version(), exact)
		}
	}
	exact := podactions.Compute(pod, st, podactions.Options{Actuated: podactions.Actuated{Exact: true}})
	for _, want := range []string{"kill app (c2): resize requires restart", "resize the pod cgroup",
		"resize pod-level resources", "resize cpu of log (c1) in place"} {
		if !strings.Contains(exact.String(), want) {
			t.Errorf("Exact with no record: no %q in\n%s", want, exact)
		}
	}
	exactVol := podactions.Compute(pod, st, podactions.Options{Features: vol, Actuated: podactions.Actuated{Exact: true}})
	if !reflect.DeepEqual(exactVol.VolumesToUpsize, []string{"scratch"}) {
		t.Errorf("Exact with no record: emptyDir upsize %q, want [scratch]", exactVol.VolumesToUpsize)
	}
}

// TestZeroActuatedNeverResizes: over random pods and states, under every
// version and random gates, the zero Actuated never decides a resize.
func TestZeroActuatedNeverResizes(t *testing.T) {
	exactResized := 0
	rapid.Check(t, func(t *rapid.T) {
		c := podgen.Cases(podgen.CaseOptions{}).Draw(t, "case")
		opts := podgen.PodActionsOptions(c).Draw(t, "options")
		opts.Actuated = podactions.Actuated{}
		got := podactions.Compute(c.Pod, c.State, opts)
		if r := resizes(got); len(r) != 0 {
			t.Fatalf("zero Actuated resizes %q:\n%s", r, got)
		}
		opts.Actuated.Exact = true
		if len(resizes(podactions.Compute(c.Pod, c.State, opts))) != 0 {
			exactResized++
		}
	})
	if exactResized == 0 {
		t.Errorf("no case resized with an empty Exact record: the property tests nothing")
	}
}

// merged returns init with a's entries over it, as a whole record.
func merged(init, a podactions.Actuated) podactions.Actuated {
	out := podactions.Actuated{Exact: true, Pod: init.Pod, Containers: map[string]v1.ResourceRequirements{}}
	for k, v := range init.Containers {
		out.Containers[k] = v
	}
	for k, v := range a.Containers {
		out.Containers[k] = v
	}
	if a.Pod != nil {
		out.Pod = a.Pod
	}
	for _, m := range []map[string]resource.Quantity{init.EmptyDirLimits, a.EmptyDirLimits} {
		for k, v := range m {
			if out.EmptyDirLimits == nil {
				out.EmptyDirLimits = map[string]resource.Quantity{}
			}
			out.EmptyDirLimits[k] = v
		}
	}
	return out
}

// TestDefaultIsInitializedRecord: with v1.37 gates (every init container
// resizable), the default reading of a record equals the Exact reading of
// that record written over InitialActuated, as SyncPod initialises it.
func TestDefaultIsInitializedRecord(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := features.V1_37()
		for _, g := range []features.Gate{features.InPlacePodLevelResourcesVerticalScaling, features.InPlacePodVerticalScalingMemoryBackedVolumes} {
			f, _ = f.With(g, rapid.Bool().Draw(t, string(g)))
		}
		c := podgen.Cases(podgen.CaseOptions{Gates: &f}).Draw(t, "case")
		opts := podgen.PodActionsOptions(c).Draw(t, "options")
		opts.Features = f
		got := podactions.Compute(c.Pod, c.State, opts)
		opts.Actuated = merged(podactions.InitialActuated(c.Pod, f), opts.Actuated)
		want := podactions.Compute(c.Pod, c.State, opts)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("default reading:\n%s\nExact over InitialActuated:\n%s", got, want)
		}
	})
}

func TestInitialActuated(t *testing.T) {
	pod, _ := runningWithResources()
	regularInit := withResources(ctr("setup"), rl("cpu", "10m"), nil)
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, regularInit)
	vol, _ := features.V1_37().With(features.InPlacePodVerticalScalingMemoryBackedVolumes, true)
	noInit, _ := features.V1_36().With(features.InPlacePodVerticalScalingInitContainers, false)
	noPLR, _ := features.V1_37().With(features.InPlacePodLevelResourcesVerticalScaling, false)
	ctrs := func(names ...string) map[string]v1.ResourceRequirements {
		out := map[string]v1.ResourceRequirements{}
		for _, n := range names {
			for _, c := range append(append([]v1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
				if c.Name == n {
					out[n] = c.Resources
				}
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		f    features.Set
		want podactions.Actuated
	}{
		{"v1.37.2", features.V1_37(), podactions.Actuated{Exact: true, Containers: ctrs("log", "setup", "app"), Pod: pod.Spec.Resources}},
		{"memory-backed volumes", vol, podactions.Actuated{Exact: true, Containers: ctrs("log", "setup", "app"), Pod: pod.Spec.Resources,
			EmptyDirLimits: map[string]resource.Quantity{"scratch": resource.MustParse("16Mi")}}},
		{"init containers not resizable: only the sidecar", noInit, podactions.Actuated{Exact: true, Containers: ctrs("log", "app"), Pod: pod.Spec.Resources}},
		{"no pod-level resize", noPLR, podactions.Actuated{Exact: true, Containers: ctrs("log", "setup", "app")}},
	} {
		if got := podactions.InitialActuated(pod, tc.f); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: InitialActuated =\n%#v\nwant\n%#v", tc.name, got, tc.want)
		}
	}
	if got := podactions.InitialActuated(nil, features.V1_37()); !reflect.DeepEqual(got, podactions.Actuated{}) {
		t.Errorf("nil pod: %#v", got)
	}
}
