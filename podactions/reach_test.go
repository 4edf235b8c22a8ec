package podactions_test

import (
	"sort"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// TestGeneratorsReachEveryOutcome draws cases from the generators the
// differential test uses (podgen.Cases and podgen.PodActionsOptions) and
// fails when an outcome of Compute never appears: a generator that stopped
// producing some input would leave the kubelet comparison blind to it.
func TestGeneratorsReachEveryOutcome(t *testing.T) {
	seen := map[string]int{}
	gateSets := []features.Set{features.V1_37()}
	vol, _ := features.V1_37().With(features.InPlacePodVerticalScalingMemoryBackedVolumes, true)
	gateSets = append(gateSets, vol)
	for _, f := range gateSets {
		gen := rapid.Custom(func(t *rapid.T) podactions.Actions {
			c := podgen.Cases(podgen.CaseOptions{Gates: &f}).Draw(t, "case")
			return podactions.Compute(c.Pod, c.State, podgen.PodActionsOptions(c).Draw(t, "options"))
		})
		for i := range 3000 {
			a := gen.Example(i)
			note := func(s string) { seen[s]++ }
			note("sandbox: " + a.SandboxMessage)
			if a.KillPod && !a.CreateSandbox && a.SandboxMessage != "" {
				note("kill without a new sandbox")
			}
			if a.KillPod && a.SandboxMessage == "" {
				note("kill the pod with a good sandbox")
			}
			if a.CreateSandbox && len(a.InitContainersToStart) > 0 {
				note("new sandbox starts the first init container")
			}
			for _, k := range a.ContainersToKill {
				where := "regular"
				if k.Init {
					where = "init"
				}
				note("kill " + where + ": " + string(k.Cause))
			}
			for _, r := range a.ContainersToReset {
				switch {
				case r.Source:
					note("reset source")
				case r.Kill:
					note("reset running")
				default:
					note("reset exited target")
				}
			}
			if len(a.InitContainersToStart) > 1 {
				note("several init containers start")
			}
			if len(a.ContainersToStart) > 0 && len(a.ContainersToKill) == 0 {
				note("regular containers start")
			}
			if len(a.EphemeralContainersToStart) > 0 {
				note("ephemeral containers start")
			}
			for _, us := range [][]podactions.Update{a.MemoryUpdates, a.CPUUpdates} {
				for _, u := range us {
					if u.Init {
						note("in-place update of an init container")
					} else {
						note("in-place update of a regular container")
					}
				}
				if len(us) > 1 {
					note("several in-place updates")
				}
			}
			if a.UpdatePodResources {
				note("pod cgroup resize")
			}
			if a.UpdatePodLevelResources {
				note("pod-level resize")
			}
			if len(a.VolumesToUpsize) > 0 {
				note("volume upsize")
			}
			if len(a.VolumesToDownsize) > 0 {
				note("volume downsize")
			}
			if a.String() == "keep the pod as it is" {
				note("nothing to do")
			}
		}
	}
	want := []string{
		"sandbox: ", "sandbox: " + vocab.MsgNoPodSandbox, "sandbox: " + vocab.MsgMultipleSandboxes,
		"sandbox: " + vocab.MsgSandboxNotReady, "sandbox: " + vocab.MsgNetworkNamespaceMode, "sandbox: " + vocab.MsgNoIPAddress,
		"kill without a new sandbox", "kill the pod with a good sandbox", "new sandbox starts the first init container",
		"kill regular: " + string(podactions.CauseUnknownState), "kill regular: " + string(podactions.CauseDefinitionChanged),
		"kill regular: " + string(podactions.CauseLivenessProbe), "kill regular: " + string(podactions.CauseStartupProbe),
		"kill regular: " + string(podactions.CauseResize),
		"kill init: " + string(podactions.CauseUnknownState), "kill init: " + string(podactions.CauseDefinitionChanged),
		"kill init: " + string(podactions.CauseLivenessProbe), "kill init: " + string(podactions.CauseStartupProbe),
		"kill init: " + string(podactions.CauseResize),
		"reset source", "reset running", "reset exited target",
		"several init containers start", "regular containers start", "ephemeral containers start",
		"in-place update of an init container", "in-place update of a regular container", "several in-place updates",
		"pod cgroup resize", "pod-level resize", "volume upsize", "volume downsize", "nothing to do",
	}
	var missing []string
	for _, w := range want {
		if seen[w] == 0 {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 || testing.Verbose() {
		var all []string
		for k, v := range seen {
			all = append(all, k+": "+strconv.Itoa(v))
		}
		sort.Strings(all)
		if len(missing) > 0 {
			t.Errorf("outcomes never produced: %q", missing)
		}
		t.Logf("outcomes in %d cases: %q", 3000*len(gateSets), all)
	}
}
