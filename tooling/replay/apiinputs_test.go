package replay

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/conditions"
	"github.com/kubeletlogic/kubeletlogic/features"
)

// Inputs of the kubelet in the API-server scenarios that the kubelet's own
// status does not carry: what another client wrote into the pod's status
// (a readiness-gate condition), what the harness's writes did to a status
// the kubelet wrote earlier, and the allocation manager's decision on a
// resize (the allocated resources, and the PodResizePending condition).

// harnessStatuses returns, as JSON, the statuses the harness's condition
// PATCHes through the status subresource were answered with (events'
// Object, recorded from the third API capture on). Such a status is the
// one the kubelet wrote before with the harness's condition in it: its
// kubelet-owned part (Ready) was generated from the condition as it was
// before, so it is not a status the kubelet generated for the conditions it
// holds. The kubelet's read-only port serves it too, until the kubelet's
// next write reaches the pod manager. (A resize or a DELETE leaves the
// status as it was and raises the generation instead: see
// staleGeneration.)
func (f *fixture) harnessStatuses() map[string]bool {
	out := map[string]bool{}
	for _, e := range f.Events {
		if e.Object != nil && !e.Object.Gone && strings.HasPrefix(e.What, "condition ") {
			b, _ := json.Marshal(e.Object.Status)
			out[string(b)] = true
		}
	}
	return out
}

// harnessWrote reports whether s is one of harnessStatuses.
func harnessWrote(hs map[string]bool, s *v1.PodStatus) bool {
	if s == nil || len(hs) == 0 {
		return false
	}
	b, _ := json.Marshal(s)
	return hs[string(b)]
}

// apiConditions returns the conditions another client owns (those the
// kubelet does not generate, such as a readiness gate's) in the API object
// recorded at or before observation i whose status the kubelet wrote last:
// the kubelet's pod carries the API object's status, and these are the
// conditions of it that generateAPIPodStatus copies and the Ready condition
// reads. ok is false when no API object was recorded (static pods).
func (f *fixture) apiConditions(i int, hs map[string]bool, gates features.Set) (out []v1.PodCondition, ok bool) {
	for k := i; k >= 0; k-- {
		a := f.Observations[k].API
		if a == nil || a.Gone || harnessWrote(hs, &a.Status) {
			continue
		}
		for _, c := range a.Status.Conditions {
			if !conditions.OwnedByKubelet(c.Type, gates) {
				out = append(out, c)
			}
		}
		return out, true
	}
	return nil, false
}

// withConditions returns s with its conditions the kubelet does not own
// replaced by cs (in their place at the front, where the kubelet writes
// them).
func withConditions(s v1.PodStatus, cs []v1.PodCondition, gates features.Set) v1.PodStatus {
	s = *s.DeepCopy()
	kept := append([]v1.PodCondition(nil), cs...)
	for _, c := range s.Conditions {
		if conditions.OwnedByKubelet(c.Type, gates) {
			kept = append(kept, c)
		}
	}
	s.Conditions = kept
	return s
}

// resizeAttempt is one admission of a resize by the kubelet's allocation
// manager, read from its log: every admission of a resize runs the device
// manager's handler, which logs "Device Manager support only Allocate(add)"
// with operation="resize"; a refused one logs "Pod admission denied" with
// the reason and message (the resize handler refuses before the device
// manager's when it finds the resize infeasible, so a denial may come
// alone).
type resizeAttempt struct {
	at              time.Time
	denied          bool
	reason, message string
	generation      int64 // the pod's generation the kubelet admitted or refused
}

var (
	logClock   = regexp.MustCompile(`^[IWE]\d{4} (\d\d:\d\d:\d\d\.\d+) `)
	deniedLine = regexp.MustCompile(`"Pod admission denied" .*reason="([^"]*)" message="((?:[^"\\]|\\.)*)" operation="resize"`)
)

