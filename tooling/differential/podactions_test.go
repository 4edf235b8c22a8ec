//go:build kubeletlogic_overlay

package differential

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// podActionsCases: cases per run, each under its own random gate set.
const podActionsCases = 50000

// paCompared is the part of a podActions both sides express, normalised:
// empty lists are nil (the kubelet's ContainersToStart starts as [] and
// its ContainersToUpdate as an empty map, neither meaning anything more
// than nil); kills are keyed by container ID as in the kubelet's map;
// a container is named by its list and index ("init/1", "regular/0").
type paCompared struct {
	KillPod, CreateSandbox     bool
	SandboxID                  string
	Attempt                    uint32
	InitContainersToStart      []int
	ContainersToStart          []int
	EphemeralContainersToStart []int
	ContainersToKill           map[string]paKill
	ContainersToReset          []paReset
	Updates                    map[v1.ResourceName][]paUpdate
	UpdatePodResources         bool
	UpdatePodLevelResources    bool
	VolumesToUpsize            []string
	VolumesToDownsize          []string
}

type paKill struct{ Container, Name, Message, Reason string }

type paReset struct {
	ID, Container string
	Kill          bool
}

type paUpdate struct {
	ID, Container    string
	Desired, Current kuberuntime.KLResourceRequirements
}

func paID(id string) string { return kubeletconv.RuntimeType + "://" + id }

func paRef(init bool, idx int) string {
	if init {
		return fmt.Sprintf("init/%d", idx)
	}
	return fmt.Sprintf("regular/%d", idx)
}

// paKubeletRef names the spec container c points to; a pointer that is not
// into the pod (the kubelet passes a copy for resizes) is named by the
// container name it carries.
func paKubeletRef(pod *v1.Pod, c *v1.Container) string {
	if c == nil {
		return "nil"
	}
	for i := range pod.Spec.InitContainers {
		if c == &pod.Spec.InitContainers[i] {
			return paRef(true, i)
		}
	}
	for i := range pod.Spec.Containers {
		if c == &pod.Spec.Containers[i] {
			return paRef(false, i)
		}
	}
	for i := range pod.Spec.InitContainers {
		if c.Name == pod.Spec.InitContainers[i].Name {
			return paRef(true, i)
		}
	}
	for i := range pod.Spec.Containers {
		if c.Name == pod.Spec.Containers[i].Name {
			return paRef(false, i)
		}
	}
	return "copy:" + c.Name
}

func paInts(xs []int) []int {
	if len(xs) == 0 {
		return nil
	}
	return xs
}

func paRefs(rs []podactions.Ref) []int {
	var out []int
	for _, r := range rs {
		out = append(out, r.Index)
	}
	return out
}

func paFromKubelet(pod *v1.Pod, k kuberuntime.KLPodActions) paCompared {
	out := paCompared{
		KillPod: k.KillPod, CreateSandbox: k.CreateSandbox, SandboxID: k.SandboxID, Attempt: k.Attempt,
		InitContainersToStart:      paInts(k.InitContainersToStart),
		ContainersToStart:          paInts(k.ContainersToStart),
		EphemeralContainersToStart: paInts(k.EphemeralContainersToStart),
		UpdatePodResources:         k.UpdatePodResources,
		UpdatePodLevelResources:    k.UpdatePodLevelResources,
	}
	for id, kill := range k.ContainersToKill {
		if out.ContainersToKill == nil {
			out.ContainersToKill = map[string]paKill{}
		}
		out.ContainersToKill[id] = paKill{Container: paKubeletRef(pod, kill.Container), Name: kill.Name, Message: kill.Message, Reason: kill.Reason}
	}
	for _, r := range k.ContainersToReset {
		out.ContainersToReset = append(out.ContainersToReset, paReset{ID: r.ContainerID, Container: paKubeletRef(pod, r.Container), Kill: r.Kill})
	}
	for rn, us := range k.ContainersToUpdate {
		for _, u := range us {
			if out.Updates == nil {
				out.Updates = map[v1.ResourceName][]paUpdate{}
			}
			var cur kuberuntime.KLResourceRequirements
			if u.CurrentContainerResources != nil {
				cur = *u.CurrentContainerResources
			}
			out.Updates[rn] = append(out.Updates[rn], paUpdate{ID: u.ContainerID, Container: paKubeletRef(pod, u.Container), Desired: u.DesiredContainerResources, Current: cur})
		}
	}
	for _, v := range k.VolumesToUpsize {
		out.VolumesToUpsize = append(out.VolumesToUpsize, v.Name)
	}
	for _, v := range k.VolumesToDownsize {
		out.VolumesToDownsize = append(out.VolumesToDownsize, v.Name)
	}
	return out
}

func paKLResources(r podactions.Resources) kuberuntime.KLResourceRequirements {
	return kuberuntime.KLResourceRequirements{MemoryLimit: r.MemoryLimit, MemoryRequest: r.MemoryRequest, CPULimit: r.CPULimit, CPURequest: r.CPURequest}
}

