package podactions_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// TestOptionsJSONRoundTrip: Options with every field set, gates included,
// read back from their JSON as the same Options; the gates are the Set's
// text form, left out for the v1.37.2 defaults; an unknown gate in the
// JSON is an error.
func TestOptionsJSONRoundTrip(t *testing.T) {
	off, err := features.V1_36().With(features.PodLevelResources, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []features.Set{features.V1_37(), features.V1_36(), features.V1_35(), off} {
		o := podactions.Options{Features: f, RestartAllContainers: true,
			Probes: map[string]vocab.ProbeResults{"c1": {Liveness: vocab.ProbeFailure, Readiness: vocab.ProbeSuccess}},
			Actuated: podactions.Actuated{Exact: true, Containers: map[string]v1.ResourceRequirements{
				"app": {Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m")}}}}}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := f.MarshalText()
		if has := strings.Contains(string(b), `"features":"`+string(text)+`"`); has == (f == features.V1_37()) {
			t.Errorf("%v: JSON %s (features written: %t)", f, b, has)
		}
		var back podactions.Options
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if back.Features != f {
			t.Errorf("%s: features read back as %v, want %v", b, back.Features, f)
		}
		b2, _ := json.Marshal(back)
		if string(b2) != string(b) || !reflect.DeepEqual(back.Probes, o.Probes) {
			t.Errorf("round trip:\n %s\n %s", b, b2)
		}
	}
	var o podactions.Options
	if err := json.Unmarshal([]byte(`{"features":"v1.37.2,PodLevelResource=false"}`), &o); err == nil || !strings.Contains(err.Error(), `did you mean "PodLevelResources"`) {
		t.Errorf("a misspelt gate: %v", err)
	}
}
