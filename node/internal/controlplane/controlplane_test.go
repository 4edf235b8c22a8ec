package controlplane

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryVersions: each cached component is the version the tests are
// meant to run against (a cache filled by another version of the script
// fails here rather than in a scenario).
func TestBinaryVersions(t *testing.T) {
	for name, want := range map[string]string{
		"kube-apiserver":          "Kubernetes " + KubernetesVersion,
		"kube-controller-manager": "Kubernetes " + KubernetesVersion,
		"kube-scheduler":          "Kubernetes " + KubernetesVersion,
		"kwok":                    strings.TrimPrefix(KwokVersion, "v"),
	} {
		bin, err := Binary(name)
		if err != nil {
			t.Error(err)
			continue
		}
		out, err := exec.Command(bin, "--version").CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("%s --version: %q (%v), want it to contain %q", bin, out, err, want)
		}
	}
	if _, err := Binary("kubelet"); err == nil {
		t.Error("Binary(kubelet): want an error, no kubelet is cached")
	}
}
