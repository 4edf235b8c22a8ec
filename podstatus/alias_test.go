package podstatus_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/internal/aliastest"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

type aliasInput struct {
	pod  *v1.Pod
	st   *runtimestate.Pod
	opts podstatus.Options
}

// drawAliasInput draws every input Compute reads, each option set.
func drawAliasInput(t *rapid.T) aliasInput {
	c := podgen.StatusCases(podgen.CaseOptions{}).Draw(t, "case")
	c.Pod.Spec.ReadinessGates = podgen.ReadinessGates().Draw(t, "readiness gates")
	c.Pod.Spec.HostNetwork = rapid.Bool().Draw(t, "host network")
	c.Pod.Generation = int64(rapid.IntRange(0, 3).Draw(t, "generation"))
	in := aliasInput{pod: c.Pod, st: c.State, opts: podstatus.Options{
		Features:      c.Features,
		Cached:        c.Previous,
		PodIsTerminal: rapid.Bool().Draw(t, "terminal"),
		Now:           podgen.Epoch.Add(time.Duration(rapid.IntRange(0, 4000).Draw(t, "now")) * time.Second),
		StartFailures: map[string]vocab.StartFailure{},
		Probes:        map[string]vocab.ProbeResults{},
		ProberStart:   podgen.Epoch.Add(time.Duration(rapid.IntRange(0, 4000).Draw(t, "prober start")) * time.Second),
		NodeIPs:       rapid.SampledFrom([][]string{nil, {"10.0.0.1"}, {"fd00::1"}}).Draw(t, "node IPs"),
		HostIPs:       rapid.SampledFrom([][]string{nil, {"192.168.0.1"}, {"192.168.0.1", "fd00::10"}}).Draw(t, "host IPs"),
		ResizeConditions: []v1.PodCondition{{Type: v1.PodResizePending, Status: v1.ConditionTrue, ObservedGeneration: 1,
			LastTransitionTime: metav1.NewTime(podgen.Epoch)}},
	}}
	for n, f := range c.StartFailures {
		in.opts.StartFailures[n] = f
	}
	for id, p := range podgen.ProbeResults(c.Pod, c.State).Draw(t, "probes") {
		in.opts.Probes[id] = vocab.ProbeResults{Readiness: p.Readiness, Startup: p.Startup}
	}
	if rapid.Bool().Draw(t, "explicit workers") {
		in.opts.ProbeWorkers = map[string]podstatus.ProbeWorkers{}
		for _, c := range c.Pod.Spec.Containers {
			in.opts.ProbeWorkers[c.Name] = podstatus.ProbeWorkers{Readiness: true}
		}
	}
	return in
}

func (in aliasInput) copy() aliasInput {
	out := aliasInput{pod: in.pod.DeepCopy(), st: in.st.DeepCopy(), opts: in.opts}
	o := &out.opts
	o.Cached = in.opts.Cached.DeepCopy()
	o.StartFailures = maps.Clone(in.opts.StartFailures)
	o.Probes = maps.Clone(in.opts.Probes)
	o.ProbeWorkers = maps.Clone(in.opts.ProbeWorkers)
	o.NodeIPs = slices.Clone(in.opts.NodeIPs)
	o.HostIPs = slices.Clone(in.opts.HostIPs)
	o.ResizeConditions = slices.Clone(in.opts.ResizeConditions)
	return out
}

// Compute's result shares no memory with its arguments, though it no
// longer copies them: changing every field of the result leaves the
// arguments (every option included) as they were, changing every field of
// the arguments leaves the result as it was, and two results share nothing.
func TestResultSharesNoMemoryWithArguments(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawAliasInput(t)
		before := in.copy()

		got := podstatus.Compute(in.pod, in.st, in.opts)
		other := podstatus.Compute(in.pod, in.st, in.opts)
		otherJSON, _ := json.Marshal(other.Status)
		aliastest.Mutate(&got)
		if !reflect.DeepEqual(in, before) {
			t.Fatal("changing the result changed the arguments")
		}
		if j, _ := json.Marshal(other.Status); string(j) != string(otherJSON) {
			t.Fatal("changing a result changed another one")
		}

		got = podstatus.Compute(in.pod, in.st, in.opts)
		want := podstatus.Compute(before.pod, before.st, before.opts)
		aliastest.Mutate(in.pod)
		aliastest.Mutate(in.st)
		aliastest.Mutate(&in.opts)
		if !reflect.DeepEqual(got, want) {
			t.Fatal("changing the arguments changed the result")
		}
	})
}

// What Compute allocates is the status it returns (see its doc comment):
// bounded by 20 plus 8 per container on podgen's status cases, which
// catches a copy of the pod, the runtime state or the cached status (each
// several allocations per container) coming back. Allocation counts do not
// depend on the machine.
func TestAllocationBudget(t *testing.T) {
	gen := rapid.Custom(drawAliasInput)
	for i := range 300 {
		in := gen.Example(i)
		n := len(in.pod.Spec.InitContainers) + len(in.pod.Spec.Containers) + len(in.pod.Spec.EphemeralContainers)
		budget := float64(20 + 8*n)
		if got := testing.AllocsPerRun(3, func() { podstatus.Compute(in.pod, in.st, in.opts) }); got > budget {
			t.Errorf("case %d: Compute allocates %v times for %d containers, budget %v", i, got, n, budget)
		}
	}
}
