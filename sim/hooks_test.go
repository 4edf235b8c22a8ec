package sim_test

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// Lifecycle hooks as kubelet v1.37.2 runs them: startContainer
// (kuberuntime_container.go) runs the postStart hook right after
// StartContainer and waits for it; a failure kills the container (reason
// FailedPostStartHook) and is a start error PostStartHookError. Exec hooks
// are ExecSync calls (lifecycle/handlers.go, RunInContainer with timeout 0).

func execHook(cmd ...string) *v1.LifecycleHandler {
	return &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: cmd}}
}

// calls returns the CRI calls of a timeline with the given method and
// container (any container when name is "").
func calls(tl *sim.Timeline, method, name string) []sim.Call {
	var out []sim.Call
	for _, e := range tl.Entries {
		if e.Kind == sim.KindCRI && e.Call.Method == method && (name == "" || e.Call.Name == name) {
			out = append(out, *e.Call)
		}
	}
	return out
}

// A failing postStart hook: the ExecSync call runs for the hook's time and
// fails; the kubelet then stops the container at once (StopContainer with
// the pod's grace), the status shows the start error PostStartHookError,
// and the container restarts (restartPolicy Always) with restart count 1.
func TestPostStartFailureKillsAndRestarts(t *testing.T) {
	pod := apiPod("ps", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a",
		Lifecycle: &v1.Lifecycle{PostStart: execHook("sh", "-c", "exit 1")}}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{
		{PostStart: sec(2), PostStartFails: true},
		{}, // the second run's hook succeeds at once
	}}}}
	for seed := uint64(1); seed <= 4; seed++ {
		tl := run(t, sim.Config{Seed: seed, For: sec(120)}, sim.PodInput{Pod: pod, Script: script})
		execs := calls(tl, "ExecSync", "app")
		if len(execs) != 2 {
			t.Fatalf("seed %d: %d ExecSync calls for app, want 2 (one per instance)\n%s", seed, len(execs), tl.Calls())
		}
		first := execs[0]
		if first.Hook != "postStart" || !first.HookFailed || first.Done-first.At != 2*time.Second || first.ID != "ps-app-0" {
			t.Fatalf("seed %d: first ExecSync %+v; want the failed postStart hook of ps-app-0, 2s\n%s", seed, first, tl.Calls())
		}
		starts := calls(tl, "StartContainer", "app")
		if len(starts) < 2 || first.At != starts[0].Done {
			t.Fatalf("seed %d: the hook must start when StartContainer returns\n%s", seed, tl.Calls())
		}
		stops := calls(tl, "StopContainer", "app")
		if len(stops) == 0 || stops[0].ID != "ps-app-0" || stops[0].At != first.Done || stops[0].Timeout == nil || *stops[0].Timeout != 30 {
			t.Fatalf("seed %d: want StopContainer ps-app-0 timeout 30s when the hook fails (%s)\n%s", seed, first.Done, tl.Calls())
		}
		creates := calls(tl, "CreateContainer", "app")
		if len(creates) != 2 || creates[1].RestartCount != 1 || creates[1].At < stops[0].Done {
			t.Fatalf("seed %d: want the container created again (restart 1) after the kill\n%s", seed, tl.Calls())
		}
		if execs[1].HookFailed || execs[1].Done != execs[1].At {
			t.Fatalf("seed %d: the second run's hook must succeed at once: %+v", seed, execs[1])
		}
		e, ok := tl.First("ps", func(e sim.Entry) bool {
			if e.Kind != sim.KindStatus {
				return false
			}
			for _, cs := range e.Status.Status.ContainerStatuses {
				if cs.State.Waiting != nil && cs.State.Waiting.Reason == "PostStartHookError" {
					return true
				}
			}
			return false
		})
		if !ok || e.Status.Column != "PostStartHookError" || !strings.Contains(e.Status.Status.ContainerStatuses[0].State.Waiting.Message, "Exec lifecycle hook ([sh -c exit 1])") {
			t.Fatalf("seed %d: no status with app waiting for PostStartHookError (kubectl STATUS PostStartHookError)\n%s", seed, tl.Events())
		}
		if _, ok := tl.First("ps", func(e sim.Entry) bool {
			return e.Kind == sim.KindSync && strings.Contains(e.Message, "reason FailedPostStartHook") && strings.Contains(e.Message, "event FailedPostStartHook")
		}); !ok {
			t.Fatalf("seed %d: no sync message naming the kill reason and event FailedPostStartHook\n%s", seed, tl.Events())
		}
		_, last := tl.LastStatus("ps")
		if last == nil || last.ContainerStatuses[0].RestartCount != 1 || last.ContainerStatuses[0].State.Running == nil {
			t.Fatalf("seed %d: last status %+v; want app running after 1 restart", seed, last)
		}
	}
}

