package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// The fixture format written by ../capture (see capture/main.go).

type observation struct {
	Time    time.Time         `json:"time"`
	Until   time.Time         `json:"until"`
	Status  *v1.PodStatus     `json:"status,omitempty"`
	Runtime *runtimestate.Pod `json:"runtime"`
	// API is the API server's object, in fixtures captured with an API
	// server.
	API *apiObject `json:"api,omitempty"`
	// Pod is the pod at this step when its spec differs from the
	// fixture's pod (an ephemeral container was added).
	Pod *v1.Pod `json:"pod,omitempty"`
}

// podAt returns the pod as the kubelet held it at observation o.
func (f *fixture) podAt(o observation) *v1.Pod {
	if o.Pod != nil {
		return o.Pod
	}
	return f.Pod
}

type apiObject struct {
	ResourceVersion            string       `json:"resourceVersion"`
	DeletionTimestamp          *metav1.Time `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64       `json:"deletionGracePeriodSeconds,omitempty"`
	Finalizers                 []string     `json:"finalizers,omitempty"`
	Status                     v1.PodStatus `json:"status"`
	Gone                       bool         `json:"gone,omitempty"`
}

type event struct {
	Time time.Time `json:"time"`
	What string    `json:"what"`
}

type criCall struct {
	Time     time.Time `json:"time"`
	Done     time.Time `json:"done"`
	Method   string    `json:"method"`
	PodUID   string    `json:"podUID,omitempty"`
	Name     string    `json:"name,omitempty"`
	Attempt  uint32    `json:"attempt,omitempty"`
	Sandbox  string    `json:"sandboxID,omitempty"`
	ID       string    `json:"containerID,omitempty"`
	Timeout  *int64    `json:"timeoutSeconds,omitempty"`
	Error    string    `json:"error,omitempty"`
	Response string    `json:"responseID,omitempty"`
	Cmd      []string  `json:"cmd,omitempty"`
}

type fixture struct {
	Scenario     string            `json:"scenario"`
	Description  string            `json:"description"`
	Facts        []string          `json:"facts,omitempty"`
	Environment  map[string]string `json:"environment"`
	Pod          *v1.Pod           `json:"pod"`
	Events       []event           `json:"events"`
	Observations []observation     `json:"observations"`
	CRICalls     []criCall         `json:"criCalls"`
	KubeletLog   []string          `json:"kubeletLog,omitempty"`
}

// removedAt is when the harness removed the pod's manifest or deleted it
// through the API (the zero time if it never did).
func (f *fixture) removedAt() time.Time {
	for _, e := range f.Events {
		if e.What == "manifest removed" || e.What == "pod deleted" {
			return e.Time
		}
	}
	return time.Time{}
}

// containerSpec returns the spec of the container named name, in any list.
func (f *fixture) containerSpec(name string) *v1.Container {
	for i := range f.Pod.Spec.InitContainers {
		if f.Pod.Spec.InitContainers[i].Name == name {
			return &f.Pod.Spec.InitContainers[i]
		}
	}
	for i := range f.Pod.Spec.Containers {
		if f.Pod.Spec.Containers[i].Name == name {
			return &f.Pod.Spec.Containers[i]
		}
	}
	return nil
}

// instances returns every container instance seen in any observation, by ID,
// with the latest state seen.
func (f *fixture) instances() map[string]runtimestate.Container {
	out := map[string]runtimestate.Container{}
	for _, o := range f.Observations {
		for _, c := range o.Runtime.Containers {
			out[c.ID] = c
		}
	}
	return out
}

func loadFixtures(t *testing.T) []*fixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "captured", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no fixtures in ../testdata/captured")
	}
	sort.Strings(paths)
	var out []*fixture
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var f fixture
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if f.Pod == nil || len(f.Observations) == 0 {
			t.Fatalf("%s: no pod or no observations", p)
		}
		out = append(out, &f)
	}
	return out
}

func fixtureByName(t *testing.T, name string) *fixture {
	t.Helper()
	for _, f := range loadFixtures(t) {
		if f.Scenario == name {
			return f
		}
	}
	t.Fatalf("no fixture %q", name)
	return nil
}

func trimID(id string) string {
	if i := strings.Index(id, "://"); i >= 0 {
		return id[i+3:]
	}
	return id
}
