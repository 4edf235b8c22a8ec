package sim

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/internal/nearest"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Image pulls, as the kubelet makes them before it creates a container
// (pkg/kubelet/kuberuntime/kuberuntime_container.go startContainer, step 1;
// pkg/kubelet/images/image_manager.go EnsureImageExists, pullImage):
//
//   - imagePullPolicy Never: an image not on the node is the start error
//     ErrImageNeverPull ("Container image %q is not present with pull
//     policy of Never"), with no pull and no back-off;
//   - IfNotPresent: an image on the node is used as it is; Always: the
//     image is pulled at every container start;
//   - before a pull, the image back-off (a flowcontrol.Backoff of 10 s
//     initial, 300 s max, no jitter: kubelet.go imageBackOffPeriod,
//     MaxImageBackOff) keyed "<pod UID>_<image>": while the time since its
//     last failed pull is below its window the pull is not tried and the
//     start error is ImagePullBackOff ("Back-off pulling image %q: " and
//     the last pull's error); a failed pull is ErrImagePull with the
//     runtime's message and moves the back-off on (10, 20, 40 … 300 s; an
//     entry untouched for 600 s starts again at 10 s); a successful pull
//     drops the expired entries (Backoff.GC);
//   - the pull runs inside SyncPod, which waits for it (the pod's worker
//     is blocked meanwhile); a start error goes to the reason cache, so the
//     status the next sync generates shows the container waiting with it,
//     and the pod is requeued as after any error (J(10 s)).
//
// The puller's serialisation across pods (serializeImagePulls, default
// true: images/puller.go serialImagePuller) is not modelled: pods on the
// simulated node share nothing, so each pod's pulls run as if the node
// pulled nothing else (within one pod the kubelet pulls one image at a
// time in any case: SyncPod starts its containers one after another), and
// an image one pod pulled is not present for another.

// Image is how one image behaves on the node: whether it is there and how
// each pull of it goes. An image the script does not list is on the node
// and every pull of it succeeds at once, with no PullImage call listed.
type Image struct {
	// Missing says the image is not on the node when the pod arrives.
	// Once a pull succeeds the image is present.
	Missing bool `json:"missing,omitempty"`
	// Pulls are the successive pulls of the image from the pod's
	// containers: Pulls[0] the first, the last entry repeats for every
	// later one. No entry: every pull succeeds at once.
	Pulls []Pull `json:"pulls,omitempty"`
}

// Pull is one pull of an image: how long the runtime's PullImage takes
// (until it succeeds or fails) and whether it fails, with the runtime's
// error message (empty: a message of the simulator's own).
type Pull struct {
	Took    Duration `json:"took,omitempty"`
	Fails   bool     `json:"fails,omitempty"`
	Message string   `json:"message,omitempty"`
}

// pull returns pull number n (0 for the first).
func (im Image) pull(n int) Pull { return nthRepeatingLast(im.Pulls, n) }

// present says whether the image is on the node after n pulls.
func (im Image) present(n int) bool {
	if !im.Missing {
		return true
	}
	for i := 0; i < n; i++ {
		if !im.pull(i).Fails {
			return true
		}
	}
	return false
}

// ImagePullRecord is what the kubelet's image manager remembers about the
// pulls of one image for one pod: the image back-off entry and the last
// failed pull's error (prevPullErrMsg), which the back-off message wraps.
type ImagePullRecord struct {
	BackOff   restart.BackOffEntry `json:"backOff,omitzero"`
	LastError string               `json:"lastError,omitempty"`
}

// The image back-off's settings (kubelet.go imageBackOffPeriod,
// MaxImageBackOff; the flowcontrol default expiry of twice the max).
const (
	imageBackOffInitial = 10 * time.Second
	imageBackOffMax     = 300 * time.Second
	imageBackOffExpiry  = 2 * imageBackOffMax
)

// The start errors of image pulls (images/types.go).
const (
	reasonErrImagePull      = "ErrImagePull"
	reasonImagePullBackOff  = "ImagePullBackOff"
	reasonErrImageNeverPull = "ErrImageNeverPull"
)

// imageBackOffKey is the image back-off's key (image_manager.go pullImage).
func imageBackOffKey(pod *v1.Pod, image string) string {
	return fmt.Sprintf("%s_%s", pod.UID, image)
}

// imageInBackOff is flowcontrol's IsInBackOffSinceUpdate: the entry is not
// expired and less than its window has passed since its last update.
func imageInBackOff(e restart.BackOffEntry, now time.Time) bool {
	if e.IsZero() || now.Sub(e.LastUpdate) > imageBackOffExpiry {
		return false
	}
	return now.Sub(e.LastUpdate) < e.Delay
}

// imageBackOffNext is flowcontrol's Next after a failed pull at now.
func imageBackOffNext(e restart.BackOffEntry, now time.Time) restart.BackOffEntry {
	if e.IsZero() || now.Sub(e.LastUpdate) > imageBackOffExpiry {
		return restart.BackOffEntry{Delay: imageBackOffInitial, LastUpdate: now}
	}
	return restart.BackOffEntry{Delay: min(2*e.Delay, imageBackOffMax), LastUpdate: now}
}