// logTime returns the time of a kubelet log line, on day (the fixture's
// date).
func logTime(l string, day string) (time.Time, bool) {
	m := logClock.FindStringSubmatch(l)
	if m == nil {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02 15:04:05.999999", day+" "+m[1])
	return t, err == nil
}

// resizeAttempts returns the kubelet's admissions of resizes of the pod, in
// time order. The generation of each is the one the harness's latest
// resize before it made (the API server's answer; the kubelet admits a new
// spec within a second of the PATCH, and retries a deferred one later with
// no new PATCH).
func (f *fixture) resizeAttempts() []resizeAttempt {
	if len(f.Observations) == 0 {
		return nil
	}
	day := f.Observations[0].Time.UTC().Format("2006-01-02")
	var out []resizeAttempt
	for _, l := range f.KubeletLog {
		t, ok := logTime(l, day)
		if !ok || !strings.Contains(l, `operation="resize"`) {
			continue
		}
		switch {
		case strings.Contains(l, "Device Manager support only Allocate(add)"):
			out = append(out, resizeAttempt{at: t})
		case strings.Contains(l, `"Pod admission denied"`):
			m := deniedLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			msg := m[2]
			if u, err := unquoteLog(m[2]); err == nil {
				msg = u
			}
			// The denial of the attempt logged just before it, or an
			// attempt of its own.
			if n := len(out); n > 0 && !out[n-1].denied && t.Sub(out[n-1].at) < time.Second {
				out[n-1].denied, out[n-1].reason, out[n-1].message = true, m[1], msg
			} else {
				out = append(out, resizeAttempt{at: t, denied: true, reason: m[1], message: msg})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	for i := range out {
		out[i].generation = f.Pod.Generation
		for _, e := range f.Events {
			if e.Object != nil && strings.HasPrefix(e.What, "resize ") && !e.Time.After(out[i].at.Add(time.Second)) {
				out[i].generation = e.Object.Generation
			}
		}
	}
	return out
}

func unquoteLog(s string) (string, error) {
	var u string
	err := json.Unmarshal([]byte(`"`+s+`"`), &u)
	return u, err
}

// allocationAt returns the pod as the kubelet's pod worker held it at t:
// pod (the kubelet's pod at t) with the resources of the last resize the
// allocation manager admitted by then (the kubelet syncs the allocated pod,
// UpdatePodFromAllocation); and the PodResizePending condition the status
// manager holds at t (after a refused admission: reason Infeasible when the
// handler said so, Deferred for every other reason, the handler's message,
// the refused generation; cleared by an admitted one).
func (f *fixture) allocationAt(pod *v1.Pod, attempts []resizeAttempt, t time.Time) (*v1.Pod, []v1.PodCondition) {
	gen := f.Pod.Generation
	var pending []v1.PodCondition
	for _, a := range attempts {
		if a.at.After(t) {
			break
		}
		if !a.denied {
			gen, pending = a.generation, nil
			continue
		}
		reason := v1.PodReasonDeferred
		if a.reason == v1.PodReasonInfeasible {
			reason = v1.PodReasonInfeasible
		}
		pending = []v1.PodCondition{{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: reason, Message: a.message, ObservedGeneration: a.generation}}
	}
	if gen == pod.Generation {
		return pod, pending
	}
	spec := f.podAtGeneration(gen)
	if spec == nil {
		return pod, pending
	}
	out := pod.DeepCopy()
	res := map[string]v1.ResourceRequirements{}
	for _, c := range append(append([]v1.Container{}, spec.Spec.InitContainers...), spec.Spec.Containers...) {
		res[c.Name] = c.Resources
	}
	for _, l := range [][]v1.Container{out.Spec.InitContainers, out.Spec.Containers} {
		for i := range l {
			if r, ok := res[l[i].Name]; ok {
				l[i].Resources = *r.DeepCopy()
			}
		}
	}
	out.Spec.Resources = spec.Spec.Resources.DeepCopy()
	return out, pending
}

// podAtGeneration returns the kubelet's pod at generation gen, as recorded.
func (f *fixture) podAtGeneration(gen int64) *v1.Pod {
	if f.Pod.Generation == gen {
		return f.Pod
	}
	for _, o := range f.Observations {
		if o.Pod != nil && o.Pod.Generation == gen {
			return o.Pod
		}
	}
	return nil
}

// staleGeneration reports whether status s, paired with a pod of
// generation gen, was written for an earlier generation that a write of the
// harness replaced: s.observedGeneration (the generation the kubelet wrote
// s for) is below gen, and each generation after it up to gen is one a
// resize or DELETE of the harness was answered with. Until the kubelet's
// next write, the API object (and the kubelet's pod, once the watch brought
// the new generation) holds such a pair.
func (f *fixture) staleGeneration(s *v1.PodStatus, gen int64) bool {
	if s == nil || s.ObservedGeneration == 0 || s.ObservedGeneration >= gen {
		return false
	}
	made := map[int64]bool{}
	for _, e := range f.Events {
		if e.Object != nil {
			made[e.Object.Generation] = true
		}
	}
	for g := s.ObservedGeneration + 1; g <= gen; g++ {
		if !made[g] {
			return false
		}
	}
	return true
}

// TestResizeAttempts reads the allocation manager's decisions of
// api-resize from its log: four admitted resizes, the cpu 600m one
// deferred next to the other pod, then admitted on the retry after that pod
// was deleted (the cpu 1000 one never reached the kubelet: the API server
// refused it).
func TestResizeAttempts(t *testing.T) {
	f := fixtureByName(t, "api-resize")
	got := f.resizeAttempts()
	type row struct {
		gen    int64
		denied bool
		reason string
	}
	want := []row{{2, false, ""}, {3, false, ""}, {4, false, ""}, {5, false, ""}, {6, true, "OutOfcpu"}, {6, false, ""}}
	if len(got) != len(want) {
		t.Fatalf("%d attempts, want %d: %+v", len(got), len(want), got)
	}
	for i, a := range got {
		if (row{a.generation, a.denied, a.reason}) != want[i] {
			t.Errorf("attempt %d: %+v, want %+v", i, a, want[i])
		}
	}
	if m := got[4].message; !strings.HasPrefix(m, "Node didn't have enough resource: cpu, requested: 600") {
		t.Errorf("denial message %q", m)
	}
	// Between the denial and the retry: the allocated pod keeps cpu 100m,
	// PodResizePending Deferred for generation 6.
	mid := got[4].at.Add(time.Second)
	pod, pending := f.allocationAt(f.podAtGeneration(6), got, mid)
	if c := pod.Spec.Containers[0].Resources.Requests.Cpu().String(); c != "100m" {
		t.Errorf("allocated cpu %s, want 100m", c)
	}
	if len(pending) != 1 || pending[0].Reason != v1.PodReasonDeferred || pending[0].ObservedGeneration != 6 {
		t.Errorf("pending %+v", pending)
	}
	pod, pending = f.allocationAt(f.podAtGeneration(6), got, got[5].at)
	if c := pod.Spec.Containers[0].Resources.Requests.Cpu().String(); c != "600m" || pending != nil {
		t.Errorf("after the retry: cpu %s, pending %+v", c, pending)
	}
}

// TestNotGeneratedForPod: a status carrying the harness's condition PATCH,
// and a status paired with a generation the harness's resize made after it,
// are recognised; the kubelet's own statuses are not.
func TestNotGeneratedForPod(t *testing.T) {
	gate := v1.PodCondition{Type: "kubeletlogic.io/gate", Status: v1.ConditionFalse}
	kubelet := v1.PodStatus{ObservedGeneration: 1, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue, ObservedGeneration: 1}}}
	patched := *kubelet.DeepCopy()
	patched.Conditions = append([]v1.PodCondition{gate}, patched.Conditions...)
	f := &fixture{}
	f.Events = []event{
		{What: "condition kubeletlogic.io/gate set False: PATCH status 200", Object: &apiObject{ResourceVersion: "10", Generation: 1, Status: patched}},
		{What: "resize {...}: PATCH resize 200", Object: &apiObject{ResourceVersion: "11", Generation: 2, Status: patched}},
	}
	hs := f.harnessStatuses()
	if !harnessWrote(hs, &patched) || harnessWrote(hs, &kubelet) {
		t.Errorf("harnessWrote: patched %v, kubelet's %v", harnessWrote(hs, &patched), harnessWrote(hs, &kubelet))
	}
	if !f.staleGeneration(&kubelet, 2) || f.staleGeneration(&kubelet, 1) || f.staleGeneration(&kubelet, 3) {
		t.Errorf("staleGeneration: gen 2 %v, 1 %v, 3 %v (want true, false, false: no harness write made 3)",
			f.staleGeneration(&kubelet, 2), f.staleGeneration(&kubelet, 1), f.staleGeneration(&kubelet, 3))
	}
	// apiConditions skips the harness's version and takes the gate from
	// the API object before it.
	before := *kubelet.DeepCopy()
	before.Conditions = append([]v1.PodCondition{{Type: "kubeletlogic.io/gate", Status: v1.ConditionTrue}}, before.Conditions...)
	f.Observations = []observation{{API: &apiObject{Status: before}}, {API: &apiObject{Status: patched}}}
	cs, ok := f.apiConditions(1, hs, features.V1_37())
	if !ok || len(cs) != 1 || cs[0].Status != v1.ConditionTrue {
		t.Errorf("apiConditions: %v %+v", ok, cs)
	}
}
