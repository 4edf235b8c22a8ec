package runtimestate_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/tooling/captured"
)

// statusView is FromStatus of observation o's status, on the pod the
// kubelet held then.
func statusView(f *captured.Fixture, o captured.Observation) (*v1.Pod, *runtimestate.Pod) {
	pod := f.Pod.DeepCopy()
	if o.Pod != nil {
		pod = o.Pod.DeepCopy()
	}
	pod.Status = *o.Status.DeepCopy()
	st, _ := runtimestate.FromStatus(pod)
	return pod, st
}

// TestFromStatusCaptured reads the runtime view off every status of every
// captured fixture (testdata/captured: a real kubelet v1.37.2 and
// containerd) and compares it with the runtime state recorded at the same
// moment, wherever the status carries the information:
//
//   - every instance the view holds is one the runtime reported (same ID)
//     with the same name, restart count, image, image ref and start time
//     (the status's whole second), and, when both show it exited, the same
//     exit code, reason, message and finish time; a running instance is
//     always one the runtime holds (an exited one may have been removed by
//     the runtime already);
//   - a container the status shows waiting with no restart and no last
//     termination has no instance in the view, nor one in the runtime that
//     ran;
//   - the sandbox is ready exactly when the runtime's newest one is, and a
//     ready sandbox has the runtime's IP (unless the status shows no IP,
//     and the view says it assumed one).
//
// Where the status says otherwise than the runtime, the status must be
// behind: a later status of the same fixture agrees with the runtime, within
// 3 s (the kubelet has not synced since the runtime changed), plus the time
// an exec postStart hook ran in that window (postStartHookTime). Every
// fixture is compared.
func TestFromStatusCaptured(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "captured", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in ../testdata/captured (%v)", err)
	}
	sort.Strings(paths)
	const maxLag = 3 * time.Second
	sec := func(x time.Time) time.Time { return x.Truncate(time.Second) }
	total := map[string]int{}
	for _, p := range paths {
		f, err := captured.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		compared := 0
		// catchesUp reports whether a status after observation i, within
		// maxLag, agrees (ok) with the runtime of observation i.
		catchesUp := func(i int, ok func(pod *v1.Pod, st *runtimestate.Pod) bool) bool {
			lag := maxLag + postStartHookTime(f, f.Observations[i].Time, maxLag)
			for j := i + 1; j < len(f.Observations) && f.Observations[j].Time.Sub(f.Observations[i].Time) <= lag; j++ {
				if f.Observations[j].Status == nil {
					continue
				}
				if ok(statusView(f, f.Observations[j])) {
					return true
				}
			}
			return false
		}
		for i, o := range f.Observations {
			if o.Status == nil || o.Runtime == nil {
				continue
			}
			pod, st := statusView(f, o)
			at := fmt.Sprintf("%s step %d", f.Scenario, i)
			for _, c := range st.Containers {
				var real *runtimestate.Container
				for j := range o.Runtime.Containers {
					if o.Runtime.Containers[j].ID == c.ID {
						real = &o.Runtime.Containers[j]
					}
				}
				if real == nil {
					if c.State != runtimestate.Exited {
						t.Errorf("%s: %s instance %s is %s in the status, and the runtime has no such instance", at, c.Name, c.ID, c.State)
					}
					total["exited instances the runtime had removed"]++
					continue
				}
				compared++
				total["instances compared"]++
				var diffs []string
				check := func(field string, same bool, view, rt any) {
					if !same {
						diffs = append(diffs, fmt.Sprintf("%s %v (runtime %v)", field, view, rt))
					}
				}
				check("name", real.Name == c.Name, c.Name, real.Name)
				check("restartCount", real.RestartCount == c.RestartCount, c.RestartCount, real.RestartCount)
				check("image", real.Image == c.Image, c.Image, real.Image)
				check("imageRef", real.ImageRef == c.ImageRef, c.ImageRef, real.ImageRef)
				check("startedAt", sec(real.StartedAt).Equal(c.StartedAt), c.StartedAt, real.StartedAt)
				if c.State == runtimestate.Exited {
					check("state", real.State == runtimestate.Exited, c.State, real.State)
					check("exitCode", real.ExitCode == c.ExitCode, c.ExitCode, real.ExitCode)
					check("reason", real.Reason == c.Reason, c.Reason, real.Reason)
					check("message", real.Message == c.Message, c.Message, real.Message)
					check("finishedAt", sec(real.FinishedAt).Equal(c.FinishedAt), c.FinishedAt, real.FinishedAt)
				}
				if len(diffs) > 0 {
					t.Errorf("%s: %s instance %s read from the status: %s", at, c.Name, c.ID, strings.Join(diffs, "; "))
				}
				if c.State == runtimestate.Running && real.State != runtimestate.Running {
					total["running in a status behind the runtime"]++
					id := c.ID
					if !catchesUp(i, func(_ *v1.Pod, later *runtimestate.Pod) bool {
						for _, l := range later.Containers {
							if l.ID == id && l.State == real.State && l.ExitCode == real.ExitCode {
								return true
							}
						}
						return false
					}) {
						t.Errorf("%s: %s instance %s runs in the status, is %s in the runtime, and no status within %s says so", at, c.Name, id, real.State, maxLag)
					}
				}
			}

			// A container the status shows never started (waiting, no
			// restart, no last termination) has no instance that ran.
			for _, l := range [][]v1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses, pod.Status.EphemeralContainerStatuses} {
				for _, cs := range l {
					if cs.State.Waiting == nil || cs.RestartCount != 0 || cs.LastTerminationState.Terminated != nil {
						continue
					}
					compared++
					total["never-started containers compared"]++
					if st.Newest(cs.Name) != nil {
						t.Errorf("%s: %s waits and never ran, and the view has an instance of it", at, cs.Name)
					}
					ran := func(rt *runtimestate.Pod) bool {
						for _, c := range rt.Containers {
							if c.Name == cs.Name && (c.State == runtimestate.Running || c.State == runtimestate.Exited) {
								return true
							}
						}
						return false
					}
					if ran(o.Runtime) {
						total["never-started in a status behind the runtime"]++
						if !catchesUp(i, func(_ *v1.Pod, later *runtimestate.Pod) bool { return later.Newest(cs.Name) != nil }) {
							t.Errorf("%s: %s never ran by the status; the runtime has an instance that ran, and no status within %s shows it", at, cs.Name, maxLag)
						}
					}
				}
			}

			hasCond := false
			for _, c := range pod.Status.Conditions {
				hasCond = hasCond || c.Type == v1.PodReadyToStartContainers
			}
			if !hasCond || len(st.Sandboxes) == 0 {
				continue
			}
			total["sandboxes compared"]++
			sb, rs := st.Sandboxes[0], o.Runtime.LatestSandbox()
			agrees := func(sb runtimestate.Sandbox, assumedIP bool) bool {
				return rs != nil && sb.Ready == rs.Ready && (!sb.Ready || assumedIP || sb.IP == rs.IP)
			}
			noIP := pod.Status.PodIP == "" && len(pod.Status.PodIPs) == 0
			if agrees(sb, noIP) {
				continue
			}
			total["sandboxes in a status behind the runtime"]++
			if !catchesUp(i, func(later *v1.Pod, lst *runtimestate.Pod) bool {
				return len(lst.Sandboxes) > 0 && agrees(lst.Sandboxes[0], later.Status.PodIP == "" && len(later.Status.PodIPs) == 0)
			}) {
				t.Errorf("%s: sandbox ready %t IP %q read from the status; the runtime's newest sandbox %+v, and no status within %s agrees", at, sb.Ready, sb.IP, rs, maxLag)
			}
		}
		if compared == 0 {
			t.Errorf("%s: no instance of a status compared with the runtime", f.Scenario)
		}
	}
	t.Logf("%d fixtures: %v", len(paths), total)
}