// ensureImage is EnsureImageExists for container c before its creation:
// it pulls when the policy says so (a PullImage call for an image the
// script lists), and on a start error puts it in the reason cache and
// reports false.
func (s *syncer) ensureImage(c *v1.Container) bool {
	m := &s.out.Memory
	image := c.Image
	im, listed := s.in.Images[image]
	n := s.in.ImagePulls[image] + s.pulled[image]
	present := im.present(n)
	fail := func(reason, msg string) bool {
		m.StartFailures[c.Name] = vocab.StartFailure{Reason: reason, Message: msg}
		s.out.Messages = append(s.out.Messages, fmt.Sprintf("%s: start error %s: %s", c.Name, reason, msg))
		return false
	}
	switch c.ImagePullPolicy {
	case v1.PullNever:
		if !present {
			return fail(reasonErrImageNeverPull, fmt.Sprintf("Container image %q is not present with pull policy of Never", image))
		}
		return true
	case v1.PullAlways:
	default: // IfNotPresent (the API server's default for a tagged image)
		if present {
			return true
		}
	}
	key := imageBackOffKey(s.pod, image)
	rec := m.ImagePulls[key]
	if imageInBackOff(rec.BackOff, s.now()) {
		msg := fmt.Sprintf("Back-off pulling image %q", image)
		if rec.LastError != "" {
			msg += ": " + rec.LastError
		}
		return fail(reasonImagePullBackOff, msg)
	}
	p := im.pull(n)
	if s.pulled == nil {
		s.pulled = map[string]int{}
	}
	s.pulled[image]++
	if listed {
		s.call(Call{Method: "PullImage", Name: c.Name, Image: image, PullFailed: p.Fails}, p.Took.D())
	}
	if p.Fails {
		msg := p.Message
		if msg == "" {
			msg = fmt.Sprintf("failed to pull and unpack image %q: the pull failed (scripted: images.pulls[].fails)", image)
		}
		rec.BackOff = imageBackOffNext(rec.BackOff, s.now())
		rec.LastError = reasonErrImagePull + ": " + msg
		if m.ImagePulls == nil {
			m.ImagePulls = map[string]ImagePullRecord{}
		}
		m.ImagePulls[key] = rec
		return fail(reasonErrImagePull, msg)
	}
	// A successful pull drops the expired back-off entries (Backoff.GC).
	for k, r := range m.ImagePulls {
		if !r.BackOff.IsZero() && s.now().Sub(r.BackOff.LastUpdate) > imageBackOffExpiry {
			delete(m.ImagePulls, k)
		}
	}
	if listed && p.Took > 0 {
		s.out.Messages = append(s.out.Messages, fmt.Sprintf("%s: pulled image %q in %s; the sync waited for it", c.Name, image, p.Took))
	}
	return true
}

// checkImages reports a script image no container of the pod (or an
// ephemeral container its actions add) uses, and negative pull times.
func (s Script) checkImages(pod *v1.Pod, actions []Action) error {
	used := map[string]bool{}
	var images []string
	use := func(img string) {
		if !used[img] {
			used[img] = true
			images = append(images, img)
		}
	}
	for _, c := range keycheck.Containers(pod) {
		use(c.Image)
	}
	for _, a := range actions {
		if a.AddEphemeral != nil {
			use(a.AddEphemeral.Image)
		}
	}
	sort.Strings(images)
	var errs []error
	for _, img := range keycheck.Sorted(s.Images) {
		if !used[img] {
			errs = append(errs, fmt.Errorf("script: images.%s: no container of pod %s uses this image%s (its images: %s)", img, keycheck.PodName(pod), nearest.Suggest(img, images), strings.Join(images, ", ")))
			continue
		}
		for i, p := range s.Images[img].Pulls {
			if p.Took < 0 {
				errs = append(errs, fmt.Errorf("script: images.%s.pulls[%d].took: negative duration %s", img, i, p.Took))
			}
		}
	}
	return errors.Join(errs...)
}

// pullText is how a PullImage call reads in a timeline.
func pullText(c Call) string {
	out := fmt.Sprintf(" %s for %s", c.Image, c.Name)
	if c.PullFailed {
		out += " (failed)"
	}
	return out
}

// countPull counts a PullImage call the runtime carried out.
func (p *podSim) countPull(c Call) {
	if p.pulls == nil {
		p.pulls = map[string]int{}
	}
	p.pulls[c.Image]++
}

// podImages are the file's images that pod's containers (or the ephemeral
// containers the file's actions add) use.
func (f *ScriptFile) podImages(pod *v1.Pod) map[string]Image {
	var out map[string]Image
	take := func(img string) {
		if im, ok := f.Images[img]; ok {
			if out == nil {
				out = map[string]Image{}
			}
			out[img] = im
		}
	}
	for _, c := range keycheck.Containers(pod) {
		take(c.Image)
	}
	for _, a := range f.Actions {
		if a.AddEphemeral != nil {
			take(a.AddEphemeral.Image)
		}
	}
	return out
}

// checkFileImages reports, with its line, an image of the file no
// container of the pods uses, and a negative pull time.
func (f *ScriptFile) checkFileImages(pods []*v1.Pod, fail func(path []pathSeg, format string, args ...any) error) error {
	used := map[string]bool{}
	var images []string
	use := func(img string) {
		if !used[img] {
			used[img] = true
			images = append(images, img)
		}
	}
	for _, p := range pods {
		for _, c := range keycheck.Containers(p) {
			use(c.Image)
		}
	}
	for _, a := range f.Actions {
		if a.AddEphemeral != nil {
			use(a.AddEphemeral.Image)
		}
	}
	sort.Strings(images)
	for _, img := range keycheck.Sorted(f.Images) {
		at := []pathSeg{{key: "images"}, {key: img}}
		if !used[img] {
			return fail(at, "%q is not the image of any container of the pods%s (their images: %s)", img, nearest.Suggest(img, images), strings.Join(images, ", "))
		}
		for i, p := range f.Images[img].Pulls {
			if p.Took < 0 {
				return fail(append(at, pathSeg{key: "pulls"}, pathSeg{index: i, isIndex: true}, pathSeg{key: "took"}), "%s: want 0s or more", p.Took)
			}
		}
	}
	return nil
}
