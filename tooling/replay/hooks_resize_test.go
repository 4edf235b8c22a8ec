package replay

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// The simulator's ExecSync calls of exec hooks and UpdateContainerResources
// calls of in-place resizes, against the captures of a real kubelet
// v1.37.2.

// api-resize's app is the trap loop (exits 0 on SIGTERM when its current
// sleep ends), as its kubelet process ran it (trapLoopSlowStep).
func init() {
	scripts["api-resize"] = map[string]sim.Behaviour{"app": {Runs: []sim.Run{trapLoopSlowStep}}}
}

// TestReplayPreStopExecSync: in every captured scenario with an exec
// preStop hook, the simulated ExecSync calls of the hook are the real ones
// (the hook's command from the pod), in order, each starting and ending
// within tolCall of the real call, for at least one seed. (Exec probes are
// ExecSync calls too; the simulation does not list them.)
func TestReplayPreStopExecSync(t *testing.T) {
	tested := 0
	for _, f := range loadFixtures(t) {
		hooks := map[string]string{} // command -> container
		for _, c := range f.Pod.Spec.Containers {
			if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Exec != nil {
				hooks[strings.Join(c.Lifecycle.PreStop.Exec.Command, " ")] = c.Name
			}
		}
		if len(hooks) == 0 {
			continue
		}
		if _, skip := notSimulated[f.Scenario]; skip {
			continue
		}
		tested++
		t.Run(f.Scenario, func(t *testing.T) {
			in, zero := simInput(t, f)
			in.At = sim.Duration(kubeletAdd(t, f, zero))
			end := f.Observations[len(f.Observations)-1].Time.Sub(zero) + time.Second
			var real []sim.Call
			for _, c := range f.CRICalls {
				if name, ok := hooks[strings.Join(c.Cmd, " ")]; ok && c.Method == "ExecSync" && c.Time.Sub(zero) <= end {
					real = append(real, sim.Call{Name: name, At: c.Time.Sub(zero), Done: c.Done.Sub(zero)})
				}
			}
			if len(real) == 0 {
				t.Fatalf("the capture has no ExecSync of the preStop hook")
			}
			var firstErr string
			for seed := uint64(1); seed <= seeds; seed++ {
				tl, err := sim.Simulate(sim.Config{Seed: seed, For: sim.Duration(end), Kubelet: sim.Kubelet{BackOff: f.backOffSettings(t)}}, []sim.PodInput{in})
				if err != nil {
					t.Fatal(err)
				}
				var simulated []sim.Call
				for _, e := range tl.Entries {
					if e.Kind == sim.KindCRI && e.Call.Method == "ExecSync" && e.Call.Hook == "preStop" {
						simulated = append(simulated, *e.Call)
					}
				}
				problem := compareTimed(real, simulated)
				if problem == "" {
					t.Logf("seed %d: %d preStop ExecSync calls match (first: real %.2fs-%.2fs, simulated %.2fs-%.2fs)", seed, len(real),
						real[0].At.Seconds(), real[0].Done.Seconds(), simulated[0].At.Seconds(), simulated[0].Done.Seconds())
					return
				}
				if firstErr == "" {
					firstErr = fmt.Sprintf("seed %d: %s", seed, problem)
				}
			}
			t.Fatalf("no seed of %d reproduces the preStop ExecSync calls; %s", seeds, firstErr)
		})
	}
	if tested == 0 {
		t.Fatal("no captured scenario with an exec preStop hook")
	}
}

// compareTimed compares calls by container and time (start and end within
// tolCall).
func compareTimed(real, simulated []sim.Call) string {
	if len(real) != len(simulated) {
		return fmt.Sprintf("%d real calls, %d simulated", len(real), len(simulated))
	}
	for i := range real {
		r, s := real[i], simulated[i]
		if r.Name != s.Name || absDur(r.At-s.At) > tolCall || absDur(r.Done-s.Done) > tolCall {
			return fmt.Sprintf("call %d: real %s %.2fs-%.2fs, simulated %s %.2fs-%.2fs", i, r.Name, r.At.Seconds(), r.Done.Seconds(), s.Name, s.At.Seconds(), s.Done.Seconds())
		}
	}
	return ""
}

