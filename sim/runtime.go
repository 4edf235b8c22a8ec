package sim

import (
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// fakeRuntime is the container runtime's view of one pod: its sandboxes
// and container instances, whose processes follow the script.
type fakeRuntime struct {
	pod        *v1.Pod
	script     *Script
	sandboxes  []runtimestate.Sandbox
	containers []*instance
	// logs are the restart counts with a log file, per container name.
	logs map[string]map[int]bool
}

// remove removes an instance, and its log file unless keepLogs.
func (r *fakeRuntime) remove(id string, keepLogs bool) {
	for i, in := range r.containers {
		if in.c.ID != id {
			continue
		}
		if !keepLogs && r.logs[in.c.Name] != nil {
			delete(r.logs[in.c.Name], in.c.RestartCount)
		}
		r.containers = append(r.containers[:i], r.containers[i+1:]...)
		return
	}
}

// logMax is, per container name, the highest restart count with a log
// file.
func (r *fakeRuntime) logMax() map[string]int {
	out := map[string]int{}
	for name, counts := range r.logs {
		for n := range counts {
			if cur, ok := out[name]; !ok || n > cur {
				out[name] = n
			}
		}
	}
	return out
}

// instance is one container instance and what its process will do.
type instance struct {
	c   runtimestate.Container
	run Run
	// exitAt is when the process will end (zero: not scheduled), with
	// exitCode; gen invalidates exits scheduled before a change.
	exitAt   time.Time
	exitCode int32
	gen      int
}

func exitReason(code int32) string {
	if code == 0 {
		return "Completed"
	}
	return "Error"
}

func hashOf(c *v1.Container) uint64 { return containerhash.Of(c) }

func equalStatus(a, b v1.PodStatus) bool { return statusEqual(&a, &b) }

func (r *fakeRuntime) find(id string) *instance {
	for _, in := range r.containers {
		if in.c.ID == id {
			return in
		}
	}
	return nil
}

// snapshot is what the runtime reports at now, newest first.
func (r *fakeRuntime) snapshot(now time.Time) *runtimestate.Pod {
	p := &runtimestate.Pod{UID: r.pod.UID, Name: r.pod.Name, Namespace: r.pod.Namespace, Timestamp: now}
	p.Sandboxes = append([]runtimestate.Sandbox(nil), r.sandboxes...)
	sort.SliceStable(p.Sandboxes, func(i, j int) bool {
		a, b := p.Sandboxes[i], p.Sandboxes[j]
		if a.Attempt != b.Attempt {
			return a.Attempt > b.Attempt
		}
		return a.CreatedAt.After(b.CreatedAt)
	})
	for i := len(r.containers) - 1; i >= 0; i-- {
		p.Containers = append(p.Containers, r.containers[i].c)
	}
	return p
}

// runs maps each instance ID to its behaviour.
func (r *fakeRuntime) runs() map[string]Run {
	out := make(map[string]Run, len(r.containers))
	for _, in := range r.containers {
		out[in.c.ID] = in.run
	}
	return out
}

// running reports whether any container process is alive.
func (r *fakeRuntime) running() bool {
	for _, in := range r.containers {
		if in.c.State == runtimestate.Running {
			return true
		}
	}
	return false
}

// statusEqual reports whether two stored statuses are the same, as the
// status manager's comparison does (equality.Semantic), field by field on
// the common fields and through equality.Semantic on the rare ones.
func statusEqual(a, b *v1.PodStatus) bool {
	if a.Phase != b.Phase || a.Reason != b.Reason || a.Message != b.Message || a.NominatedNodeName != b.NominatedNodeName ||
		a.HostIP != b.HostIP || a.PodIP != b.PodIP || a.QOSClass != b.QOSClass || a.ObservedGeneration != b.ObservedGeneration ||
		a.Resize != b.Resize || !timePtrEqual(a.StartTime, b.StartTime) || len(a.Conditions) != len(b.Conditions) ||
		len(a.HostIPs) != len(b.HostIPs) || len(a.PodIPs) != len(b.PodIPs) {
		return false
	}
	for i := range a.Conditions {
		x, y := &a.Conditions[i], &b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			x.ObservedGeneration != y.ObservedGeneration || !x.LastProbeTime.Equal(&y.LastProbeTime) || !x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	for i := range a.HostIPs {
		if a.HostIPs[i] != b.HostIPs[i] {
			return false
		}
	}
	for i := range a.PodIPs {
		if a.PodIPs[i] != b.PodIPs[i] {
			return false
		}
	}
	if !containerStatusesEqual(a.InitContainerStatuses, b.InitContainerStatuses) ||
		!containerStatusesEqual(a.ContainerStatuses, b.ContainerStatuses) ||
		!containerStatusesEqual(a.EphemeralContainerStatuses, b.EphemeralContainerStatuses) {
		return false
	}
	if a.Resources != nil || b.Resources != nil || len(a.ResourceClaimStatuses) > 0 || len(b.ResourceClaimStatuses) > 0 ||
		a.ExtendedResourceClaimStatus != nil || b.ExtendedResourceClaimStatus != nil || len(a.AllocatedResources) > 0 || len(b.AllocatedResources) > 0 ||
		len(a.NodeAllocatableResourceClaimStatuses) > 0 || len(b.NodeAllocatableResourceClaimStatuses) > 0 || len(a.VolumeHealth) > 0 || len(b.VolumeHealth) > 0 {
		return equality.Semantic.DeepEqual(a.Resources, b.Resources) &&
			equality.Semantic.DeepEqual(a.NodeAllocatableResourceClaimStatuses, b.NodeAllocatableResourceClaimStatuses) &&
			equality.Semantic.DeepEqual(a.VolumeHealth, b.VolumeHealth) &&
			equality.Semantic.DeepEqual(a.ResourceClaimStatuses, b.ResourceClaimStatuses) &&
			equality.Semantic.DeepEqual(a.ExtendedResourceClaimStatus, b.ExtendedResourceClaimStatus) &&
			equality.Semantic.DeepEqual(a.AllocatedResources, b.AllocatedResources)
	}
	return true
}

func timePtrEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

func containerStatusesEqual(a, b []v1.ContainerStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Name != y.Name || x.Ready != y.Ready || x.RestartCount != y.RestartCount || x.Image != y.Image ||
			x.ImageID != y.ImageID || x.ContainerID != y.ContainerID || !boolPtrEqual(x.Started, y.Started) ||
			!stateEqual(&x.State, &y.State) || !stateEqual(&x.LastTerminationState, &y.LastTerminationState) {
			return false
		}
		if x.Resources != nil || y.Resources != nil || len(x.AllocatedResources) > 0 || len(y.AllocatedResources) > 0 ||
			len(x.VolumeMounts) > 0 || len(y.VolumeMounts) > 0 || x.User != nil || y.User != nil ||
			len(x.AllocatedResourcesStatus) > 0 || len(y.AllocatedResourcesStatus) > 0 || x.StopSignal != nil || y.StopSignal != nil {
			if !equality.Semantic.DeepEqual(x, y) {
				return false
			}
		}
	}
	return true
}

func boolPtrEqual(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func stateEqual(a, b *v1.ContainerState) bool {
	switch {
	case (a.Waiting == nil) != (b.Waiting == nil), (a.Running == nil) != (b.Running == nil), (a.Terminated == nil) != (b.Terminated == nil):
		return false
	}
	if a.Waiting != nil && *a.Waiting != *b.Waiting {
		return false
	}
	if a.Running != nil && !a.Running.StartedAt.Equal(&b.Running.StartedAt) {
		return false
	}
	if x, y := a.Terminated, b.Terminated; x != nil {
		if x.ExitCode != y.ExitCode || x.Signal != y.Signal || x.Reason != y.Reason || x.Message != y.Message ||
			x.ContainerID != y.ContainerID || !x.StartedAt.Equal(&y.StartedAt) || !x.FinishedAt.Equal(&y.FinishedAt) {
			return false
		}
	}
	return true
}
