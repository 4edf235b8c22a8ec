package podactions_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

func validatePod() (*v1.Pod, *runtimestate.Pod) {
	mem := resource.MustParse("64Mi")
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers: []v1.Container{{Name: "init-db"}},
		Containers:     []v1.Container{{Name: "app"}, {Name: "proxy"}},
		Volumes: []v1.Volume{
			{Name: "cache", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory, SizeLimit: &mem}}},
			{Name: "scratch", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}},
		},
	}}
	pod.Name = "web"
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "c-123", Name: "app", State: runtimestate.Running, CreatedAt: t0.Add(time.Minute)},
		{ID: "c-077", Name: "app", State: runtimestate.Exited, CreatedAt: t0.Add(30 * time.Second)},
		{ID: "c-050", Name: "init-db", State: runtimestate.Exited, CreatedAt: t0},
	}}
	return pod, st
}

// TestOptionsValidate: every key that Compute would ignore is an error that
// says what it most likely meant.
func TestOptionsValidate(t *testing.T) {
	pod, st := validatePod()
	ok := podactions.Options{
		Probes:   map[string]vocab.ProbeResults{"c-123": {Liveness: vocab.ProbeFailure}, "c-077": {}},
		Actuated: podactions.Actuated{Containers: map[string]v1.ResourceRequirements{"app": {}, "init-db": {}}, EmptyDirLimits: map[string]resource.Quantity{"cache": resource.MustParse("1Mi")}},
	}
	if err := ok.Validate(pod, st); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	if err := ok.Validate(nil, st); err != nil {
		t.Fatalf("nil pod: %v", err)
	}
	for _, tc := range []struct {
		name string
		opts podactions.Options
		want []string
	}{
		{"probes keyed by name", podactions.Options{Probes: map[string]vocab.ProbeResults{"app": {Liveness: vocab.ProbeFailure}}},
			[]string{`Probes["app"]: keyed by name "app", want instance ID "c-123"`}},
		{"probes keyed by a name with no instance", podactions.Options{Probes: map[string]vocab.ProbeResults{"proxy": {}}},
			[]string{`keyed by name "proxy"`, "no instance of proxy"}},
		{"probes keyed by container ID", podactions.Options{Probes: map[string]vocab.ProbeResults{"containerd://c-123": {}}},
			[]string{`want the bare instance ID "c-123"`}},
		{"probes keyed by a misspelt ID", podactions.Options{Probes: map[string]vocab.ProbeResults{"c-12": {}}},
			[]string{`no container instance in the runtime state has ID "c-12"`, `did you mean "c-123"?`}},
		{"actuated misspelt", podactions.Options{Actuated: podactions.Actuated{Containers: map[string]v1.ResourceRequirements{"ap": {}}}},
			[]string{`Actuated.Containers["ap"]`, `did you mean "app"?`}},
		{"actuated volume misspelt", podactions.Options{Actuated: podactions.Actuated{EmptyDirLimits: map[string]resource.Quantity{"cach": {}}}},
			[]string{`Actuated.EmptyDirLimits["cach"]`, `did you mean "cache"?`}},
		{"actuated volume never resized", podactions.Options{Actuated: podactions.Actuated{EmptyDirLimits: map[string]resource.Quantity{"scratch": {}}}},
			[]string{`not a memory-backed emptyDir`}},
		{"every problem at once", podactions.Options{Probes: map[string]vocab.ProbeResults{"app": {}, "c-9": {}}, Actuated: podactions.Actuated{Containers: map[string]v1.ResourceRequirements{"zzz": {}}}},
			[]string{`Probes["app"]`, `Probes["c-9"]`, `Actuated.Containers["zzz"]`}},
	} {
		err := tc.opts.Validate(pod, st)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tc.name, err, w)
			}
		}
	}
}

// TestValidateProperty: over random pods, states and options from podgen,
// the options are valid; a probe result moved from an instance's ID to its
// container's name is reported as keyed by name, with the ID of the
// container's newest instance; and Compute indeed ignores it (the answer is
// the one without the result), which is why it must be reported.
func TestValidateProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := podgen.Cases(podgen.CaseOptions{}).Draw(t, "case")
		opts := podgen.PodActionsOptions(c).Draw(t, "options")
		if err := opts.Validate(c.Pod, c.State); err != nil {
			t.Fatalf("generated options: %v", err)
		}
		ids := map[string]bool{}
		for _, in := range c.State.Containers {
			ids[in.ID] = true
		}
		for id, r := range opts.Probes {
			var name string
			for _, in := range c.State.Containers {
				if in.ID == id {
					name = in.Name
				}
			}
			if ids[name] {
				continue
			}
			bad := opts
			bad.Probes = map[string]vocab.ProbeResults{}
			for k, v := range opts.Probes {
				if k != id {
					bad.Probes[k] = v
				}
			}
			without := podactions.Compute(c.Pod, c.State, bad)
			bad.Probes[name] = r
			err := bad.Validate(c.Pod, c.State)
			want := `keyed by name "` + name + `", want instance ID "` + c.State.Newest(name).ID + `"`
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("probe result of %s moved to key %q: %v, want %q", id, name, err, want)
			}
			if got := podactions.Compute(c.Pod, c.State, bad); !reflect.DeepEqual(got, without) {
				t.Fatalf("Compute reads a result keyed by name %q", name)
			}
		}
		junk := rapid.StringMatching(`[a-z]{1,6}-[0-9]{1,3}`).Draw(t, "junk key")
		if ids[junk] {
			return
		}
		bad := opts
		bad.Probes = map[string]vocab.ProbeResults{junk: {}}
		if err := bad.Validate(c.Pod, c.State); err == nil || !strings.Contains(err.Error(), `Probes["`+junk+`"]`) {
			t.Fatalf("probe key %q matching nothing: %v", junk, err)
		}
	})
}

// Probe results are held per container instance: a result keyed by the
// container's name would be ignored, and Validate says which ID was meant.
func ExampleOptions_Validate() {
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app"}}}}
	st := &runtimestate.Pod{Containers: []runtimestate.Container{{ID: "c-123", Name: "app", State: runtimestate.Running}}}
	opts := podactions.Options{Probes: map[string]vocab.ProbeResults{"app": {Liveness: vocab.ProbeFailure}}}
	fmt.Println(opts.Validate(pod, st))
	// Output:
	// podactions.Options: Probes["app"]: keyed by name "app", want instance ID "c-123" (the newest instance of app); the kubelet holds these per container instance
}
