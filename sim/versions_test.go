package sim_test

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// Tests of the rules of sim that differ between kubelet versions, each run
// under every version the rule distinguishes (see tooling/mutation/simtime.md).

// versionsWithReset are the kubelets that have RestartAllContainers on:
// v1.35 only with its gates turned on.
func versionsWithReset(t *testing.T) []features.Set {
	v135on, err := features.ParseFor(features.V1_35_4, "RestartAllContainersOnContainerExits=true,NodeDeclaredFeatures=true")
	if err != nil {
		t.Fatal(err)
	}
	return []features.Set{v135on, features.V1_36(), features.V1_37()}
}

// From v1.36 on, a successful RestartAllContainers reset syncs the pod
// again at once (D12); v1.35 waits for a sync-worthy PLEG event or the
// resync. A reset of a pod whose only container has exited removes that
// container and nothing else, so the relists after it report only
// ContainerRemoved, which is not sync-worthy: v1.35 starts the container
// again at the resync, J(1 min) later.
func TestResetSyncsAgainFromV136(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	pod := apiPod("solo", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a", RestartPolicy: &always,
		RestartPolicyRules: []v1.ContainerRestartRule{{Action: "RestartAllContainers",
			ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}}}})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(5), ExitCode: 42}, {}}}}}
	for _, f := range versionsWithReset(t) {
		for seed := uint64(1); seed <= 5; seed++ {
			tl := run(t, sim.Config{Seed: seed, For: sec(180), Kubelet: sim.Kubelet{Features: f}}, sim.PodInput{Pod: pod, Script: script})
			rm, ok1 := tl.First("solo", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "RemoveContainer" })
			again, ok2 := tl.First("solo", func(e sim.Entry) bool {
				return e.Kind == sim.KindCRI && e.Call.Method == "CreateContainer" && e.At > rm.At
			})
			if !ok1 || !ok2 {
				t.Fatalf("%s seed %d: reset %v, created again %v\n%s", f, seed, ok1, ok2, tl.Events())
			}
			d := again.At - rm.At
			if f.Version().Minor() >= 36 && d > 100*time.Millisecond {
				t.Errorf("%s seed %d: created again %s after the reset, want at once\n%s", f, seed, d, tl.Events())
			}
			if f.Version().Minor() < 36 && (d < 60*time.Second || d > 91*time.Second) {
				t.Errorf("%s seed %d: created again %s after the reset, want at the resync, J(1 min)\n%s", f, seed, d, tl.Events())
			}
		}
	}
}

// From v1.36 on, the status manager stores PodReadyToStartContainers True
// right after RunPodSandbox (OnPodSandboxReady, D11), before any container
// is created; v1.35 stores it with the sync's status, after the
// containers were started.
func TestSandboxReadyConditionVersions(t *testing.T) {
	pod := apiPod("sb", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
	for _, f := range []features.Set{features.V1_35(), features.V1_36(), features.V1_37()} {
		tl := run(t, sim.Config{Seed: 1, For: sec(10), Kubelet: sim.Kubelet{Features: f}}, sim.PodInput{Pod: pod})
		ready, ok1 := tl.First("sb", func(e sim.Entry) bool {
			if e.Kind != sim.KindStatus {
				return false
			}
			for _, c := range e.Status.Status.Conditions {
				if c.Type == v1.PodReadyToStartContainers && c.Status == v1.ConditionTrue {
					return true
				}
			}
			return false
		})
		create, ok2 := tl.First("sb", func(e sim.Entry) bool { return e.Kind == sim.KindCRI && e.Call.Method == "CreateContainer" })
		if !ok1 || !ok2 {
			t.Fatalf("%s: PodReadyToStartContainers stored %v, container created %v\n%s", f, ok1, ok2, tl.Events())
		}
		early := ready.At < create.At || (ready.At == create.At && ready.Status.By == "OnPodSandboxReady")
		if want := f.Version().Minor() >= 36; early != want || (want && ready.Status.By != "OnPodSandboxReady") {
			t.Errorf("%s: PodReadyToStartContainers stored by %s at %s, CreateContainer at %s; want stored before the create: %v\n%s", f, ready.Status.By, ready.At, create.At, want, tl.Events())
		}
	}
}
