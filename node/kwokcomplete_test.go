package node

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// KWOK's pod-complete delay annotations set a Job pod's default run time
// where KWOK's stage would complete it: a Go duration, an RFC 3339 time, a
// jitter drawn between the two (the same for the same pod and seed), never
// for restartPolicy Always or a pod that is not a Job's; a value that does
// not parse leaves JobRunTime.
func TestKwokCompleteDelay(t *testing.T) {
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	job := func(ann map[string]string, policy v1.RestartPolicy) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "default", UID: types.UID("u-1"), Annotations: ann,
			OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "j", Controller: ptrTo(true)}}},
			Spec: v1.PodSpec{RestartPolicy: policy, Containers: []v1.Container{{Name: "app", Image: "b"}}}}
	}
	runTime := func(p *v1.Pod, o PodOptions) time.Duration {
		s, _, probs := podScript(p, o, at)
		if len(probs) != 0 {
			t.Fatalf("problems %v", probs)
		}
		b, ok := s.Containers["app"]
		if !ok || len(b.Runs) != 1 {
			return -1
		}
		return b.Runs[0].ExitAfter.D()
	}
	o := PodOptions{JobRunTime: 7 * time.Second, Seed: 3}
	for _, tc := range []struct {
		name   string
		ann    map[string]string
		policy v1.RestartPolicy
		want   time.Duration
	}{
		{"no annotation", nil, v1.RestartPolicyNever, 7 * time.Second},
		{"duration", map[string]string{KwokCompleteDelayAnnotation: "3s"}, v1.RestartPolicyNever, 3 * time.Second},
		{"OnFailure", map[string]string{KwokCompleteDelayAnnotation: "90s"}, v1.RestartPolicyOnFailure, 90 * time.Second},
		{"RFC 3339 time", map[string]string{KwokCompleteDelayAnnotation: at.Add(42 * time.Second).Format(time.RFC3339)}, v1.RestartPolicyNever, 42 * time.Second},
		{"time passed: at once", map[string]string{KwokCompleteDelayAnnotation: at.Add(-time.Minute).Format(time.RFC3339)}, v1.RestartPolicyNever, time.Nanosecond},
		{"does not parse", map[string]string{KwokCompleteDelayAnnotation: "soon"}, v1.RestartPolicyNever, 7 * time.Second},
		{"Always: KWOK's stage does not complete it", map[string]string{KwokCompleteDelayAnnotation: "3s"}, v1.RestartPolicyAlways, 7 * time.Second},
		{"jitter below the delay: ignored", map[string]string{KwokCompleteDelayAnnotation: "3s", KwokCompleteJitterAnnotation: "1s"}, v1.RestartPolicyNever, 3 * time.Second},
	} {
		if got := runTime(job(tc.ann, tc.policy), o); got != tc.want {
			t.Errorf("%s: run time %s, want %s", tc.name, got, tc.want)
		}
	}
	// Jitter: between the delay and the jitter delay, the same each time
	// for a pod and seed, spread over pods.
	ann := map[string]string{KwokCompleteDelayAnnotation: "2s", KwokCompleteJitterAnnotation: "12s"}
	seen := map[time.Duration]bool{}
	for i := 0; i < 20; i++ {
		p := job(ann, v1.RestartPolicyNever)
		p.UID = types.UID(string(rune('a' + i)))
		d := runTime(p, o)
		if d < 2*time.Second || d >= 12*time.Second {
			t.Fatalf("jittered run time %s outside [2s, 12s)", d)
		}
		if again := runTime(p, o); again != d {
			t.Fatalf("the same pod drew %s, then %s", d, again)
		}
		seen[d] = true
	}
	if len(seen) < 15 {
		t.Errorf("20 pods drew %d distinct run times: want them spread", len(seen))
	}
	// Not a Job's pod: the annotation means nothing here.
	p := job(map[string]string{KwokCompleteDelayAnnotation: "3s"}, v1.RestartPolicyNever)
	p.OwnerReferences[0].Kind = "ReplicaSet"
	if got := runTime(p, o); got != -1 {
		t.Errorf("a ReplicaSet's pod got run time %s: want none (runs until stopped)", got)
	}
}
