package node

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// ScriptAnnotation is the pod annotation that gives a pod's behaviour: a
// script in the format of `kubeletlogic simulate --script` (sim.ScriptFile,
// YAML or JSON), read against the pod. Its version is the script's own
// apiVersion (kubeletlogic/v1alpha1, the only one so far; absent means
// it). The containers it names follow it; the others follow the node's
// defaults (PodOptions.JobRunTime). Of its actions, killContainer and
// killSandbox happen at their time after the pod reached the node; the
// others (delete, remove, removeFinalizers, addEphemeral, resize) are what
// a user does through the API server and are ignored here, with a Warning
// Event saying so. A script that does not read, or does not fit the pod,
// gets a Warning Event (reason KubeletlogicScriptInvalid) with the error,
// and the pod follows the defaults.
const ScriptAnnotation = "kubeletlogic.io/script"

// DefaultJobRunTime is PodOptions.JobRunTime's default.
const DefaultJobRunTime = 10 * time.Second

// PodOptions says how the nodes run their pods. The zero value runs every
// pod bound to a node of the Standalone.
type PodOptions struct {
	// Disabled leaves pods alone: the nodes only register and heartbeat.
	Disabled bool
	// JobRunTime is how long each regular container of a pod whose
	// controller is a Job runs before it exits with code 0; 0 means
	// DefaultJobRunTime. The containers of other pods run until they are
	// stopped (and exit at once on SIGTERM with code 0).
	JobRunTime time.Duration
	// Seed seeds the kubelet's random choices (requeue jitter, the phases
	// of its periodic loops) on each node, mixed with the node's index.
	Seed uint64
}

// timedAction is a script action due at a time.
type timedAction struct {
	at     time.Time
	action sim.Action
}

// podScript is the behaviour of a pod: the node's defaults for its owner,
// overridden per container by its ScriptAnnotation. problems are what is
// wrong with the annotation (nil when it is fine or absent): the pod then
// follows the defaults alone, or the annotation's usable parts; actions
// are the kill actions of the annotation, counted from added.
func podScript(pod *v1.Pod, o PodOptions, added time.Time) (s sim.Script, actions []timedAction, problems []string) {
	s = defaultScript(pod, o, added)
	text, ok := pod.Annotations[ScriptAnnotation]
	if !ok {
		return s, nil, nil
	}
	f, err := sim.ReadScript([]byte(text), []*v1.Pod{pod})
	if err != nil {
		return s, nil, []string{fmt.Sprintf("annotation %s: %v; the pod follows the node's defaults", ScriptAnnotation, err)}
	}
	ps := f.PodScript(pod)
	for name, b := range ps.Containers {
		if s.Containers == nil {
			s.Containers = map[string]sim.Behaviour{}
		}
		s.Containers[name] = b
	}
	s.Runtime = ps.Runtime
	var ignored []string
	for _, a := range f.Actions {
		if a.KillContainer != "" || a.KillSandbox {
			actions = append(actions, timedAction{at: added.Add(a.At.D()), action: a.Action()})
			continue
		}
		ignored = append(ignored, a.Action().String())
	}
	if len(ignored) > 0 {
		problems = append(problems, fmt.Sprintf("annotation %s: actions done through the API server are ignored here (do them with the API): %s",
			ScriptAnnotation, strings.Join(ignored, "; ")))
	}
	return s, actions, problems
}

// KWOK's pod-complete stage (kustomize/stage/pod/general/pod-complete.yaml
// in KWOK v0.8.0) completes a Job's pod (restartPolicy Never or
// OnFailure) a delay after it is Running and Ready, read from these
// annotations: a Go duration, or an RFC 3339 time (the delay is then
// that time minus now); with a jitter delay too, the delay is drawn
// uniformly between the two. Here they mean the same for the default
// behaviour of a Job's pod: each regular container exits 0 that long
// after it started (instead of PodOptions.JobRunTime), drawn once per pod
// from the node's seed and the pod's UID. A value that does not parse is
// ignored, as KWOK ignores it (its stage default then applies: here
// JobRunTime).
const (
	KwokCompleteDelayAnnotation  = "pod-complete.stage.kwok.x-k8s.io/delay"
	KwokCompleteJitterAnnotation = "pod-complete.stage.kwok.x-k8s.io/jitter-delay"
)

// kwokDuration reads a KWOK duration annotation value: a Go duration or
// an RFC 3339 time counted from now.
func kwokDuration(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.Sub(now), true
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d, true
	}
	return 0, false
}

// jobRunTime is how long a Job's regular containers run by default: the
// KWOK pod-complete delay annotations when they parse, else JobRunTime.
func jobRunTime(pod *v1.Pod, o PodOptions, now time.Time) time.Duration {
	d := o.JobRunTime
	if d <= 0 {
		d = DefaultJobRunTime
	}
	if rp := pod.Spec.RestartPolicy; rp != v1.RestartPolicyNever && rp != v1.RestartPolicyOnFailure {
		// KWOK's stage completes only Never and OnFailure pods (the
		// API server defaults an empty policy to Always).
		return d
	}
	kd, ok := kwokDuration(pod.Annotations[KwokCompleteDelayAnnotation], now)
	if !ok {
		return d
	}
	if j, ok := kwokDuration(pod.Annotations[KwokCompleteJitterAnnotation], now); ok && j > kd {
		h := fnv.New64a()
		_, _ = h.Write([]byte(pod.UID))
		r := rand.New(rand.NewPCG(o.Seed, h.Sum64()))
		kd += time.Duration(r.Int64N(int64(j - kd)))
	}
	if kd <= 0 {
		// Due already: exits at once (an ExitAfter of 0 would mean
		// "runs until stopped").
		kd = time.Nanosecond
	}
	return kd
}

// defaultScript is the node's behaviour for a pod with no script: a pod
// whose controller is a Job has each regular container exit 0 after
// jobRunTime (JobRunTime, or KWOK's pod-complete delay), every run; any
// other container runs until stopped.
func defaultScript(pod *v1.Pod, o PodOptions, now time.Time) sim.Script {
	var s sim.Script
	ref := controllerOf(pod)
	if ref == nil || ref.Kind != "Job" {
		return s
	}
	d := jobRunTime(pod, o, now)
	s.Containers = map[string]sim.Behaviour{}
	for _, c := range pod.Spec.Containers {
		s.Containers[c.Name] = sim.Behaviour{Runs: []sim.Run{{ExitAfter: sim.Duration(d)}}}
	}
	return s
}

// controllerOf is the owner reference marked controller, or nil.
func controllerOf(pod *v1.Pod) *v1OwnerRef {
	for _, r := range pod.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return &v1OwnerRef{Kind: r.Kind, Name: r.Name}
		}
	}
	return nil
}

type v1OwnerRef struct{ Kind, Name string }