// TestReplayResizeCalls replays api-resize as TestReplaySimulation does
// (simInput: each resize the API server accepted at the time of its PATCH,
// the other pod's requests while it held them), and compares the CRI
// calls more closely: the runtime-changing calls and the
// UpdateContainerResources calls, with the Linux resources they set, must
// be the real ones, in order and within tolCall, for at least one seed:
// cpu changes in place, memory changes restart the container (resizePolicy
// memory RestartContainer), the cpu 600m resize waits for the other pod to
// release its cpu.
func TestReplayResizeCalls(t *testing.T) {
	f := fixtureByName(t, "api-resize")
	in, zero := simInput(t, f)
	in.At = sim.Duration(kubeletAdd(t, f, zero))
	resizes, others := 0, 0
	for _, a := range in.Actions {
		if a.Resize != nil {
			resizes++
		}
		if a.OtherRequests != nil {
			others++
		}
	}
	if resizes != 5 || others != 2 {
		t.Fatalf("%d accepted resizes and %d changes of the other pods' requests, want 5 and 2 (see TestResizeAttempts)", resizes, others)
	}
	end := f.Observations[len(f.Observations)-1].Time.Sub(zero) + time.Second
	names := map[string]string{}
	for _, c := range f.CRICalls {
		if c.Method == "CreateContainer" {
			names[c.Response] = c.Name
		}
	}
	var real []timedKey
	for _, c := range f.CRICalls {
		if c.Time.Sub(zero) > end || (!modelledCall(c.Method) && c.Method != "UpdateContainerResources") {
			continue
		}
		name := c.Name
		if c.Method != "CreateContainer" {
			name = names[c.ID]
		}
		k := callKey(c.Method, name)
		if c.Resources != nil {
			k += fmt.Sprintf(" shares %d quota %d/%d memory %d", c.Resources.CPUShares, c.Resources.CPUQuota, c.Resources.CPUPeriod, c.Resources.MemoryLimitBytes)
		}
		real = appendCall(real, timedKey{c.Time.Sub(zero), k, c.ID})
	}
	var firstErr string
	for seed := uint64(1); seed <= seeds; seed++ {
		tl, err := sim.Simulate(sim.Config{Seed: seed, For: sim.Duration(end)}, []sim.PodInput{forSeed(t, f, zero, in, seed)})
		if err != nil {
			t.Fatal(err)
		}
		var simulated []timedKey
		for _, e := range tl.Entries {
			if e.Kind != sim.KindCRI || (!modelledCall(e.Call.Method) && e.Call.Method != "UpdateContainerResources") {
				continue
			}
			k := callKey(e.Call.Method, e.Call.Name)
			if r := e.Call.Resources; r != nil {
				k += fmt.Sprintf(" shares %d quota %d/%d memory %d", r.CPUShares, r.CPUQuota, r.CPUPeriod, r.MemoryLimitInBytes)
			}
			simulated = appendCall(simulated, timedKey{e.At, k, e.Call.ID})
		}
		problem := ""
		if len(real) != len(simulated) {
			problem = fmt.Sprintf("%d real CRI calls, %d simulated:\n%s", len(real), len(simulated), callTable(real, simulated))
		}
		for i := 0; problem == "" && i < len(real); i++ {
			if real[i].key != simulated[i].key || absDur(real[i].at-simulated[i].at) > tolCall {
				problem = fmt.Sprintf("call %d: real %q at %.2fs, simulated %q at %.2fs:\n%s", i, real[i].key, real[i].at.Seconds(), simulated[i].key, simulated[i].at.Seconds(), callTable(real, simulated))
			}
		}
		if problem == "" {
			t.Logf("seed %d: %d CRI calls in order, %d of them UpdateContainerResources with the real values", seed, len(real), strings.Count(fmt.Sprint(real), "UpdateContainerResources"))
			return
		}
		if firstErr == "" {
			firstErr = fmt.Sprintf("seed %d: %s", seed, problem)
		}
	}
	t.Fatalf("no seed of %d reproduces the CRI calls; %s", seeds, firstErr)
}