// A process that exits while its exec postStart hook runs ends the hook
// (the command dies with the container): the hook fails at the exit.
func TestPostStartProcessExitsDuringHook(t *testing.T) {
	pod := apiPod("pe", v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "a",
		Lifecycle: &v1.Lifecycle{PostStart: execHook("wait")}}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{PostStart: sec(10), ExitAfter: sec(3), ExitCode: 2}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script})
	execs := calls(tl, "ExecSync", "app")
	if len(execs) != 1 || !execs[0].HookFailed || execs[0].Done-execs[0].At != 3*time.Second {
		t.Fatalf("want one failed ExecSync of 3s (the process exits at 3s)\n%s", tl.Calls())
	}
	stops := calls(tl, "StopContainer", "app")
	if len(stops) != 1 || stops[0].Done != stops[0].At {
		t.Fatalf("want StopContainer of the exited container to return at once\n%s", tl.Calls())
	}
	_, last := tl.LastStatus("pe")
	if last == nil || last.Phase != v1.PodFailed || last.ContainerStatuses[0].State.Terminated == nil || last.ContainerStatuses[0].State.Terminated.ExitCode != 2 {
		t.Fatalf("last status %+v; want Failed, app terminated with its own exit code 2", last)
	}
}

// A process that exits at the very instant its postStart hook ends does
// not end the hook: the exec command (or the request) has completed, so
// the hook succeeds and the kubelet kills nothing (no FailedPostStartHook,
// no StopContainer); only an exit before the hook's end fails it.
func TestPostStartProcessExitsAsHookEnds(t *testing.T) {
	for _, hook := range []*v1.LifecycleHandler{execHook("wait"), {HTTPGet: &v1.HTTPGetAction{Path: "/warm"}}} {
		pod := apiPod("pt", v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "a",
			Lifecycle: &v1.Lifecycle{PostStart: hook}}}})
		script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{PostStart: sec(3), ExitAfter: sec(3), ExitCode: 2}}}}}
		tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: pod, Script: script})
		if execs := calls(tl, "ExecSync", "app"); hook.Exec != nil && (len(execs) != 1 || execs[0].HookFailed || execs[0].Done-execs[0].At != 3*time.Second) {
			t.Errorf("exec: want one ExecSync of 3s that succeeds\n%s", tl.Calls())
		}
		if stops := calls(tl, "StopContainer", "app"); len(stops) != 0 {
			t.Errorf("exec=%v: the hook did not fail, want no StopContainer of app\n%s", hook.Exec != nil, tl.Calls())
		}
		if e, ok := tl.First("pt", func(e sim.Entry) bool { return strings.Contains(e.Message, "FailedPostStartHook") }); ok {
			t.Errorf("exec=%v: %q: the hook did not fail", hook.Exec != nil, e.Message)
		}
	}
}