// TestFromStatusNil: a nil pod is no state and no assumption.
func TestFromStatusNil(t *testing.T) {
	if st, a := runtimestate.FromStatus(nil); st != nil || a != nil {
		t.Errorf("FromStatus(nil) = %+v, %v", st, a)
	}
}

// postStartHookTime is how long exec postStart hooks (the kubelet's
// ExecSync of a container's lifecycle.postStart.exec command) ran within
// [from, from+window]: the kubelet runs the hook inside the sync's
// startContainer and waits for it, and no sync of the pod, so no new
// status, comes meanwhile (poststart-slow: the status showed both
// containers waiting for 3.2 s while the runtime ran the first one and its
// 3 s hook).
func postStartHookTime(f *captured.Fixture, from time.Time, window time.Duration) time.Duration {
	hooks := map[string][]string{}
	for _, c := range f.Pod.Spec.Containers {
		if c.Lifecycle != nil && c.Lifecycle.PostStart != nil && c.Lifecycle.PostStart.Exec != nil {
			hooks[c.Name] = c.Lifecycle.PostStart.Exec.Command
		}
	}
	if len(hooks) == 0 {
		return 0
	}
	names := map[string]string{}
	for _, c := range f.CRICalls {
		if c.Method == "CreateContainer" {
			names[c.Response] = c.Name
		}
	}
	to := from.Add(window)
	var total time.Duration
	for _, c := range f.CRICalls {
		cmd, ok := hooks[names[c.ID]]
		if c.Method != "ExecSync" || !ok || strings.Join(cmd, "\x00") != strings.Join(c.Cmd, "\x00") {
			continue
		}
		if c.Time.Before(to) && c.Done.After(from) {
			total += c.Done.Sub(c.Time)
		}
	}
	return total
}
