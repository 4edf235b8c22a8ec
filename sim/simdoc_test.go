package sim

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// drawGates draws a kubelet version and gates changed from its defaults.
func drawGates(t *rapid.T) features.Set {
	v := rapid.SampledFrom(features.Versions()).Draw(t, "kubelet version")
	s, err := features.ForVersion(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []features.Gate{features.ReduceDefaultCrashLoopBackOffDecay, features.RestartAllContainersOnContainerExits, features.ContainerRestartRules, features.KubeletCrashLoopBackOffMax} {
		if v.Has(g) && rapid.Bool().Draw(t, "flip "+string(g)) {
			if s, err = s.With(g, !s.Enabled(g)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

// TestSimulationDocumentReplays: for random pods, scripts, actions, seeds,
// kubelet versions and gates, the document of a simulation, written as
// JSON and read back by ReadSimulation, replays (Simulate alone, from the
// document) to the very timeline it holds, entry for entry in JSON; and
// a document written before features had a JSON form (no
// config.kubelet.features) replays the same from kubeletVersion and
// gatesChanged.
func TestSimulationDocumentReplays(t *testing.T) {
	ran, notUTF8 := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		span := time.Duration(rapid.IntRange(20, 200).Draw(t, "span seconds")) * time.Second
		var pods []PodInput
		for i := range rapid.IntRange(1, 2).Draw(t, "pods") {
			pods = append(pods, drawInput(t, i, span))
		}
		cfg := Config{Seed: rapid.Uint64().Draw(t, "seed"), For: Duration(span), Kubelet: Kubelet{Features: drawGates(t)}}
		if rapid.Bool().Draw(t, "sync frequency") {
			cfg.Kubelet.SyncFrequency = Duration(time.Duration(rapid.IntRange(10, 90).Draw(t, "sync seconds")) * time.Second)
		}
		tl, err := Simulate(cfg, pods)
		if err != nil {
			t.Skipf("Simulate refuses these inputs: %v", err)
		}
		ran++
		doc := NewSimulation(cfg, pods, tl)
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		read, err := ReadSimulation(b)
		if err != nil {
			t.Fatalf("ReadSimulation: %v", err)
		}
		if bytes.Contains(b, []byte(`\ufffd`)) {
			// podgen draws strings that are not UTF-8, which no API
			// server holds and JSON cannot carry: the document holds
			// another pod (another image name, so another container
			// hash) than the one simulated.
			notUTF8++
			t.Skip("inputs with strings that are not UTF-8")
		}
		if read.Config.Kubelet.Features != cfg.Kubelet.Features {
			t.Fatalf("features read back as %v, written %v", read.Config.Kubelet.Features, cfg.Kubelet.Features)
		}
		// The timeline the document holds is the one printed: reading
		// it loses nothing (JSON writes a string that is not UTF-8 with
		// U+FFFD, as an escape; read back, it is the character).
		var printed struct {
			Timeline json.RawMessage `json:"timeline"`
		}
		if err := json.Unmarshal(b, &printed); err != nil {
			t.Fatal(err)
		}
		var want, again bytes.Buffer
		if err := json.Compact(&want, printed.Timeline); err != nil {
			t.Fatal(err)
		}
		rb, _ := json.Marshal(read.Timeline)
		if err := json.Compact(&again, rb); err != nil {
			t.Fatal(err)
		}
		if w, a := strings.ReplaceAll(want.String(), `\ufffd`, "\uFFFD"), again.String(); w != a {
			t.Fatalf("the timeline read back is not the one printed")
		}
		if err := read.Verify(); err != nil {
			t.Fatalf("the replay of the document differs from the timeline it holds: %v", err)
		}
		// The same document without config.kubelet.features.
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if k, ok := m["config"].(map[string]any)["kubelet"].(map[string]any); ok {
			delete(k, "features")
		}
		old, _ := json.Marshal(m)
		oldDoc, err := ReadSimulation(old)
		if err != nil {
			t.Fatalf("ReadSimulation without config.kubelet.features: %v", err)
		}
		if oldDoc.Config.Kubelet.Features != cfg.Kubelet.Features {
			t.Fatalf("features from kubeletVersion and gatesChanged: %v, want %v", oldDoc.Config.Kubelet.Features, cfg.Kubelet.Features)
		}
		if err := oldDoc.Verify(); err != nil {
			t.Fatalf("Verify without config.kubelet.features: %v", err)
		}
	})
	t.Logf("%d simulations, %d of them with strings that are not UTF-8", ran, notUTF8)
	if ran-notUTF8 < ran/2 {
		t.Fatalf("%d of %d simulations replayed", ran-notUTF8, ran)
	}
}

// TestSimulationDocumentChecks: Verify finds a timeline that is not the
// replay's; ReadSimulation refuses what it cannot replay faithfully.
func TestSimulationDocumentChecks(t *testing.T) {
	pod := testPod(v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1"}}})
	cfg := Config{For: Duration(2 * time.Minute)}
	cfg.Kubelet.Features, _ = features.V1_36().With(features.ReduceDefaultCrashLoopBackOffDecay, true)
	pods := []PodInput{{Pod: pod, Script: Script{Containers: map[string]Behaviour{"app": {Runs: []Run{{ExitAfter: Duration(5 * time.Second), ExitCode: 1}}}}}}}
	tl, err := Simulate(cfg, pods)
	if err != nil {
		t.Fatal(err)
	}
	doc := NewSimulation(cfg, pods, tl)
	if doc.KubeletVersion != "v1.36.3" || strings.Join(doc.GatesChanged, ",") != "ReduceDefaultCrashLoopBackOffDecay=true" {
		t.Errorf("document header: %s %v", doc.KubeletVersion, doc.GatesChanged)
	}
	b, _ := json.Marshal(doc)
	if !bytes.Contains(b, []byte(`"features":"v1.36.3,ReduceDefaultCrashLoopBackOffDecay=true"`)) {
		t.Errorf("config.kubelet.features not written: %s", b[:min(len(b), 400)])
	}
	good, err := ReadSimulation(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Verify(); err != nil {
		t.Fatal(err)
	}

	// A timeline changed in one entry, one entry short, or run with
	// another seed is not the replay's.
	tampered := *good
	tl2 := *good.Timeline
	tl2.Entries = append([]Entry(nil), tl2.Entries...)
	tl2.Entries[len(tl2.Entries)/2].At += time.Millisecond
	tampered.Timeline = &tl2
	if err := tampered.Verify(); err == nil || !strings.Contains(err.Error(), "differs at entry") {
		t.Errorf("a changed entry: %v", err)
	}
	tl3 := *good.Timeline
	tl3.Entries = tl3.Entries[:len(tl3.Entries)-1]
	tampered.Timeline = &tl3
	if err := tampered.Verify(); err == nil {
		t.Error("a missing entry passes")
	}
	reseeded := *good
	reseeded.Config.Seed = 99
	if err := reseeded.Verify(); err == nil {
		t.Error("another seed replays to the same timeline")
	}
	regated := *good
	regated.Config.Kubelet.Features = features.V1_36()
	if err := regated.Verify(); err == nil {
		t.Error("other gates replay to the same timeline")
	}

	edit := func(from, to string) []byte {
		if !bytes.Contains(b, []byte(from)) {
			t.Fatalf("the document has no %s", from)
		}
		return bytes.Replace(b, []byte(from), []byte(to), 1)
	}
	for _, tc := range []struct {
		doc  []byte
		want string
	}{
		{edit(`"apiVersion":"kubeletlogic/v1alpha1"`, `"apiVersion":"kubeletlogic/v2"`), `apiVersion "kubeletlogic/v2"`},
		{edit(`"kind":"Simulation"`, `"kind":"Script"`), `ReadScript`},
		{edit(`"kubeletVersion":"v1.36.3"`, `"kubeletVersion":"v1.38.0"`), `not modelled`},
		{edit(`"kubeletVersion":"v1.36.3"`, `"kubeletVersion":"v1.37.2"`), `does not agree`},
		{edit(`"gatesChanged":["ReduceDefaultCrashLoopBackOffDecay=true"]`, `"gatesChanged":["ReduceDefaultCrashLoopBackOffDecy=true"]`), `did you mean "ReduceDefaultCrashLoopBackOffDecay"`},
		{edit(`"features":"v1.36.3,ReduceDefaultCrashLoopBackOffDecay=true"`, `"features":"v1.36.3"`), `does not agree`},
		{edit(`"seed":`, `"sede":`), `unknown field "sede"`},
		{edit(`"timeline":{`, `"timelime":{`), `unknown field`},
		{append(append([]byte{}, b...), []byte(` {}`)...), `more than one`},
		{[]byte(`{"apiVersion":"kubeletlogic/v1alpha1","kind":"Simulation","kubeletVersion":"v1.37.2","config":{},"pods":[],"timeline":{}}`), `no pods`},
		{[]byte(`{"apiVersion":"kubeletlogic/v1alpha1","kind":"Simulation","kubeletVersion":"v1.37.2","config":{},"pods":[{"pod":null}],"timeline":{}}`), `pods[0]: no pod`},
		{[]byte(`{"apiVersion":"kubeletlogic/v1alpha1","kind":"Simulation","kubeletVersion":"v1.37.2","config":{},"pods":[{"pod":{}}]}`), `no timeline`},
	} {
		if _, err := ReadSimulation(tc.doc); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadSimulation: error %v, want one saying %q", err, tc.want)
		}
	}
	var nilDoc *Simulation
	if _, err := nilDoc.Replay(); err == nil {
		t.Error("a nil document replays")
	}
}
