package termination

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

func TestOptionsValidate(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers: []v1.Container{{Name: "proxy", RestartPolicy: ptrPolicy(v1.ContainerRestartPolicyAlways)}},
		Containers: []v1.Container{
			{Name: "app", Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}}},
			{Name: "worker", Lifecycle: &v1.Lifecycle{PostStart: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"warm"}}}}},
		},
	}}
	pod.Name = "web"
	st := &runtimestate.Pod{Containers: []runtimestate.Container{
		{ID: "c-2", Name: "app", State: runtimestate.Running},
		{ID: "c-1", Name: "proxy", State: runtimestate.Running},
	}}
	good := Options{PreStop: map[string]time.Duration{"app": time.Second},
		ExitAfter: map[string]time.Duration{"app": time.Second, "proxy": 0, "worker": time.Second},
		StopFails: map[string]bool{"proxy": true}}
	if err := good.Validate(pod, st); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	if err := (Options{ExitAfter: map[string]time.Duration{"app": time.Second}}).Validate(nil, st); err != nil {
		t.Fatalf("orphaned pod, running name: %v", err)
	}
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		opts Options
		want []string
	}{
		{"preStop misspelt", pod, Options{PreStop: map[string]time.Duration{"ap": time.Second}},
			[]string{`PreStop["ap"]: "ap" is not a container of pod web (did you mean "app"?) (its containers: proxy, app, worker)`}},
		{"exitAfter misspelt", pod, Options{ExitAfter: map[string]time.Duration{"proxi": time.Second}},
			[]string{`ExitAfter["proxi"]`, `did you mean "proxy"?`}},
		{"stopFails misspelt", pod, Options{StopFails: map[string]bool{"Worker": true}},
			[]string{`StopFails["Worker"]`, `did you mean "worker"?`}},
		{"preStop without a hook", pod, Options{PreStop: map[string]time.Duration{"worker": time.Second}},
			[]string{`PreStop["worker"]: container worker has no preStop hook`}},
		{"negative", pod, Options{PreStop: map[string]time.Duration{"app": -time.Second}, ExitAfter: map[string]time.Duration{"app": -1}},
			[]string{`PreStop["app"]: negative duration`, `ExitAfter["app"]: negative duration`}},
		{"orphan: not running", nil, Options{ExitAfter: map[string]time.Duration{"worker": time.Second}},
			[]string{`ExitAfter["worker"]`}},
		{"orphan: no hook", nil, Options{PreStop: map[string]time.Duration{"app": time.Second}},
			[]string{`PreStop["app"]: no preStop hook runs for an orphaned runtime pod`}},
	} {
		err := tc.opts.Validate(tc.pod, st)
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

func ptrPolicy(p v1.ContainerRestartPolicy) *v1.ContainerRestartPolicy { return &p }

// TestValidateProperty: the options drawKill builds from the spec are
// valid; one key misspelt (a name of no container) is reported, and Plan
// indeed ignores it: the plan is the one without the key.
func TestValidateProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pod, st, opts := drawKill(t)
		if err := opts.Validate(pod, st); err != nil {
			t.Fatalf("options from the spec: %v", err)
		}
		names := map[string]bool{}
		for _, c := range pod.Spec.InitContainers {
			names[c.Name] = true
		}
		for _, c := range pod.Spec.Containers {
			names[c.Name] = true
		}
		for _, c := range pod.Spec.EphemeralContainers {
			names[c.Name] = true
		}
		var keys []string
		for k := range opts.PreStop {
			keys = append(keys, "PreStop/"+k)
		}
		for k := range opts.ExitAfter {
			keys = append(keys, "ExitAfter/"+k)
		}
		if len(keys) == 0 {
			return
		}
		key := rapid.SampledFrom(keys).Draw(t, "key")
		field, name, _ := strings.Cut(key, "/")
		typo := name + rapid.SampledFrom([]string{"x", "-", "s"}).Draw(t, "typo")
		if names[typo] {
			return
		}
		m := opts.PreStop
		if field == "ExitAfter" {
			m = opts.ExitAfter
		}
		without := Options{Features: opts.Features, GracePeriodOverride: opts.GracePeriodOverride, StopFails: opts.StopFails,
			PreStop: copyMap(opts.PreStop), ExitAfter: copyMap(opts.ExitAfter)}
		bad := Options{Features: opts.Features, GracePeriodOverride: opts.GracePeriodOverride, StopFails: opts.StopFails,
			PreStop: copyMap(opts.PreStop), ExitAfter: copyMap(opts.ExitAfter)}
		wm, bm := without.PreStop, bad.PreStop
		if field == "ExitAfter" {
			wm, bm = without.ExitAfter, bad.ExitAfter
		}
		delete(wm, name)
		delete(bm, name)
		bm[typo] = m[name]
		err := bad.Validate(pod, st)
		if err == nil || !strings.Contains(err.Error(), field+`["`+typo+`"]`) {
			t.Fatalf("%s key %q misspelt as %q: %v", field, name, typo, err)
		}
		if !reflect.DeepEqual(Plan(pod, st, bad), Plan(pod, st, without)) {
			t.Fatalf("Plan reads the misspelt key %q", typo)
		}
	})
}

func copyMap(m map[string]time.Duration) map[string]time.Duration {
	out := make(map[string]time.Duration, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// A misspelt name in the options would read as a container that ignores
// the stop signal; Validate names it and what it most likely meant.
func ExampleOptions_Validate() {
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app"}, {Name: "proxy"}}}}
	pod.Name = "web"
	opts := Options{ExitAfter: map[string]time.Duration{"ap": time.Second}}
	fmt.Println(opts.Validate(pod, nil))
	// Output:
	// termination.Options: ExitAfter["ap"]: "ap" is not a container of pod web (did you mean "app"?) (its containers: app, proxy)
}
