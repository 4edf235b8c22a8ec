package replay

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// The simulator's ExecSync calls of exec hooks and UpdateContainerResources
// calls of in-place resizes, against the captures of a real kubelet
// v1.37.2.

// api-resize's app is the trap loop (exits 0 on SIGTERM within the
// second of its sleep).
func init() { scripts["api-resize"] = map[string]sim.Behaviour{"app": {Runs: []sim.Run{trapLoop}}} }

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

// TestReplayResizeCalls replays api-resize's admitted resizes as
// sim.Action Resize: the sim takes a resize as admitted at once, so each
// is applied when the real kubelet admitted it (its allocation manager's
// log, resizeAttempts: the deferred cpu 600m one on its retry, the one the
// API server refused not at all). The runtime-changing CRI calls and the
// UpdateContainerResources calls, with the Linux resources they set, must
// be the real ones, in order and within tolCall, for at least one seed:
// cpu changes in place, memory changes restart the container (resizePolicy
// memory RestartContainer). The statuses are not compared: the resize
// conditions and the status resources are not modelled
// (TestReplaySimulation skips the scenario for that).
func TestReplayResizeCalls(t *testing.T) {
	f := fixtureByName(t, "api-resize")
	in, zero := simInput(t, f)
	in.At = sim.Duration(kubeletAdd(t, f, zero))
	resizes := 0
	for _, a := range f.resizeAttempts() {
		if a.denied {
			continue
		}
		pod := f.podAtGeneration(a.generation)
		if pod == nil {
			t.Fatalf("no pod of generation %d", a.generation)
		}
		r := map[string]v1.ResourceRequirements{}
		for _, c := range pod.Spec.Containers {
			r[c.Name] = *c.Resources.DeepCopy()
		}
		in.Actions = append(in.Actions, sim.Action{At: sim.Duration(a.at.Sub(zero)), Resize: r})
		resizes++
	}
	if resizes != 5 {
		t.Fatalf("%d admitted resizes, want 5 (see TestResizeAttempts)", resizes)
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
		tl, err := sim.Simulate(sim.Config{Seed: seed, For: sim.Duration(end)}, []sim.PodInput{in})
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
