// Package captured is the format of the captured scenarios in
// testdata/captured: what the capture program (../capture, run by hand
// against a real kubelet v1.37.2) writes and what the replay tests
// (../replay) read. One definition for both; a user can write a fixture of
// their own in this format and replay it. tooling/capture/README.md describes each
// field.
package captured

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Fixture is one scenario file. Facts are the numbers of the real-cluster
// facts the scenario reproduces (docs/real-cluster-facts.md#fact-N).
type Fixture struct {
	Scenario    string            `json:"scenario"`
	Description string            `json:"description"`
	Facts       []string          `json:"facts,omitempty"`
	Environment map[string]string `json:"environment"`
	// Pod is the pod as the kubelet held it (defaults applied, status
	// cleared).
	Pod *v1.Pod `json:"pod"`
	// Events are what the harness did, when.
	Events []Event `json:"events"`
	// Observations are time-ordered.
	Observations []Observation `json:"observations"`
	// CRICalls are the kubelet's CRI calls for the pod.
	CRICalls []CRICall `json:"criCalls"`
	// KubeletLog holds the kubelet's log lines about the pod that show
	// decisions.
	KubeletLog []string `json:"kubeletLog,omitempty"`
}

// Observation is the kubelet's status and the runtime's view at one moment:
// Time is the first poll that saw the combination, Until the last.
type Observation struct {
	Time  time.Time `json:"time"`
	Until time.Time `json:"until"`
	// Status is the kubelet's .status, absent once the kubelet dropped the
	// pod (or while it did not answer, during a kubelet restart).
	Status  *v1.PodStatus     `json:"status,omitempty"`
	Runtime *runtimestate.Pod `json:"runtime"`
	// API is the API server's object (API-server mode only).
	API *APIObject `json:"api,omitempty"`
	// Pod is the pod as the kubelet holds it at this observation when its
	// spec differs from the fixture's pod (an ephemeral container was
	// added, the pod was resized).
	Pod *v1.Pod `json:"pod,omitempty"`
}

// APIObject is what the API server holds for the pod at one moment.
type APIObject struct {
	ResourceVersion string `json:"resourceVersion"`
	// Generation is the object's metadata.generation (recorded from the
	// third API capture on; 0 in older fixtures).
	Generation                 int64        `json:"generation,omitempty"`
	DeletionTimestamp          *metav1.Time `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64       `json:"deletionGracePeriodSeconds,omitempty"`
	Finalizers                 []string     `json:"finalizers,omitempty"`
	Status                     v1.PodStatus `json:"status"`
	// Gone is true when GET answered 404.
	Gone bool `json:"gone,omitempty"`
}

// Event is something the harness did.
type Event struct {
	Time time.Time `json:"time"`
	What string    `json:"what"`
	// Object is, for a write of the harness on the scenario's pod through
	// the API (status PATCH, resize, DELETE, ...), the object the API
	// server answered with: the version the write made (recorded from the
	// third API capture on). A status equal to its status was last written
	// by the harness, not by the kubelet.
	Object *APIObject `json:"object,omitempty"`
}

// CRICall is one CRI call of the kubelet, as a proxy between the kubelet
// and the runtime saw it.
type CRICall struct {
	Time    time.Time `json:"time"`
	Done    time.Time `json:"done"`
	Method  string    `json:"method"`
	PodUID  string    `json:"podUID,omitempty"`
	Name    string    `json:"name,omitempty"`
	Attempt uint32    `json:"attempt,omitempty"`
	Sandbox string    `json:"sandboxID,omitempty"`
	ID      string    `json:"containerID,omitempty"`
	// Timeout is StopContainer's and ExecSync's timeout.
	Timeout  *int64   `json:"timeoutSeconds,omitempty"`
	Error    string   `json:"error,omitempty"`
	Response string   `json:"responseID,omitempty"`
	Cmd      []string `json:"cmd,omitempty"`
	// Image is PullImage's image reference (the response's image ref is in
	// Response); recorded from the registry capture on.
	Image string `json:"image,omitempty"`
	// Resources are UpdateContainerResources' Linux resources.
	Resources *LinuxResources `json:"resources,omitempty"`
}

// LinuxResources is the part of the CRI's LinuxContainerResources that an
// in-place resize changes.
type LinuxResources struct {
	CPUShares        int64 `json:"cpuShares,omitempty"`
	CPUQuota         int64 `json:"cpuQuota,omitempty"`
	CPUPeriod        int64 `json:"cpuPeriod,omitempty"`
	MemoryLimitBytes int64 `json:"memoryLimitBytes,omitempty"`
}

// Decode reads a fixture strictly: an unknown field is an error, and so are
// a missing pod or no observation.
func Decode(b []byte) (*Fixture, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f Fixture
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if f.Pod == nil || len(f.Observations) == 0 {
		return nil, fmt.Errorf("no pod or no observations")
	}
	return &f, nil
}

// Load reads the fixture file at path (see Decode).
func Load(path string) (*Fixture, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}
