package sim

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/features"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// driver is what a driver of a Node on a real API server decides: how far
// to advance the node at a time, and whether to deliver an action as the
// API object's update (UpdatePod, DeletePod) rather than as an Action.
type driver struct {
	step func() time.Duration
	api  func() bool
}

// drive runs pods (sorted by At) through a Node's public API as a driver
// that learns of each event only when it happens: the node advanced in the
// driver's steps up to just before the next event, the event delivered,
// and so on to cfg.For. It returns the timeline Simulate would build from
// the reports.
func drive(cfg Config, pods []PodInput, d driver) (*Timeline, error) {
	span := cfg.For.D()
	if span <= 0 {
		span = 10 * time.Minute
	}
	n := NewNode(cfg)
	start := n.Start()
	end := start.Add(span)
	tl := &Timeline{Start: start, Seed: cfg.Seed}
	report := func(r Report) {
		tl.Entries = append(tl.Entries, r.Entries...)
		tl.Syncs += r.Syncs
		if k := len(r.Entries); k > 0 && r.Entries[k-1].At > tl.End {
			tl.End = r.Entries[k-1].At
		}
	}
	advance := func(t time.Time) {
		for n.Now().Before(t) {
			next := n.Now().Add(max(d.step(), time.Nanosecond))
			if next.After(t) {
				next = t
			}
			report(n.Advance(next))
		}
	}
	type event struct {
		at     time.Time
		pod    int
		action int // -1: the pod's addition
	}
	var events []event
	for i, in := range pods {
		events = append(events, event{start.Add(max(in.At.D(), 0)), i, -1})
		for k, a := range in.Actions {
			events = append(events, event{start.Add(a.At.D()), i, k})
		}
	}
	sort.SliceStable(events, func(i, j int) bool {
		if !events[i].at.Equal(events[j].at) {
			return events[i].at.Before(events[j].at)
		}
		return events[i].pod < events[j].pod
	})
	// objects are the API objects as the driver knows them.
	objects := make([]*v1.Pod, len(pods))
	for _, e := range events {
		if e.at.After(end) {
			break
		}
		advance(e.at.Add(-time.Nanosecond))
		in := pods[e.pod]
		if e.action < 0 {
			objects[e.pod] = in.Pod.DeepCopy()
			if err := n.AddPod(e.at, in.Pod, in.Script); err != nil {
				return nil, err
			}
			continue
		}
		obj := objects[e.pod]
		ns := obj.Namespace
		if ns == "" {
			ns = "default"
		}
		if !contains(n.Pods(), ns+"/"+obj.Name) {
			continue // its simulation ended: nothing happens to it any more
		}
		a := in.Actions[e.action]
		var err error
		switch {
		case a.Delete != nil && d.api():
			err = n.DeletePod(e.at, obj.Namespace, obj.Name, *a.Delete)
		case a.RemoveFinalizers && len(obj.Finalizers) > 0 && d.api():
			obj = obj.DeepCopy()
			obj.Finalizers = nil
			err = n.UpdatePod(e.at, obj, nil)
		case a.AddEphemeral != nil && d.api():
			obj = obj.DeepCopy()
			obj.Spec.EphemeralContainers = append(obj.Spec.EphemeralContainers, *a.AddEphemeral)
			err = n.UpdatePod(e.at, obj, nil)
		case (a.Resize != nil || a.ResizePod != nil) && d.api():
			obj, err = resizedPod(apidefaults.PodCopy(obj), a.Resize, a.ResizePod, cfg.Kubelet.Features, cfg.allocatable())
			if err == nil {
				err = n.UpdatePod(e.at, obj, nil)
			}
		default:
			if a.RemoveFinalizers {
				obj = obj.DeepCopy()
				obj.Finalizers = nil
			}
			err = n.Do(e.at, obj.Namespace, obj.Name, a)
		}
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %w", a, a.At, err)
		}
		objects[e.pod] = obj
	}
	advance(end)
	return tl, nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// timelineDiff reports the first difference of two timelines.
func timelineDiff(want, got *Timeline) string {
	if got.Syncs != want.Syncs || got.End != want.End || len(got.Entries) != len(want.Entries) {
		return fmt.Sprintf("incremental: %d entries, %d syncs, end %s; Simulate: %d entries, %d syncs, end %s",
			len(got.Entries), got.Syncs, got.End, len(want.Entries), want.Syncs, want.End)
	}
	for i := range want.Entries {
		if !reflect.DeepEqual(got.Entries[i], want.Entries[i]) {
			return fmt.Sprintf("entry %d: incremental %s %s %s %q; Simulate %s %s %s %q", i,
				got.Entries[i].At, got.Entries[i].Pod, got.Entries[i].Kind, got.Entries[i].Message,
				want.Entries[i].At, want.Entries[i].Pod, want.Entries[i].Kind, want.Entries[i].Message)
		}
	}
	return ""
}

// drawNode draws up to maxPods pods (podgen), their scripts and actions,
// sorted by arrival (the node numbers pods in the order they arrive), and
// the node's seed, span, parallelism and gates of one of the three
// versions.
func drawNode(t *rapid.T, maxPods int) (Config, []PodInput) {
	span := time.Duration(rapid.IntRange(20, 400).Draw(t, "span seconds")) * time.Second
	nPods := rapid.IntRange(1, maxPods).Draw(t, "pods")
	var pods []PodInput
	for i := 0; i < nPods; i++ {
		pods = append(pods, drawInput(t, i, span))
	}
	sort.SliceStable(pods, func(i, j int) bool { return pods[i].At < pods[j].At })
	cfg := Config{Seed: rapid.Uint64().Draw(t, "seed"), For: Duration(span),
		Parallelism: rapid.IntRange(1, 3).Draw(t, "parallelism"),
		Kubelet:     Kubelet{Features: rapid.SampledFrom([]features.Set{features.V1_37(), features.V1_36(), features.V1_35()}).Draw(t, "version")}}
	return cfg, pods
}

