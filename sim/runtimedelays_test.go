package sim_test

import (
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// A negative runtime delay is refused, field by field (every field of
// RuntimeDelays, so that a new one cannot be left out of the check: a
// negative value would otherwise read as "not set" and take the default).
func TestNegativeRuntimeDelayRefused(t *testing.T) {
	pod := apiPod("neg", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "a"}}})
	typ := reflect.TypeOf(sim.RuntimeDelays{})
	for i := range typ.NumField() {
		var d sim.RuntimeDelays
		reflect.ValueOf(&d).Elem().Field(i).Set(reflect.ValueOf(-sec(1)))
		_, err := sim.Simulate(sim.Config{Seed: 1, For: sec(5)}, []sim.PodInput{{Pod: pod, Script: sim.Script{Runtime: d}}})
		if err == nil || !strings.Contains(err.Error(), "negative delay") {
			t.Errorf("%s = -1s: error %v, want a negative delay refused", typ.Field(i).Name, err)
		}
	}
}
