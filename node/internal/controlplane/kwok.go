package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// KWOK's own marks of a fake node (its documentation's node manifest): the
// annotation kwok.x-k8s.io/node=fake, which KwokNodeSelector selects, and
// the taint of the same key and value with effect NoSchedule that keeps
// real workloads off it.
const (
	KwokNodeKey      = "kwok.x-k8s.io/node"
	KwokNodeValue    = "fake"
	KwokNodeSelector = KwokNodeKey + "=" + KwokNodeValue
)

// KwokNodeStages are the stage files of KWOK v0.8.0 that StartKwok loads,
// as shipped in its module (kustomize/stage/node/fast/node-initialize.yaml
// and kustomize/stage/node/heartbeat-with-lease/
// node-heartbeat-with-lease.yaml), copied unchanged by node/test.sh into
// the stages folder beside the kwok binary: a node it manages gets Ready
// conditions, addresses and nodeInfo once, then its Lease renewed every
// 10 s and its conditions refreshed every 10 to 20 minutes. No pod stage:
// kwok then starts no pod controller and writes nothing to a pod.
var KwokNodeStages = []string{"node-initialize.yaml", "node-heartbeat-with-lease.yaml"}

// KwokPodFastStages are KWOK v0.8.0's default pod stages, the "fast" ones
// kwokctl gives a cluster that names no pod stage of its own
// (pkg/kwokctl/runtime/cluster.go: getDefaultPodStages), as shipped in its
// module (kustomize/stage/pod/fast/{pod-ready,pod-complete,pod-delete}.yaml)
// and copied unchanged by node/test.sh into pod-fast/ in the stages
// folder: a pod on a node kwok manages is set Running with every container
// running and ready at once (pod-ready); one owned by a Job is then set
// Succeeded, its regular containers terminated with exit code 0
// (pod-complete); a pod with a deletion timestamp is deleted at once
// (pod-delete). Paths are relative to KwokStagesDir; give them to
// KwokOptions.PodStages.
var KwokPodFastStages = []string{"pod-fast/pod-ready.yaml", "pod-fast/pod-complete.yaml", "pod-fast/pod-delete.yaml"}

// KwokOptions selects the nodes kwok manages and the pod stages it loads.
type KwokOptions struct {
	// AnnotationSelector is kwok's --manage-nodes-with-annotation-selector;
	// empty means KwokNodeSelector.
	AnnotationSelector string
	// LabelSelector is kwok's --manage-nodes-with-label-selector (nodes
	// must match both when both are set); empty means none.
	LabelSelector string
	// NodeIP is kwok's --node-ip, the InternalIP its node-initialize stage
	// writes on a node that has none; empty passes no --node-ip, and
	// kwok then writes no InternalIP (kwokctl's binary runtime does so).
	NodeIP string
	// PodStages are stage files, relative to KwokStagesDir, that kwok
	// loads after KwokNodeStages (KwokPodFastStages are KWOK's default pod
	// stages). Empty loads none: kwok then starts no pod controller and
	// writes nothing to a pod.
	PodStages []string
}

// KwokStagesDir returns the folder holding KwokNodeStages:
// $KUBELETLOGIC_KWOK_STAGES, else stages/ beside the cached kwok binary.
func KwokStagesDir() (string, error) {
	dir := os.Getenv("KUBELETLOGIC_KWOK_STAGES")
	if dir == "" {
		bin, err := Binary("kwok")
		if err != nil {
			return "", err
		}
		dir = filepath.Join(filepath.Dir(bin), "stages")
	}
	for _, f := range KwokNodeStages {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return "", fmt.Errorf("kwok stage %s missing (%v): run node/test.sh, or set KUBELETLOGIC_KWOK_STAGES", f, err)
		}
	}
	return dir, nil
}

// StartKwok starts the cached kwok binary (KWOK v0.8.0) against the
// control plane's API server with the admin's kubeconfig, KwokNodeStages
// and o.PodStages as its only stages, and the nodes o selects as the ones
// it manages; it
// waits until kwok's health endpoint answers (kwok serves it once its
// controllers have started) and stops it with the control plane. kwok's
// own configuration folder (KWOK_WORKDIR, whose kwok.yaml it would load
// first) is a fresh folder under Dir, so no stage of the user's can slip
// in.
func (cp *ControlPlane) StartKwok(t testing.TB, o KwokOptions) {
	t.Helper()
	bin, err := Binary("kwok")
	if err != nil {
		t.Fatal(err)
	}
	stages, err := KwokStagesDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.startKwok(bin, stages, o); err != nil {
		t.Fatalf("kwok: %v", err)
	}
}

func (cp *ControlPlane) startKwok(bin, stages string, o KwokOptions) error {
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	work := filepath.Join(cp.Dir, "kwok-workdir")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	sel := o.AnnotationSelector
	if sel == "" {
		sel = KwokNodeSelector
	}
	addr := "127.0.0.1:" + strconv.Itoa(ports[0])
	args := []string{"--kubeconfig=" + cp.Kubeconfig, "--server-address=" + addr,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=" + sel,
		// kwok alone holds no node lease unless given a duration
		// (kwokctl passes 40, the kubelet's nodeLeaseDurationSeconds).
		"--node-lease-duration-seconds=40"}
	if o.NodeIP != "" {
		args = append(args, "--node-ip="+o.NodeIP)
	}
	if o.LabelSelector != "" {
		args = append(args, "--manage-nodes-with-label-selector="+o.LabelSelector)
	}
	for _, f := range KwokNodeStages {
		args = append(args, "--config="+filepath.Join(stages, f))
	}
	for _, f := range o.PodStages {
		p := filepath.Join(stages, f)
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("kwok pod stage %s missing (%v): run node/test.sh, or set KUBELETLOGIC_KWOK_STAGES", f, err)
		}
		args = append(args, "--config="+p)
	}
	if err := cp.runEnv("kwok", bin, []string{"KWOK_WORKDIR=" + work}, args...); err != nil {
		return err
	}
	return cp.waitHTTP("kwok", "http://"+addr+"/healthz", 120*time.Second)
}