// TestNodeMatchesSimulate: a driver that learns of each pod and action
// only when it happens, advancing the Node in steps of random sizes (from
// a nanosecond to minutes) and delivering deletions and finalizer removals
// either as Actions or as API updates, gets the timeline Simulate gives for
// the same inputs: the same entries in the same order, syncs and end. Random
// pods (podgen), scripts, actions, seeds and gates of the three versions.
//
// The count for a run of about 10 s: -rapid.checks=200 (100 ran in 3.5 s
// here; 60 in 5 s under a load of 25).
func TestNodeMatchesSimulate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, pods := drawNode(t, 3)
		// The node in time order with the runtime shared (the default,
		// and a contention far above it), and independent.
		cfg.RuntimeContention = rapid.SampledFrom([]Duration{0, Duration(200 * time.Millisecond), -1}).Draw(t, "runtime contention")
		want, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatalf("Simulate: %v", err)
		}
		maxStep := rapid.SampledFrom([]time.Duration{time.Nanosecond * 997, 37 * time.Millisecond, time.Second, 13 * time.Second, 5 * time.Minute}).Draw(t, "max step")
		d := driver{
			step: func() time.Duration {
				return time.Duration(rapid.Int64Range(1, int64(maxStep)).Draw(t, "step"))
			},
			api: func() bool { return rapid.Bool().Draw(t, "as an API update") },
		}
		if maxStep < time.Millisecond {
			// Nanosecond steps over minutes would take forever: steps of
			// about a millisecond then, still off every whole time.
			d.step = func() time.Duration { return time.Millisecond + maxStep }
		}
		got, err := drive(cfg, pods, d)
		if err != nil {
			t.Fatalf("incremental: %v", err)
		}
		if diff := timelineDiff(want, got); diff != "" {
			t.Fatalf("%s\nSimulate:\n%s", diff, want.Events())
		}
	})
}

// TestNodeUpdatePodMatchesActions: the API updates a driver sees (an
// ephemeral container added, a resize, the finalizers removed, the
// deletion) read as the Actions Simulate takes, on a pod with each, for
// several seeds, advancing once per event and in one-second steps.
func TestNodeUpdatePodMatchesActions(t *testing.T) {
	grace := int64(10)
	cpu := map[string]v1.ResourceRequirements{"app": {
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("400m")},
		Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("800m")}}}
	debug := &v1.EphemeralContainer{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{"kubernetes.io/config.source": "api"},
		Finalizers: []string{"example.com/hold"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m"), v1.ResourceMemory: resource.MustParse("64Mi")},
			Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m"), v1.ResourceMemory: resource.MustParse("64Mi")}}}}}}
	in := PodInput{Pod: pod, At: Seconds(1), Actions: []Action{
		{At: Seconds(20), AddEphemeral: debug},
		{At: Seconds(40), Resize: cpu},
		{At: Seconds(60), Delete: &grace},
		{At: Seconds(120), RemoveFinalizers: true},
	}}
	for seed := uint64(1); seed <= 5; seed++ {
		cfg := Config{Seed: seed, For: Duration(3 * time.Minute)}
		want, err := Simulate(cfg, []PodInput{in})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := want.First("web", func(e Entry) bool { return e.API == APIGone }); !ok {
			t.Fatalf("seed %d: the example does not reach its end\n%s", seed, want.Events())
		}
		for _, step := range []time.Duration{time.Hour, time.Second} {
			got, err := drive(cfg, []PodInput{in}, driver{step: func() time.Duration { return step }, api: func() bool { return true }})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if diff := timelineDiff(want, got); diff != "" {
				t.Fatalf("seed %d, steps of %s: %s\nSimulate:\n%s", seed, step, diff, want.Events())
			}
		}
	}
}

// TestNodeRefusesWhatItDoesNotModel: UpdatePod refuses a spec change other
// than the modelled ones and changes nothing; Do refuses an unknown pod and
// a container the pod does not have; AddPod refuses a second pod of the
// same name.
func TestNodeRefusesWhatItDoesNotModel(t *testing.T) {
	n := NewNode(Config{Seed: 1})
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}}}
	if err := n.AddPod(n.Now(), pod, Script{}); err != nil {
		t.Fatal(err)
	}
	if err := n.AddPod(n.Now(), pod, Script{}); err == nil {
		t.Error("AddPod: a second pod default/web accepted")
	}
	image := pod.DeepCopy()
	image.Spec.Containers[0].Image = "web:2"
	if err := n.UpdatePod(n.Now(), image, nil); err == nil {
		t.Error("UpdatePod: an image change accepted")
	}
	if err := n.Do(n.Now(), "", "web", Action{KillContainer: "ap"}); err == nil {
		t.Error("Do: a kill of a container the pod does not have accepted")
	}
	if err := n.Do(n.Now(), "", "other", Action{KillSandbox: true}); err == nil {
		t.Error("Do: an unknown pod accepted")
	}
	r := n.Advance(n.Now().Add(time.Minute))
	for _, e := range r.Entries {
		if e.Kind == KindAction && e.Message != "pod added to the kubelet" {
			t.Errorf("a refused event happened: %s", e.Message)
		}
	}
	if w, ok := n.Wake(); !ok || !w.After(n.Now()) || !w.Equal(r.Wake) {
		t.Errorf("Wake %s (%v), report's %s, now %s: want a time after now", w, ok, r.Wake, n.Now())
	}
}
