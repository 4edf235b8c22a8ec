package apistatus_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/apistatus"
	"github.com/kubeletlogic/kubeletlogic/internal/aliastest"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

type aliasInput struct {
	pod  *v1.Pod
	st   *runtimestate.Pod
	opts apistatus.Options
}

func drawAliasInput(t *rapid.T) aliasInput {
	c := podgen.StatusCases(podgen.CaseOptions{}).Draw(t, "case")
	in := aliasInput{pod: c.Pod, st: c.State, opts: apistatus.Options{
		Features: c.Features, Cached: c.Previous, StartFailures: map[string]vocab.StartFailure{},
		RecursiveReadOnlySupported: rapid.Bool().Draw(t, "rro"),
	}}
	for n, f := range c.StartFailures {
		in.opts.StartFailures[n] = f
	}
	return in
}

func (in aliasInput) copy() aliasInput {
	out := aliasInput{pod: in.pod.DeepCopy(), st: in.st.DeepCopy(), opts: in.opts}
	out.opts.Cached = in.opts.Cached.DeepCopy()
	out.opts.StartFailures = maps.Clone(in.opts.StartFailures)
	return out
}

// Compute's result shares no memory with its arguments (its doc says so,
// and it copies only the fields that would point into them): changing
// every field of the result leaves the arguments as they were, and
// changing every field of the arguments leaves the result as it was.
func TestResultSharesNoMemoryWithArguments(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawAliasInput(t)
		before := in.copy()

		got := apistatus.Compute(in.pod, in.st, in.opts)
		other := apistatus.Compute(in.pod, in.st, in.opts)
		otherJSON, _ := json.Marshal(other)
		aliastest.Mutate(&got)
		if !reflect.DeepEqual(in, before) {
			t.Fatal("changing the result changed the arguments")
		}
		// Nor with another result (no placeholder or cache leaks out).
		if j, _ := json.Marshal(other); string(j) != string(otherJSON) {
			t.Fatal("changing a result changed another one")
		}

		got = apistatus.Compute(in.pod, in.st, in.opts)
		want := apistatus.Compute(before.pod, before.st, before.opts)
		aliastest.Mutate(in.pod)
		aliastest.Mutate(in.st)
		aliastest.Mutate(&in.opts)
		if !reflect.DeepEqual(got, want) {
			t.Fatal("changing the arguments changed the result")
		}
	})
}
