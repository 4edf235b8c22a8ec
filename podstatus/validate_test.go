package podstatus_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

func TestOptionsValidate(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", ReadinessProbe: &v1.Probe{}}, {Name: "db"}}}}
	pod.Name, pod.Namespace = "web", "shop"
	st := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c-123", Name: "app", State: runtimestate.Running}}}
	good := podstatus.Options{
		Probes:        map[string]vocab.ProbeResults{"c-123": {Readiness: vocab.ProbeSuccess}},
		StartFailures: map[string]vocab.StartFailure{"db": {Reason: "CrashLoopBackOff"}},
		ProbeWorkers:  map[string]podstatus.ProbeWorkers{"app": {Readiness: true}},
	}
	if err := good.Validate(pod, st); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	for _, tc := range []struct {
		name string
		opts podstatus.Options
		want string
	}{
		{"probes keyed by name", podstatus.Options{Probes: map[string]vocab.ProbeResults{"app": {Readiness: vocab.ProbeSuccess}}},
			`Probes["app"]: keyed by name "app", want instance ID "c-123"`},
		{"probes keyed by container ID", podstatus.Options{Probes: map[string]vocab.ProbeResults{"containerd://c-123": {}}},
			`want the bare instance ID "c-123"`},
		{"probes: unknown ID", podstatus.Options{Probes: map[string]vocab.ProbeResults{"c-124": {}}},
			`no container instance in the runtime state has ID "c-124" (did you mean "c-123"?) (its instances: c-123 (app))`},
		{"start failure misspelt", podstatus.Options{StartFailures: map[string]vocab.StartFailure{"dbb": {}}},
			`StartFailures["dbb"]: "dbb" is not a container of pod shop/web (did you mean "db"?)`},
		{"probe worker misspelt", podstatus.Options{ProbeWorkers: map[string]podstatus.ProbeWorkers{"App": {}}},
			`ProbeWorkers["App"]`},
	} {
		err := tc.opts.Validate(pod, st)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A pod with activeDeadlineSeconds read at a zero clock is never past it:
// Validate says so; with the clock given it has nothing to say.
func TestOptionsValidateZeroNowWithDeadline(t *testing.T) {
	d := int64(60)
	pod := &v1.Pod{Spec: v1.PodSpec{ActiveDeadlineSeconds: &d, Containers: []v1.Container{{Name: "app"}}}}
	if err := (podstatus.Options{}).Validate(pod, nil); err == nil || !strings.Contains(err.Error(), "Now is zero: the pod's activeDeadlineSeconds (60s) is never reached") {
		t.Errorf("zero Now: %v", err)
	}
	if err := (podstatus.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}).Validate(pod, nil); err != nil {
		t.Errorf("Now given: %v", err)
	}
	pod.Spec.ActiveDeadlineSeconds = nil
	if err := (podstatus.Options{}).Validate(pod, nil); err != nil {
		t.Errorf("no deadline: %v", err)
	}
}

// TestValidateProperty: readiness results drawn for the instances of random
// states are valid; moved to the container's name they are reported, and
// Compute indeed ignores them.
func TestValidateProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := podgen.Cases(podgen.CaseOptions{}).Draw(t, "case")
		opts := podstatus.Options{Features: c.Features, Probes: map[string]vocab.ProbeResults{}}
		for id, p := range c.Probes {
			opts.Probes[id] = vocab.ProbeResults{Readiness: vocab.ProbeResult(p.Readiness), Startup: vocab.ProbeResult(p.Startup)}
		}
		if err := opts.Validate(c.Pod, c.State); err != nil {
			t.Fatalf("generated results: %v", err)
		}
		ids := map[string]bool{}
		for _, in := range c.State.Containers {
			ids[in.ID] = true
		}
		for _, in := range c.State.Containers {
			r, ok := opts.Probes[in.ID]
			if !ok || ids[in.Name] {
				continue
			}
			bad := podstatus.Options{Features: c.Features, Probes: map[string]vocab.ProbeResults{}}
			for k, v := range opts.Probes {
				if k != in.ID {
					bad.Probes[k] = v
				}
			}
			without := podstatus.Compute(c.Pod, c.State, bad)
			bad.Probes[in.Name] = r
			want := `keyed by name "` + in.Name + `", want instance ID "` + c.State.Newest(in.Name).ID + `"`
			if err := bad.Validate(c.Pod, c.State); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("result of %s keyed by %q: %v, want %q", in.ID, in.Name, err, want)
			}
			if got := podstatus.Compute(c.Pod, c.State, bad); !reflect.DeepEqual(got, without) {
				t.Fatalf("Compute reads a result keyed by name %q", in.Name)
			}
			return
		}
	})
}