// A hook's ExecSync line gives the hook's own time (Done - At), wherever
// in the sync it started: a postStart hook starts when StartContainer
// returns, not at the sync's start.
func TestExecSyncHookLine(t *testing.T) {
	c := sim.Call{Method: "ExecSync", Name: "app", ID: "a1", Hook: "postStart", At: 2 * time.Second, Done: 5 * time.Second}
	if got, want := c.String(), "ExecSync app a1 (postStart hook, 3s)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	c.HookFailed = true
	if got, want := c.String(), "ExecSync app a1 (postStart hook, 3s, failed)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// A long postStart hook blocks the sync: the next container of the same
// sync is created only when the hook returns, whether the hook is exec
// (an ExecSync call), httpGet (no CRI call) or sleep (the spec's seconds,
// no CRI call); a sidecar's hook holds back the regular containers too.
func TestPostStartDelaysNextContainer(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	cases := []struct {
		name   string
		hook   *v1.LifecycleHandler
		script sim.Duration
		sleep  bool
		wait   time.Duration
		execs  int
	}{
		{"exec", execHook("warm-up"), sec(5), false, 5 * time.Second, 1},
		{"httpGet", &v1.LifecycleHandler{HTTPGet: &v1.HTTPGetAction{Path: "/warm"}}, sec(5), false, 5 * time.Second, 0},
		{"sleep", &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 7}}, 0, true, 7 * time.Second, 0},
	}
	for _, tc := range cases {
		for _, sidecar := range []bool{false, true} {
			first := v1.Container{Name: "first", Image: "a", Lifecycle: &v1.Lifecycle{PostStart: tc.hook}}
			spec := v1.PodSpec{Containers: []v1.Container{{Name: "next", Image: "b"}}}
			if sidecar {
				first.RestartPolicy = &always
				spec.InitContainers = []v1.Container{first}
			} else {
				spec.Containers = append([]v1.Container{first}, spec.Containers...)
			}
			in := sim.PodInput{Pod: apiPod("slow", spec)}
			if !tc.sleep {
				in.Script = sim.Script{Containers: map[string]sim.Behaviour{"first": {Runs: []sim.Run{{PostStart: tc.script}}}}}
			}
			tl := run(t, sim.Config{Seed: 3, For: sec(60)}, in)
			started := calls(tl, "StartContainer", "first")
			next := calls(tl, "CreateContainer", "next")
			if len(started) != 1 || len(next) != 1 {
				t.Fatalf("%s sidecar=%v: want one start of each\n%s", tc.name, sidecar, tl.Calls())
			}
			// A regular container is created in the same sync, as the
			// hook returns; after a sidecar the next sync (the sidecar now
			// running in the cache) creates it, just after the hook.
			got := next[0].At - started[0].Done
			if (!sidecar && got != tc.wait) || (sidecar && (got < tc.wait || got > tc.wait+10*time.Millisecond)) {
				t.Errorf("%s sidecar=%v: next created %s after first started; want %s (the hook)\n%s", tc.name, sidecar, got, tc.wait, tl.Calls())
			}
			if n := len(calls(tl, "ExecSync", "first")); n != tc.execs {
				t.Errorf("%s sidecar=%v: %d ExecSync calls, want %d", tc.name, sidecar, n, tc.execs)
			}
		}
	}
}

