package sim_test

import (
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/manifest"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// TestNextDefaultsAManifest: Next reads a manifest as written (a
// Deployment's template, as the README's sketch feeds it) as the pod the
// API server stores, as Simulate and the command do: here an unset
// terminationGracePeriodSeconds is 30 s, so a liveness kill gets
// StopContainer timeout 30 s, not the 2 s minimum the kubelet would give a
// pod without one (setTerminationGracePeriod, kuberuntime_container.go),
// which no API server stores. The pod passed in is not modified.
func TestNextDefaultsAManifest(t *testing.T) {
	pod, err := manifest.Pod([]byte(`{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop},
  spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {
  containers: [{name: app, image: nginx:1, livenessProbe: {httpGet: {port: 8080}}}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	st, err := runtimestate.FromYAML([]byte(`{sandboxes: [{id: s1, ready: true}], containers: [
  {id: c1, name: app, sandboxID: s1, state: running, createdAt: "2026-01-01T10:00:00Z", startedAt: "2026-01-01T10:00:00Z"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	o := sim.NextOptions{Probes: map[string]vocab.ProbeResults{"c1": {Liveness: vocab.ProbeFailure}}, Now: time.Date(2026, 1, 1, 10, 1, 0, 0, time.UTC)}

	got := sim.Next(pod, st, o)
	if pod.Spec.TerminationGracePeriodSeconds != nil || pod.Spec.RestartPolicy != "" {
		t.Fatalf("Next modified the pod passed in: %+v", pod.Spec)
	}
	stored := apidefaults.PodCopy(pod)
	apidefaults.Created(stored)
	want := sim.Next(stored, st, o)
	if got.String() != want.String() {
		t.Errorf("Next on the manifest as written:\n%s\nNext on the pod as stored:\n%s", got, want)
	}
	var stop *sim.Call
	for i := range got.Calls {
		if got.Calls[i].Method == "StopContainer" {
			stop = &got.Calls[i]
		}
	}
	if stop == nil || stop.Timeout == nil || *stop.Timeout != 30 {
		t.Errorf("liveness kill of a manifest without terminationGracePeriodSeconds: want StopContainer timeout 30s (the API server's default), got %+v\n%s", stop, got)
	}
}