func paFromOurs(a podactions.Actions) paCompared {
	out := paCompared{
		KillPod: a.KillPod, CreateSandbox: a.CreateSandbox, SandboxID: a.SandboxID, Attempt: a.Attempt,
		InitContainersToStart:      paRefs(a.InitContainersToStart),
		ContainersToStart:          paRefs(a.ContainersToStart),
		EphemeralContainersToStart: paRefs(a.EphemeralContainersToStart),
		UpdatePodResources:         a.UpdatePodResources,
		UpdatePodLevelResources:    a.UpdatePodLevelResources,
		VolumesToUpsize:            a.VolumesToUpsize,
		VolumesToDownsize:          a.VolumesToDownsize,
	}
	for _, k := range a.ContainersToKill {
		if out.ContainersToKill == nil {
			out.ContainersToKill = map[string]paKill{}
		}
		out.ContainersToKill[paID(k.ID)] = paKill{Container: paRef(k.Init, k.Index), Name: k.Name, Message: k.Message, Reason: string(k.Reason)}
	}
	for _, r := range a.ContainersToReset {
		out.ContainersToReset = append(out.ContainersToReset, paReset{ID: paID(r.ID), Container: paRef(r.Init, r.Index), Kill: r.Kill})
	}
	for rn, us := range map[v1.ResourceName][]podactions.Update{v1.ResourceMemory: a.MemoryUpdates, v1.ResourceCPU: a.CPUUpdates} {
		for _, u := range us {
			if out.Updates == nil {
				out.Updates = map[v1.ResourceName][]paUpdate{}
			}
			out.Updates[rn] = append(out.Updates[rn], paUpdate{ID: paID(u.ID), Container: paRef(u.Init, u.Index), Desired: paKLResources(u.Desired), Current: paKLResources(u.Current)})
		}
	}
	return out
}

// paProbeMaps converts probe results to the adapter's maps.
func paProbeMaps(probes map[string]vocab.ProbeResults) (liveness, startup map[string]string) {
	liveness, startup = map[string]string{}, map[string]string{}
	for id, p := range probes {
		if p.Liveness != "" {
			liveness[paID(id)] = string(p.Liveness)
		}
		if p.Startup != "" {
			startup[paID(id)] = string(p.Startup)
		}
	}
	return liveness, startup
}

// paSetActuated stores a in the kubelet's actuated-resources store under
// pod's UID (on top of whatever it holds).
func paSetActuated(pod *v1.Pod, a podactions.Actuated) {
	if err := kuberuntime.KLSetActuated(pod.UID, a.Containers, a.Pod, a.EmptyDirLimits); err != nil {
		panic(err)
	}
}

// paKubelet runs the kubelet's computePodActions on the same inputs, its
// store holding exactly opts.Actuated (to compare with Actuated.Exact).
func paKubelet(pod *v1.Pod, ks *kubecontainer.PodStatus, opts podactions.Options) kuberuntime.KLPodActions {
	kuberuntime.KLResetActuatedState()
	paSetActuated(pod, opts.Actuated)
	live, start := paProbeMaps(opts.Probes)
	return kuberuntime.KLComputePodActions(pod, ks, live, start, opts.RestartAllContainers)
}

func TestDifferentialPodActions(t *testing.T) {
	check(t, podActionsCases, []string{"runtimestate.SandboxChanged", "podactions.Compute"}, func(rt *rapid.T, f features.Set) {
		c := podgen.Cases(podgen.CaseOptions{Gates: &f}).Draw(rt, "case")
		opts := podgen.PodActionsOptions(c).Draw(rt, "options")
		kst, st := listed(rt, c.State)
		c.State = st
		ks := kubeletconv.PodStatus(kst)

		sb := runtimestate.SandboxChanged(c.Pod, c.State)
		wantSB, withMessage := kubeletSandboxChanged(c.Pod, ks)
		if !withMessage {
			sb.Message = "" // this kubelet gives no message to compare
		}
		if sb != wantSB {
			rt.Fatalf("SandboxChanged = %+v, kubelet %+v", sb, wantSB)
		}
		compared(rt, "runtimestate.SandboxChanged")

		opts.Features = f
		// The kubelet gets exactly the drawn record: read it as
		// computePodActions does (TestDifferentialPodActionsDefault
		// compares the default reading).
		opts.Actuated.Exact = true
		got := podactions.Compute(c.Pod, c.State, opts)
		want := paKubelet(c.Pod, ks, opts)
		if d := cmp.Diff(paFromKubelet(c.Pod, want), paFromOurs(got)); d != "" {
			rt.Fatalf("Compute differs from the kubelet's computePodActions (-kubelet +ours):\n%s\nours:\n%s", d, got)
		}
		compared(rt, "podactions.Compute")
	})
}