// resizeEventAction reads a harness event of api-resize as an action: a
// resize the API server accepted ("resize {patch}: PATCH resize 200")
// sets the containers' resources of the generation it answered with; one
// it refused (403: more than the node's allocatable) is no action. The
// other pod ("other pod api-resize-hog created", "... deleted") holds its
// requests from its creation (the kubelet admitted it at once) until it
// reached a terminal phase (what the kubelet's HandlePodReconcile sees):
// simulated, as the hog pod of tooling/capture/api.go (the trap loop,
// grace 2 s, cpu 1500m and memory 16Mi), deleted when the harness deleted
// it; on the same node as api-resize, so with its trap loop
// (trapLoopSlowStep) and runtime delays.
func resizeEventAction(t *testing.T, f *fixture, e event, zero time.Time) (sim.Action, bool) {
	t.Helper()
	at := sim.Duration(e.Time.Sub(zero))
	switch {
	case strings.HasPrefix(e.What, "resize "):
		if !strings.Contains(e.What, ": PATCH resize 200 ") || e.Object == nil {
			return sim.Action{}, false
		}
		pod := f.podAtGeneration(e.Object.Generation)
		if pod == nil {
			t.Fatalf("%s: no pod of generation %d", f.Scenario, e.Object.Generation)
		}
		r := map[string]v1.ResourceRequirements{}
		for _, c := range pod.Spec.Containers {
			r[c.Name] = *c.Resources.DeepCopy()
		}
		return sim.Action{At: at, Resize: r}, true
	case strings.HasPrefix(e.What, "other pod ") && strings.Contains(e.What, " created "):
		r := hogPod().Spec.Containers[0].Resources.Requests.DeepCopy()
		return sim.Action{At: at, OtherRequests: &r}, true
	case strings.HasPrefix(e.What, "other pod ") && strings.Contains(e.What, " deleted "):
		var created time.Duration = -1
		for _, o := range f.Events {
			if strings.HasPrefix(o.What, "other pod ") && strings.Contains(o.What, " created ") {
				created = o.Time.Sub(zero)
			}
		}
		if created < 0 {
			t.Fatalf("%s: the other pod is deleted but never created", f.Scenario)
		}
		terminal := hogTerminal(t, f, sim.Duration(created), at, 1)
		none := v1.ResourceList{}
		return sim.Action{At: terminal, OtherRequests: &none}, true
	}
	return sim.Action{}, false
}

// hogPod is tooling/capture/api.go's hogPod: the trap loop under grace 2 s,
// requests and limits cpu 1500m and memory 16Mi.
func hogPod() *v1.Pod {
	grace := int64(2)
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("1500m"), v1.ResourceMemory: resource.MustParse("16Mi")}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "api-resize-hog", Namespace: "default", Annotations: map[string]string{"kubernetes.io/config.source": "api"}},
		Spec: v1.PodSpec{
			HostNetwork: true, RestartPolicy: v1.RestartPolicyAlways, TerminationGracePeriodSeconds: &grace, NodeName: "kl-capture",
			Containers: []v1.Container{{Name: "hog", Image: "localhost/kl-busybox:1", ImagePullPolicy: v1.PullNever,
				Command:   []string{"sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"},
				Resources: v1.ResourceRequirements{Requests: rl, Limits: rl.DeepCopy()}}},
		},
	}
}

// hogTerminal is when the simulated hog, created at created and deleted
// at deleted, first shows a terminal phase in the API, with seed.
func hogTerminal(t *testing.T, f *fixture, created, deleted sim.Duration, seed uint64) sim.Duration {
	t.Helper()
	grace := int64(-1)
	in := sim.PodInput{Pod: hogPod(), At: created, Script: sim.Script{Containers: map[string]sim.Behaviour{"hog": {Runs: []sim.Run{trapLoopSlowStep}}}},
		Actions: []sim.Action{{At: deleted, Delete: &grace}}}
	if measuredRuntime[f.Scenario] {
		in.Script.Runtime = runtimeDelays(f)
	}
	tl, err := sim.Simulate(sim.Config{Seed: seed, For: deleted + sim.Duration(time.Minute)}, []sim.PodInput{in})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tl.Entries {
		if e.Kind == sim.KindAPI && e.Status != nil && (e.Status.Status.Phase == v1.PodSucceeded || e.Status.Status.Phase == v1.PodFailed) {
			return sim.Duration(e.At)
		}
	}
	t.Fatal("the simulated hog pod never reached a terminal phase")
	return 0
}

// forSeed returns in with the other pod's release (resizeEventAction,
// simulated with seed 1 there) simulated with seed: how long the other
// pod took to terminate is drawn like everything else of a run.
func forSeed(t *testing.T, f *fixture, zero time.Time, in sim.PodInput, seed uint64) sim.PodInput {
	t.Helper()
	var created, deleted time.Duration = -1, -1
	for _, e := range f.Events {
		if strings.HasPrefix(e.What, "other pod ") && strings.Contains(e.What, " created ") {
			created = e.Time.Sub(zero)
		}
		if strings.HasPrefix(e.What, "other pod ") && strings.Contains(e.What, " deleted ") {
			deleted = e.Time.Sub(zero)
		}
	}
	if created < 0 || deleted < 0 || seed == 1 {
		return in
	}
	out := in
	out.Actions = append([]sim.Action(nil), in.Actions...)
	for i, a := range out.Actions {
		if a.OtherRequests != nil && len(*a.OtherRequests) == 0 {
			out.Actions[i].At = hogTerminal(t, f, sim.Duration(created), sim.Duration(deleted), seed)
		}
	}
	return out
}
