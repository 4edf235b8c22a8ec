package controlplane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKwokStagesDir: a stages folder missing one of KWOK's node stages is
// an error naming the script that fills it; a complete one is returned.
func TestKwokStagesDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBELETLOGIC_KWOK_STAGES", dir)
	if err := os.WriteFile(filepath.Join(dir, KwokNodeStages[0]), []byte("kind: Stage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := KwokStagesDir(); err == nil || !strings.Contains(err.Error(), KwokNodeStages[1]) || !strings.Contains(err.Error(), "node/test.sh") {
		t.Errorf("one stage missing: error %v, want it to name %s and node/test.sh", err, KwokNodeStages[1])
	}
	if err := os.WriteFile(filepath.Join(dir, KwokNodeStages[1]), []byte("kind: Stage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := KwokStagesDir(); err != nil || got != dir {
		t.Errorf("KwokStagesDir() = %q, %v: want %q", got, err, dir)
	}
}

// TestKwokPodStageMissing: a pod stage asked for and not in the stages
// folder is an error naming it and the script that copies it, before
// kwok is started.
func TestKwokPodStageMissing(t *testing.T) {
	cp := &ControlPlane{Dir: t.TempDir()}
	err := cp.startKwok(filepath.Join(cp.Dir, "no-kwok"), t.TempDir(), KwokOptions{PodStages: KwokPodFastStages})
	if err == nil || !strings.Contains(err.Error(), KwokPodFastStages[0]) || !strings.Contains(err.Error(), "node/test.sh") {
		t.Errorf("pod stages missing: error %v, want it to name %s and node/test.sh", err, KwokPodFastStages[0])
	}
}
