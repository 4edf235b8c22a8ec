package sim

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// A probe worker's result entries read as the result they carry, with the
// worker's note (a timeout) and as a probe's or as the initial result for
// a new container, however they follow one another: a message made once
// is reused only for the same result, note and kind of result.
func TestProbeResultLines(t *testing.T) {
	w := &prober{container: &v1.Container{Name: "app"}, kind: "readiness"}
	steps := []struct {
		r       vocab.ProbeResult
		note    string
		seeding bool
		want    string
	}{
		{vocab.ProbeFailure, "", true, "readiness of app: Failure (the initial result for a new container)"},
		{vocab.ProbeSuccess, "", false, "readiness probe of app: Success"},
		{vocab.ProbeFailure, "", false, "readiness probe of app: Failure"},
		{vocab.ProbeFailure, " (timed out after 1s)", false, "readiness probe of app: Failure (timed out after 1s)"},
		{vocab.ProbeFailure, "", true, "readiness of app: Failure (the initial result for a new container)"},
		{vocab.ProbeSuccess, "", false, "readiness probe of app: Success"},
		{vocab.ProbeFailure, "", false, "readiness probe of app: Failure"},
		{vocab.ProbeFailure, " (timed out after 1s)", false, "readiness probe of app: Failure (timed out after 1s)"},
	}
	for i, s := range steps {
		w.note, w.seeding = s.note, s.seeding
		if got := w.resultLine(s.r); got != s.want {
			t.Errorf("step %d: %q, want %q", i, got, s.want)
		}
	}
}