// Exec preStop hooks are ExecSync calls too: on a deletion (the kill
// plan) and on a liveness kill in SyncPod; they start when the kill starts
// and last as long as the hook, or until the container exits.
func TestPreStopExecSync(t *testing.T) {
	grace := int64(10)
	pod := apiPod("stop", v1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{
		{Name: "app", Image: "a", Lifecycle: &v1.Lifecycle{PreStop: execHook("drain")}},
		{Name: "web", Image: "w", Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{HTTPGet: &v1.HTTPGetAction{Path: "/stop"}}}},
		{Name: "nap", Image: "n", Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 1}}}},
	}})
	del := int64(-1)
	script := sim.Script{Containers: map[string]sim.Behaviour{
		"app": {Runs: []sim.Run{{PreStop: sec(3)}}},
		"web": {Runs: []sim.Run{{PreStop: sec(2)}}},
	}}
	tl := run(t, sim.Config{Seed: 2, For: sec(60)}, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(20), Delete: &del}}})
	execs := calls(tl, "ExecSync", "")
	if len(execs) != 1 || execs[0].Name != "app" || execs[0].Hook != "preStop" || execs[0].Done-execs[0].At != 3*time.Second {
		t.Fatalf("want one ExecSync (app's exec preStop, 3s); httpGet and sleep hooks are no CRI call\n%s", tl.Calls())
	}
	stop := calls(tl, "StopContainer", "app")
	if len(stop) != 1 || stop[0].At != execs[0].Done {
		t.Fatalf("app's StopContainer must follow its hook\n%s", tl.Calls())
	}

	// A liveness kill in SyncPod (stopContainer) lists the hook as well;
	// a hook longer than the grace is cut by the container's exit.
	one := int32(1)
	live := apiPod("live", v1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{{Name: "app", Image: "a",
		Lifecycle:     &v1.Lifecycle{PreStop: execHook("drain")},
		LivenessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"ok"}}}, PeriodSeconds: 5, FailureThreshold: one}}}})
	ls := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{PreStop: sec(30), IgnoreSIGTERM: true, Liveness: []sim.ProbeStep{{At: sec(10), Result: "Failure"}}}, {}}}}}
	tl = run(t, sim.Config{Seed: 2, For: sec(60)}, sim.PodInput{Pod: live, Script: ls})
	execs = calls(tl, "ExecSync", "app")
	stops := calls(tl, "StopContainer", "app")
	if len(execs) == 0 || len(stops) == 0 || execs[0].Hook != "preStop" || execs[0].ID != stops[0].ID {
		t.Fatalf("want the liveness kill's preStop ExecSync\n%s", tl.Calls())
	}
	// Grace 10 s: the kubelet waits 10 s for the hook, then StopContainer
	// with the 2 s minimum; the process ignores SIGTERM and is killed at
	// 12 s, which ends the hook's command.
	if stops[0].At-execs[0].At != 10*time.Second || execs[0].Done != stops[0].Ended() || stops[0].Ended()-execs[0].At != 12*time.Second {
		t.Fatalf("hook %+v, stop %+v: want the hook waited 10 s and cut at the exit 12 s after it started\n%s", execs[0], stops[0], tl.Calls())
	}
}

// A script that times a postStart hook the container does not have, or a
// sleep hook, is an error.
func TestPostStartScriptChecked(t *testing.T) {
	sleep := apiPod("s", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a",
		Lifecycle: &v1.Lifecycle{PostStart: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 1}}}}}})
	none := apiPod("n", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
	for _, tc := range []struct {
		pod  *v1.Pod
		run  sim.Run
		want string
	}{
		{none, sim.Run{PostStart: sec(1)}, "has no postStart hook"},
		{none, sim.Run{PostStartFails: true}, "postStartFails: container app has no postStart hook"},
		{sleep, sim.Run{PostStartFails: true}, "is a sleep"},
		{none, sim.Run{PostStart: -sec(1)}, "negative duration"},
	} {
		_, err := sim.Simulate(sim.Config{}, []sim.PodInput{{Pod: tc.pod, Script: sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{tc.run}}}}}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one with %q", tc.run, err, tc.want)
		}
	}
}

// ---- in-place resize ----

func resources(cpuReq, cpuLim, memReq, memLim string) v1.ResourceRequirements {
	return v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpuReq), v1.ResourceMemory: resource.MustParse(memReq)},
		Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpuLim), v1.ResourceMemory: resource.MustParse(memLim)},
	}
}

func resizePod(policy []v1.ContainerResizePolicy) *v1.Pod {
	return apiPod("rz", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a",
		Resources: resources("250m", "500m", "128Mi", "128Mi"), ResizePolicy: policy}}})
}

