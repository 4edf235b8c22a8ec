package sim

import (
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

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

func equalStatus(a, b v1.PodStatus) bool { return equality.Semantic.DeepEqual(a, b) }

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
