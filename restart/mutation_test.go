package restart

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// A refusal allocates its message and nothing else, whatever the lengths
// of the names in it: the message is sized exactly (a capacity short by a
// byte or two shows as a second allocation once the length crosses a
// size class of the allocator). The text is the kubelet's doBackOff
// message.
func TestDecideRefusalAllocatesOnlyItsMessage(t *testing.T) {
	cfg, _ := NewBackOffConfig(features.V1_37(), BackOffSettings{})
	c := &v1.Container{Name: "app", Image: "busybox"}
	finished := t0
	st := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "x", Name: "app", State: runtimestate.Exited, ExitCode: 1, FinishedAt: finished}}}
	entry := BackOffEntry{Delay: 20 * time.Second, LastUpdate: finished}
	now := finished.Add(time.Second)
	for n := 0; n <= 300; n++ {
		for _, part := range []int{0, 1, 2} { // which of name, namespace, uid grows
			pod := &v1.Pod{}
			pod.Name, pod.Namespace, pod.UID = "web", "default", "u1"
			grow := strings.Repeat("x", n)
			switch part {
			case 0:
				pod.Name = grow
			case 1:
				pod.Namespace = grow
			case 2:
				pod.UID = types.UID(grow)
			}
			d := cfg.Decide(pod, c, st, entry, now)
			want := fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)", entry.Delay, c.Name, pod.Name, pod.Namespace, pod.UID)
			if d.Start || d.Message != want {
				t.Fatalf("Decide = %+v, want a refusal with message %q", d, want)
			}
			if a := testing.AllocsPerRun(2, func() { cfg.Decide(pod, c, st, entry, now) }); a != 1 {
				t.Errorf("name %q namespace %q uid %q: a refusal allocates %v times, want 1", pod.Name, pod.Namespace, pod.UID, a)
			}
		}
	}
}

// The runtime still holds the pod's containers while it holds an instance
// named as any one init or regular container, at whatever index; instances
// of other names (or none) do not count (the kubelet's
// AllContainersRestartCleanedUp walks the init and regular containers and
// looks each up by name).
func TestAllContainersRestartCleanedUpEveryContainer(t *testing.T) {
	for inits := 0; inits <= 2; inits++ {
		for regular := 1; regular <= 3; regular++ {
			pod := &v1.Pod{}
			var all []string
			for i := range inits {
				name := fmt.Sprint("init-", i)
				pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Name: name})
				all = append(all, name)
			}
			for i := range regular {
				name := fmt.Sprint("app-", i)
				pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: name})
				all = append(all, name)
			}
			other := runtimestate.Container{ID: "o", Name: "not-in-spec", State: runtimestate.Exited}
			if !AllContainersRestartCleanedUp(pod, &runtimestate.Pod{}) || !AllContainersRestartCleanedUp(pod, &runtimestate.Pod{Containers: []runtimestate.Container{other}}) {
				t.Errorf("%d init, %d regular: an instance of no container of the pod counts as not cleaned up", inits, regular)
			}
			for _, name := range all {
				for _, state := range []runtimestate.State{runtimestate.Running, runtimestate.Exited} {
					st := &runtimestate.Pod{Containers: []runtimestate.Container{other, {ID: "c", Name: name, State: state}}}
					if AllContainersRestartCleanedUp(pod, st) {
						t.Errorf("%d init, %d regular: an %s instance of %s counts as cleaned up", inits, regular, state, name)
					}
				}
			}
		}
	}
}

// A CrashLoopBackOff message whose delay is not a positive duration is no
// record the kubelet writes (its delays start at the initial back-off), so
// the delay comes from restartCount instead; a positive one, however
// small, is taken as it is.
func TestEntryFromStatusNonPositiveMessageDelay(t *testing.T) {
	cfg, _ := NewBackOffConfig(features.V1_37(), BackOffSettings{})
	crash := func(delay string) *v1.ContainerStatus {
		return &v1.ContainerStatus{Name: "app", RestartCount: 3,
			State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
				Message: "back-off " + delay + " restarting failed container=app pod=p_ns(u)"}}}
	}
	for _, delay := range []string{"0s", "-10s", "0", "soon"} {
		if e, src := cfg.EntryFromStatus(crash(delay)); src != FromRestartCount || e.Delay != 40*time.Second {
			t.Errorf("message delay %q: %v from %q, want 40s (restartCount 3) from %q", delay, e.Delay, src, FromRestartCount)
		}
	}
	if e, src := cfg.EntryFromStatus(crash("1ns")); src != FromMessage || e.Delay != 1 {
		t.Errorf("message delay 1ns: %v from %q, want 1ns from the message", e.Delay, src)
	}
}