// A resize names the container it resizes: beside an init container that
// is not a sidecar (which cannot be resized) and a sidecar, a resize of the
// regular container is accepted and resizes that container alone.
func TestResizeBesideInitContainers(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	pod := resizePod(nil)
	pod.Spec.InitContainers = []v1.Container{{Name: "setup", Image: "a"},
		{Name: "side", Image: "a", RestartPolicy: &always, Resources: resources("100m", "200m", "64Mi", "64Mi")}}
	r := map[string]v1.ResourceRequirements{"app": {Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m")},
		Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}
	tl, err := sim.Simulate(sim.Config{Seed: 1, For: sec(120)}, []sim.PodInput{{Pod: pod, Actions: []sim.Action{{At: sec(30), Resize: r}},
		Script: sim.Script{Containers: map[string]sim.Behaviour{"setup": {Runs: []sim.Run{{ExitAfter: sec(1)}}}}}}})
	if err != nil {
		t.Fatalf("the resize of app was refused: %v", err)
	}
	if ups := calls(tl, "UpdateContainerResources", "app"); len(ups) != 1 || ups[0].Resources == nil || ups[0].Resources.CPUShares != 512 {
		t.Fatalf("UpdateContainerResources of app: %+v, want one with 512 shares\n%s", ups, tl.Calls())
	}
	if ups := calls(tl, "UpdateContainerResources", "side"); len(ups) != 0 {
		t.Fatalf("the sidecar was resized: %+v\n%s", ups, tl.Calls())
	}
}

// A container created without requests or limits still runs with the
// kubelet's minimum cpu shares (2), and the runtime reports them (CRI
// ContainerStatus; the kubelet reads 2 shares as a 2m cpu request). A
// resize that gives it a cpu request (the pod is Burstable through its
// other container, so its QoS class stays) is allocated first: the status
// of that sync shows the request the runtime reports, 2m, beside the
// allocated 50m, and the next the resized 50m, for a pod added and for one
// adopted by a new kubelet alike.
func TestResizeGivesRequestsToContainerWithout(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	spec := v1.PodSpec{Containers: []v1.Container{
		{Name: "a", Image: "busybox", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}}},
		{Name: "b", Image: "busybox"}}}
	r := map[string]v1.ResourceRequirements{"b": {Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("50m")}}}
	for _, adopt := range []bool{false, true} {
		n := sim.NewNode(sim.Config{Seed: 1, Start: start, KubeletUptime: sim.Duration(time.Nanosecond)})
		pod := apiPod("rz", spec)
		var err error
		if adopt {
			pod.Status = adoptedStatus(start, "10.1.2.3", "a", "b")
			err = n.AdoptPod(start, pod, sim.Script{})
		} else {
			err = n.AddPod(start, pod, sim.Script{})
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Do(start.Add(30*time.Second), "default", "rz", sim.Action{Resize: r}); err != nil {
			t.Fatal(err)
		}
		rep := n.Advance(start.Add(time.Minute))
		var got []string
		for _, e := range rep.Entries {
			if e.Kind != sim.KindAPI || e.API != sim.APIStatus || e.Status == nil {
				continue
			}
			for _, cs := range e.Status.Status.ContainerStatuses {
				if cs.Name == "b" && cs.AllocatedResources.Cpu().MilliValue() == 50 && cs.Resources != nil {
					got = append(got, cs.Resources.Requests.Cpu().String())
				}
			}
		}
		if len(got) < 2 || got[0] != "2m" || got[len(got)-1] != "50m" {
			t.Errorf("adopted %v: b's cpu request in the statuses after the resize %v, want 2m (the runtime's) then 50m\n%s",
				adopt, got, (&sim.Timeline{Entries: rep.Entries}).Events())
		}
	}
}

// A cpu resize is done in place: one UpdateContainerResources call with
// the new shares and quota (and the memory limit kept), no restart; the
// actuated record follows, so later syncs resize nothing.
func TestResizeCPUInPlace(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		r := map[string]v1.ResourceRequirements{"app": {
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m")},
			Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}
		tl := run(t, sim.Config{Seed: seed, For: sec(300)}, sim.PodInput{Pod: resizePod(nil), Actions: []sim.Action{{At: sec(30), Resize: r}}})
		ups := calls(tl, "UpdateContainerResources", "app")
		if len(ups) != 1 {
			t.Fatalf("seed %d: %d UpdateContainerResources calls, want 1\n%s", seed, len(ups), tl.Calls())
		}
		want := sim.ContainerResources{CPUShares: 512, CPUQuota: 100000, CPUPeriod: 100000, MemoryLimitInBytes: 128 << 20}
		if ups[0].Resources == nil || *ups[0].Resources != want || ups[0].At < 30*time.Second || ups[0].At > 31*time.Second || ups[0].ID != "rz-app-0" {
			t.Fatalf("seed %d: %+v; want %+v on rz-app-0 right after 30s", seed, ups[0], want)
		}
		if n := len(calls(tl, "StopContainer", "")) + len(calls(tl, "CreateContainer", "")); n != 1 {
			t.Fatalf("seed %d: a cpu resize restarts nothing\n%s", seed, tl.Calls())
		}
	}
}

