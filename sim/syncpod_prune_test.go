package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubeletlogic/kubeletlogic/manifest"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// SyncPod prunes init containers before it starts anything
// (pruneInitContainersBeforeStart, kuberuntime_container.go): of each init
// container's exited (or unknown) instances only the newest is kept; other
// containers' instances, and an init container's running one, are not
// counted or touched.
func TestSyncPrunesOnlyOldInitInstances(t *testing.T) {
	pod, err := manifest.Pod([]byte(`
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, uid: 0b5e1a9c-0000-4000-8000-000000000005}
spec:
  initContainers:
  - {name: prep, image: busybox}
  - {name: proxy, image: envoy:1, restartPolicy: Always}
  containers:
  - {name: a, image: app:1}
  - {name: b, image: app:1}
`))
	if err != nil {
		t.Fatal(err)
	}
	st, err := runtimestate.FromYAML([]byte(`
sandboxes: [{id: s1, ready: true, ip: 10.244.0.9, createdAt: "2026-12-01T10:00:00Z"}]
containers:
- {id: b1, name: b, sandboxID: s1, state: exited, exitCode: 1, reason: Error, restartCount: 0, createdAt: "2026-12-01T10:00:09Z", startedAt: "2026-12-01T10:00:09Z", finishedAt: "2026-12-01T10:00:10Z"}
- {id: a1, name: a, sandboxID: s1, state: exited, exitCode: 1, reason: Error, restartCount: 0, createdAt: "2026-12-01T10:00:08Z", startedAt: "2026-12-01T10:00:08Z", finishedAt: "2026-12-01T10:00:10Z"}
- {id: x2, name: proxy, sandboxID: s1, state: running, restartCount: 1, createdAt: "2026-12-01T10:00:07Z", startedAt: "2026-12-01T10:00:07Z"}
- {id: x1, name: proxy, sandboxID: s1, state: exited, exitCode: 1, reason: Error, restartCount: 0, createdAt: "2026-12-01T10:00:05Z", startedAt: "2026-12-01T10:00:05Z", finishedAt: "2026-12-01T10:00:06Z"}
- {id: p2, name: prep, sandboxID: s1, state: exited, exitCode: 0, reason: Completed, restartCount: 1, createdAt: "2026-12-01T10:00:03Z", startedAt: "2026-12-01T10:00:03Z", finishedAt: "2026-12-01T10:00:04Z"}
- {id: p1, name: prep, sandboxID: s1, state: exited, exitCode: 1, reason: Error, restartCount: 0, createdAt: "2026-12-01T10:00:01Z", startedAt: "2026-12-01T10:00:01Z", finishedAt: "2026-12-01T10:00:02Z"}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Next(pod, st, sim.NextOptions{Now: time.Date(2026, 12, 1, 10, 1, 0, 0, time.UTC)})
	var removed []string
	for _, c := range r.Calls {
		if c.Method == "RemoveContainer" {
			removed = append(removed, c.ID)
		}
	}
	if strings.Join(removed, ",") != "p1" {
		t.Errorf("removed %v, want only p1 (prep's older exited instance)\n%s", removed, r)
	}
}

// The pod's first SyncPod creates the pod cgroup and records the pod-level
// resources as the spec gives them (UpdateActuatedPodLevelResources,
// kubelet.go:2212 in v1.37.2). That record comes before
// InitializeActuatedPod, which then writes nothing (the pod has an entry):
// no emptyDir limit is recorded, memory-backed or not.
func TestSyncRecordsSandboxActuation(t *testing.T) {
	pod, err := manifest.Pod([]byte(`
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, uid: 0b5e1a9c-0000-4000-8000-000000000006}
spec:
  resources: {requests: {cpu: 500m, memory: 256Mi}, limits: {memory: 256Mi}}
  containers:
  - {name: app, image: app:1}
  volumes:
  - {name: cfg, configMap: {name: cfg}}
  - {name: disk, emptyDir: {sizeLimit: 1Gi}}
  - {name: shm, emptyDir: {medium: Memory, sizeLimit: 64Mi}}
  - {name: tmp, emptyDir: {medium: Memory}}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Next(pod, nil, sim.NextOptions{Now: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)})
	if len(r.Calls) == 0 || r.Calls[0].Method != "RunPodSandbox" {
		t.Fatalf("want a sandbox created first:\n%s", r)
	}
	a := r.Memory.Actuated
	if a.Pod == nil || a.Pod.Requests.Cpu().MilliValue() != 500 || a.Pod.Limits.Memory().Value() != 256<<20 {
		t.Errorf("pod-level resources actuated %+v, want the spec's", a.Pod)
	}
	if len(a.EmptyDirLimits) != 0 {
		t.Errorf("emptyDir limits %v, want none", a.EmptyDirLimits)
	}
}
