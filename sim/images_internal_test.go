package sim

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/restart"
)

// The image back-off is client-go's flowcontrol.Backoff (kubelet.go:713 in
// v1.37.2, NewBackOff(10 s, 300 s)): an entry expires once more than twice
// the max, 600 s, passed since its last update (backoff.go:186, a strict
// >): at exactly 600 s it has not, so a failed pull then doubles the
// delay, and one a nanosecond later starts again at 10 s.
func TestImageBackOffExpiryBoundary(t *testing.T) {
	e := restart.BackOffEntry{Delay: 40 * time.Second, LastUpdate: t0}
	if got := imageBackOffNext(e, t0.Add(600*time.Second)); got.Delay != 80*time.Second {
		t.Errorf("a failed pull 600 s after the last: delay %s, want 80s (not expired yet)", got.Delay)
	}
	if got := imageBackOffNext(e, t0.Add(600*time.Second+1)); got.Delay != 10*time.Second {
		t.Errorf("a failed pull just over 600 s after the last: delay %s, want 10s (expired)", got.Delay)
	}
	if got := imageBackOffNext(restart.BackOffEntry{Delay: 200 * time.Second, LastUpdate: t0}, t0.Add(time.Minute)); got.Delay != 300*time.Second || !got.LastUpdate.Equal(t0.Add(time.Minute)) {
		t.Errorf("doubling 200 s: %+v, want 300s (the max) updated now", got)
	}
	for _, c := range []struct {
		since time.Duration
		want  bool
	}{{39 * time.Second, true}, {40 * time.Second, false}, {600 * time.Second, false}} {
		if got := imageInBackOff(e, t0.Add(c.since)); got != c.want {
			t.Errorf("in back-off %s after a 40 s entry: %v, want %v", c.since, got, c.want)
		}
	}
}

// A successful pull drops the back-off entries that have expired
// (Backoff.GC, backoff.go:149-157 in client-go v0.37.2: more than 600 s
// since their last update); one updated exactly 600 s ago stays.
func TestImagePullDropsExpiredBackOffs(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1", ImagePullPolicy: v1.PullAlways}}})
	images := map[string]Image{"web:1": {Pulls: []Pull{{Took: Duration(time.Second)}}}}
	// The pull starts after RunPodSandbox; the entries are dropped when it
	// returned.
	var pulled time.Time
	for _, c := range Sync(SyncInput{Pod: pod, Now: t0, Images: images}).Calls {
		if c.Method == "PullImage" {
			pulled = t0.Add(c.Done)
		}
	}
	if pulled.IsZero() {
		t.Fatal("no PullImage call")
	}
	for _, c := range []struct {
		age  time.Duration
		kept bool
	}{{600 * time.Second, true}, {600*time.Second + 1, false}} {
		old := ImagePullRecord{BackOff: restart.BackOffEntry{Delay: 300 * time.Second, LastUpdate: pulled.Add(-c.age)}, LastError: "ErrImagePull: x"}
		out := Sync(SyncInput{Pod: pod, Now: t0, Images: images, Memory: Memory{ImagePulls: map[string]ImagePullRecord{"other_db:1": old}}})
		if _, ok := out.Memory.ImagePulls["other_db:1"]; ok != c.kept {
			t.Errorf("an entry last updated %s before a successful pull: kept %v, want %v", c.age, ok, c.kept)
		}
	}
}

// Two containers of one image missing from the node: the first one's pull
// brings it, so the second, IfNotPresent, finds it present and the sync
// pulls once (EnsureImageExists checks the node's images before each
// container: image_manager.go:121 and 170 in v1.37.2).
func TestImagePulledOncePerSync(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "a", Image: "web:1"}, {Name: "b", Image: "web:1"}}})
	out := Sync(SyncInput{Pod: pod, Now: t0, Images: map[string]Image{"web:1": {Missing: true, Pulls: []Pull{{Took: Duration(time.Second)}}}}})
	pulls := 0
	for _, c := range out.Calls {
		if c.Method == "PullImage" {
			pulls++
		}
	}
	if pulls != 1 {
		t.Errorf("%d PullImage calls (%s), want 1", pulls, methods(out.Calls))
	}
}

// A failed pull's start error ErrImagePull carries the runtime's message
// (the script's), or the simulator's own when the script gives none; the
// back-off record keeps it prefixed with the reason (prevPullErrMsg).
func TestImagePullErrorMessage(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	for _, c := range []struct{ scripted, want string }{
		{"rpc error: code = NotFound desc = web:1 not found", "rpc error: code = NotFound desc = web:1 not found"},
		{"", `failed to pull and unpack image "web:1": the pull failed (scripted: images.pulls[].fails)`},
	} {
		out := Sync(SyncInput{Pod: pod, Now: t0, Images: map[string]Image{"web:1": {Missing: true, Pulls: []Pull{{Fails: true, Message: c.scripted}}}}})
		if f := out.Memory.StartFailures["app"]; f.Reason != "ErrImagePull" || f.Message != c.want {
			t.Errorf("scripted %q: start failure %+v, want ErrImagePull %q", c.scripted, f, c.want)
		}
		if r := out.Memory.ImagePulls[imageBackOffKey(pod, "web:1")]; r.LastError != "ErrImagePull: "+c.want {
			t.Errorf("scripted %q: back-off record's error %q", c.scripted, r.LastError)
		}
	}
}

// A pull that took time is said in the sync's messages (the sync waited
// for it); one that returned at once is not.
func TestImagePullWaitMessage(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	for _, c := range []struct {
		took time.Duration
		want string
	}{{2 * time.Second, `app: pulled image "web:1" in 2s; the sync waited for it`}, {0, ""}} {
		out := Sync(SyncInput{Pod: pod, Now: t0, Images: map[string]Image{"web:1": {Missing: true, Pulls: []Pull{{Took: Duration(c.took)}}}}})
		got := ""
		for _, m := range out.Messages {
			if strings.Contains(m, "pulled image") {
				got = m
			}
		}
		if got != c.want {
			t.Errorf("a pull of %s: message %q, want %q", c.took, got, c.want)
		}
	}
}