// A memory resize under resizePolicy RestartContainer restarts the
// container (kill "resize requires restart", then a new instance with the
// new limit); no UpdateContainerResources call; a cpu resize of the same
// container without a policy for cpu stays in place.
func TestResizeMemoryRestartContainer(t *testing.T) {
	policy := []v1.ContainerResizePolicy{{ResourceName: v1.ResourceMemory, RestartPolicy: v1.RestartContainer}}
	for seed := uint64(1); seed <= 4; seed++ {
		mem := map[string]v1.ResourceRequirements{"app": {
			Requests: v1.ResourceList{v1.ResourceMemory: resource.MustParse("256Mi")},
			Limits:   v1.ResourceList{v1.ResourceMemory: resource.MustParse("256Mi")}}}
		cpu := map[string]v1.ResourceRequirements{"app": {Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("300m")}}}
		tl := run(t, sim.Config{Seed: seed, For: sec(300)}, sim.PodInput{Pod: resizePod(policy),
			Actions: []sim.Action{{At: sec(30), Resize: mem}, {At: sec(150), Resize: cpu}}})
		stops := calls(tl, "StopContainer", "app")
		creates := calls(tl, "CreateContainer", "app")
		if len(stops) != 1 || stops[0].ID != "rz-app-0" || stops[0].At < 30*time.Second || stops[0].At > 31*time.Second {
			t.Fatalf("seed %d: want one StopContainer of rz-app-0 right after 30s\n%s", seed, tl.Calls())
		}
		if len(creates) != 2 || creates[1].RestartCount != 1 || creates[1].At < stops[0].Done {
			t.Fatalf("seed %d: want app created again (restart 1) after the stop\n%s", seed, tl.Calls())
		}
		ups := calls(tl, "UpdateContainerResources", "app")
		if len(ups) != 1 || ups[0].ID != "rz-app-1" || ups[0].At < 150*time.Second || ups[0].Resources.CPUShares != 307 || ups[0].Resources.MemoryLimitInBytes != 256<<20 {
			t.Fatalf("seed %d: want only the cpu resize at 150s in place on rz-app-1 (shares 307, memory 256Mi)\n%s", seed, tl.Calls())
		}
		if _, ok := tl.First("rz", func(e sim.Entry) bool {
			return e.Kind == sim.KindSync && strings.Contains(e.Message, "resize requires restart")
		}); !ok {
			t.Fatalf("seed %d: no decision naming the restart for the resize\n%s", seed, tl.Events())
		}
	}
}

