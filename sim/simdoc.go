package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// The simulation document's version: what NewSimulation writes and
// ReadSimulation accepts (the only version so far).
const (
	SimulationAPIVersion = "kubeletlogic/v1alpha1"
	SimulationKind       = "Simulation"
)

// Simulation is a simulation's inputs and its timeline: the document
// `kubeletlogic simulate -o json` prints. Replay runs the inputs again
// with Simulate alone; Verify checks that this gives the timeline the
// document holds.
type Simulation struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// KubeletVersion and GatesChanged are the kubelet version and the
	// gates that differ from its defaults ("Name=value", sorted), as
	// Config.Kubelet.Features holds them, for a reader that does not
	// parse the Set's text form. ReadSimulation checks that they agree
	// with it, and takes them when Config.Kubelet.Features is absent (a
	// document written before the Set had a JSON form).
	KubeletVersion string   `json:"kubeletVersion"`
	GatesChanged   []string `json:"gatesChanged,omitempty"`
	// Config and Pods are Simulate's arguments.
	Config Config     `json:"config"`
	Pods   []PodInput `json:"pods"`
	// Assumptions are what the writer took for granted (the command's
	// `assumed:` lines); informative, not read by Replay.
	Assumptions []string  `json:"assumptions,omitempty"`
	Timeline    *Timeline `json:"timeline"`
}

// NewSimulation returns the document of a simulation run with cfg and pods
// that gave tl.
func NewSimulation(cfg Config, pods []PodInput, tl *Timeline) Simulation {
	f := cfg.Kubelet.Features
	return Simulation{APIVersion: SimulationAPIVersion, Kind: SimulationKind,
		KubeletVersion: f.Version().String(), GatesChanged: f.Diff(),
		Config: cfg, Pods: pods, Timeline: tl}
}

// ReadSimulation reads a Simulation document (JSON, as NewSimulation's
// value marshals): strictly (an unknown field is an error), with
// apiVersion SimulationAPIVersion and kind SimulationKind, a known kubelet
// version and gates, at least one pod and a timeline. When
// config.kubelet.features is present it must agree with kubeletVersion and
// gatesChanged; when it is absent they give it.
//
// It mirrors no kubelet function: it reads this library's own format.
func ReadSimulation(data []byte) (*Simulation, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d Simulation
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("sim: simulation document: %w", err)
	}
	if dec.More() {
		return nil, errors.New("sim: simulation document: more than one JSON value")
	}
	switch {
	case d.APIVersion != SimulationAPIVersion:
		return nil, fmt.Errorf("sim: simulation document: apiVersion %q: this library reads %s", d.APIVersion, SimulationAPIVersion)
	case d.Kind != SimulationKind:
		hint := ""
		if d.Kind == ScriptKind {
			hint = " (a Script is what simulate --script reads: ReadScript)"
		}
		return nil, fmt.Errorf("sim: simulation document: kind %q: want %s%s", d.Kind, SimulationKind, hint)
	case len(d.Pods) == 0:
		return nil, errors.New("sim: simulation document: no pods")
	case d.Timeline == nil:
		return nil, errors.New("sim: simulation document: no timeline")
	}
	v, err := features.ParseVersion(d.KubeletVersion)
	if err != nil {
		return nil, fmt.Errorf("sim: simulation document: kubeletVersion: %w", err)
	}
	var stated features.Set
	if err := stated.UnmarshalText([]byte(strings.Join(append([]string{v.String()}, d.GatesChanged...), ","))); err != nil {
		return nil, fmt.Errorf("sim: simulation document: gatesChanged: %w", err)
	}
	var raw struct {
		Config struct {
			Kubelet struct {
				Features *json.RawMessage `json:"features"`
			} `json:"kubelet"`
		} `json:"config"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("sim: simulation document: %w", err)
	}
	switch {
	case raw.Config.Kubelet.Features == nil:
		d.Config.Kubelet.Features = stated
	case d.Config.Kubelet.Features != stated:
		return nil, fmt.Errorf("sim: simulation document: config.kubelet.features %s does not agree with kubeletVersion %s and gatesChanged %v", d.Config.Kubelet.Features, d.KubeletVersion, d.GatesChanged)
	}
	for i, p := range d.Pods {
		if p.Pod == nil {
			return nil, fmt.Errorf("sim: simulation document: pods[%d]: no pod", i)
		}
	}
	return &d, nil
}

// Replay runs the document's inputs again (Simulate with its Config and
// Pods) and returns the timeline; the document is not changed.
func (d *Simulation) Replay() (*Timeline, error) {
	if d == nil {
		return nil, errors.New("sim: no simulation document")
	}
	pods := make([]PodInput, len(d.Pods))
	for i, p := range d.Pods {
		pods[i] = p
		if p.Pod != nil {
			pods[i].Pod = p.Pod.DeepCopy()
		}
	}
	return Simulate(d.Config, pods)
}

// Verify replays the document and reports where the timeline it gets
// differs from the one the document holds (entries compared as their
// JSON), or nil when they are the same.
func (d *Simulation) Verify() error {
	if d == nil || d.Timeline == nil {
		return errors.New("sim: a simulation document without a timeline")
	}
	got, err := d.Replay()
	if err != nil {
		return err
	}
	return sameTimeline(d.Timeline, got)
}

// sameTimeline reports the first difference between the timeline want a
// document holds and the one got a replay gave, in JSON.
func sameTimeline(want, got *Timeline) error {
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			return "error: " + err.Error()
		}
		return string(b)
	}
	n := min(len(want.Entries), len(got.Entries))
	for i := 0; i < n; i++ {
		if w, g := js(want.Entries[i]), js(got.Entries[i]); w != g {
			return fmt.Errorf("sim: the replay differs at entry %d:\n  document: %s\n  replay:   %s", i, w, g)
		}
	}
	if len(want.Entries) != len(got.Entries) {
		return fmt.Errorf("sim: the replay has %d entries, the document %d (the first %d agree)", len(got.Entries), len(want.Entries), n)
	}
	for _, f := range []struct {
		name string
		w, g any
	}{{"start", want.Start, got.Start}, {"end", want.End, got.End}, {"seed", want.Seed, got.Seed}, {"syncs", want.Syncs, got.Syncs}} {
		if w, g := js(f.w), js(f.g); w != g {
			return fmt.Errorf("sim: the replay's %s is %s, the document's %s", f.name, g, w)
		}
	}
	return nil
}
