package node

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// TestTranslateImagePulls: the image manager's Events (images/image_manager.go
// EnsureImageExists, kuberuntime_container.go startContainer) from the
// engine's pulls: a missing image whose first pull fails and second takes
// 2 s (Pulling, Failed "Failed to pull image", Failed "Error: ErrImagePull",
// then BackOff "Back-off pulling image" with Failed "Error: ImagePullBackOff"
// while the image back-off lasts, then Pulling and Pulled "Successfully
// pulled image ... in 2s" and no "already present" at its creation), and an
// image missing under pull policy Never (ErrImageNeverPull and Failed
// "Error: ErrImageNeverPull" at every sync).
func TestTranslateImagePulls(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "img", Namespace: "default", UID: "11111111-2222-3333-4444-555555555555"},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "img:1", ImagePullPolicy: v1.PullIfNotPresent},
			{Name: "nev", Image: "img:2", ImagePullPolicy: v1.PullNever}}}}
	script := sim.Script{Images: map[string]sim.Image{
		"img:1": {Missing: true, Pulls: []sim.Pull{{Took: sim.Seconds(0.5), Fails: true, Message: "registry says no"}, {Took: sim.Seconds(2)}}},
		"img:2": {Missing: true}}}
	evs, _ := runEngine(t, pod, script, 40*time.Second)
	var app []string
	var pullStart, pulled time.Time
	nev := 0
	for _, e := range evs {
		switch e.FieldPath {
		case "spec.containers{app}":
			app = append(app, e.Reason+" "+e.Type+" "+e.Message)
			if e.Reason == reasonPulling {
				pullStart = e.At
			}
			if strings.HasPrefix(e.Message, "Successfully pulled") {
				pulled = e.At
			}
		case "spec.containers{nev}":
			if e.Reason == reasonCreated || e.Reason == reasonPulled {
				t.Errorf("nev: %+v: its image is missing under pull policy Never", e)
			}
			if e.Reason == reasonErrImageNeverPull {
				nev++
				if e.Message != `Container image "img:2" is not present with pull policy of Never` || e.Type != v1.EventTypeWarning {
					t.Errorf("ErrImageNeverPull event %+v", e)
				}
			}
		}
	}
	got := strings.Join(app, "\n")
	want := []string{
		`Pulling Normal Pulling image "img:1"`,
		`Failed Warning Failed to pull image "img:1": registry says no`,
		`Failed Warning Error: ErrImagePull`,
		`BackOff Normal Back-off pulling image "img:1"`,
		`Failed Warning Error: ImagePullBackOff`,
		`Pulling Normal Pulling image "img:1"`,
		`Pulled Normal Successfully pulled image "img:1" in 2s (2s including waiting). Image size: 0 bytes.`,
		`Created Normal Container created`,
		`Started Normal Container started`,
	}
	at := 0
	for _, w := range want {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("app's events, want %q (in this order) after position %d:\n%s", w, at, got)
		}
		at += i + len(w)
	}
	if strings.Contains(got, "already present") {
		t.Errorf("app's events say the image was already present:\n%s", got)
	}
	if d := pulled.Sub(pullStart); d != 2*time.Second {
		t.Errorf("Pulled %s after the last Pulling, want the pull's 2 s", d)
	}
	if nev < 2 {
		t.Errorf("%d ErrImageNeverPull events in 40 s, want one per sync (at least 2)", nev)
	}
}