// A resize the API server rejects is an error of Simulate.
func TestResizeChecked(t *testing.T) {
	for _, tc := range []struct {
		r    map[string]v1.ResourceRequirements
		want string
	}{
		{map[string]v1.ResourceRequirements{"ap": {Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}, `"ap" is not a container`},
		{map[string]v1.ResourceRequirements{"app": {Limits: v1.ResourceList{v1.ResourceEphemeralStorage: resource.MustParse("1Gi")}}}, "only cpu and memory"},
		{map[string]v1.ResourceRequirements{"app": {Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m")},
			Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m"), v1.ResourceMemory: resource.MustParse("128Mi")}}}, "QoS class would change"},
		{map[string]v1.ResourceRequirements{"app": {Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")}}}, "would reject"},
	} {
		_, err := sim.Simulate(sim.Config{}, []sim.PodInput{{Pod: resizePod(nil), Actions: []sim.Action{{At: sec(5), Resize: tc.r}}}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one with %q", tc.r, err, tc.want)
		}
	}
}

// A resize of cpu and memory of one container without a resizePolicy is
// two UpdateContainerResources calls, memory first (with the current cpu),
// then cpu (with the new memory), as doPodResizeAction orders them.
func TestResizeMemoryThenCPU(t *testing.T) {
	r := map[string]v1.ResourceRequirements{"app": resources("500m", "1", "256Mi", "256Mi")}
	tl := run(t, sim.Config{Seed: 1, For: sec(60)}, sim.PodInput{Pod: resizePod(nil), Actions: []sim.Action{{At: sec(30), Resize: r}}})
	ups := calls(tl, "UpdateContainerResources", "app")
	want := []sim.ContainerResources{
		{CPUShares: 256, CPUQuota: 50000, CPUPeriod: 100000, MemoryLimitInBytes: 256 << 20},
		{CPUShares: 512, CPUQuota: 100000, CPUPeriod: 100000, MemoryLimitInBytes: 256 << 20},
	}
	if len(ups) != len(want) {
		t.Fatalf("%d UpdateContainerResources calls, want 2\n%s", len(ups), tl.Calls())
	}
	for i, w := range want {
		if *ups[i].Resources != w {
			t.Errorf("call %d sets %+v, want %+v", i, *ups[i].Resources, w)
		}
	}
}

// A failed exec postStart hook's message names the pod as the kubelet's
// format.Pod does, name_namespace(uid) (lifecycle/handlers.go:83 in
// v1.37.2): the pod's own UID when it has one, else the one the simulator
// gives a pod without (uid-<namespace>-<name>).
func TestPostStartFailureNamesThePodUID(t *testing.T) {
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{PostStart: sec(1), PostStartFails: true}, {}}}}}
	for _, c := range []struct{ uid, want string }{
		{"", `in Pod "ps_default(uid-default-ps)" failed`},
		{"6f1d3c2a-0b7e-4f4e-9d55-2b8c1e0a9f10", `in Pod "ps_default(6f1d3c2a-0b7e-4f4e-9d55-2b8c1e0a9f10)" failed`},
	} {
		pod := apiPod("ps", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a",
			Lifecycle: &v1.Lifecycle{PostStart: execHook("sh", "-c", "exit 1")}}}})
		pod.UID = types.UID(c.uid)
		tl := run(t, sim.Config{Seed: 1, For: sec(30)}, sim.PodInput{Pod: pod, Script: script})
		var msg string
		for _, e := range tl.Entries {
			if e.Kind == sim.KindStatus && msg == "" {
				for _, cs := range e.Status.Status.ContainerStatuses {
					if w := cs.State.Waiting; w != nil && w.Reason == "PostStartHookError" {
						msg = w.Message
					}
				}
			}
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("uid %q: PostStartHookError message %q does not say %q", c.uid, msg, c.want)
		}
	}
}

// The preStop hook that runs is the running instance's: a container whose
// first run crashed and whose second run is deleted runs the second run's
// scripted preStop (4 s), not the first's (1 s), which the exited
// instance still in the runtime carries.
func TestPreStopOfTheRunningInstance(t *testing.T) {
	pod := apiPod("again", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a", Lifecycle: &v1.Lifecycle{PreStop: execHook("drain")}}}})
	del := int64(-1)
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(5), ExitCode: 1, PreStop: sec(1)}, {PreStop: sec(4)}}}}}
	tl := run(t, sim.Config{Seed: 1, For: sec(90)}, sim.PodInput{Pod: pod, Script: script, Actions: []sim.Action{{At: sec(40), Delete: &del}}})
	execs := calls(tl, "ExecSync", "app")
	if len(execs) != 1 || execs[0].Hook != "preStop" || !strings.HasSuffix(execs[0].ID, "-1") || execs[0].Done-execs[0].At != 4*time.Second {
		t.Fatalf("want one preStop ExecSync of the second instance, 4s\n%s", tl.Calls())
	}
}
