//go:build kubeletlogic_overlay

package differential

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletconv"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletgates"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// paBenchCase is one input, prepared for both sides.
type paBenchCase struct {
	pod  *v1.Pod
	st   *runtimestate.Pod
	ks   *kubecontainer.PodStatus
	opts podactions.Options
}

// paBenchCases draws cases from the generators of the differential test
// (fixed seeds, v1.37.2 defaults) and keeps the first n for which keep says
// yes of our answer. Each case gets its own pod UID and container IDs, so
// that the actuated resources and probe results of all cases can sit in
// the kubelet's stores at once, outside the timed loop.
func paBenchCases(b *testing.B, n int, keep func(podactions.Actions) bool) []paBenchCase {
	b.Helper()
	f := defaultGates()
	gen := rapid.Custom(func(t *rapid.T) paBenchCase {
		c := podgen.Cases(podgen.CaseOptions{Gates: &f}).Draw(t, "case")
		opts := podgen.PodActionsOptions(c).Draw(t, "options")
		opts.Actuated.Exact = true // the kubelet's store holds exactly the drawn record
		return paBenchCase{pod: c.Pod, st: c.State, opts: opts}
	})
	kuberuntime.KLResetActuatedState()
	out := make([]paBenchCase, 0, n)
	for i := 0; len(out) < n; i++ {
		if i == 100*n {
			b.Fatalf("only %d of %d cases found in %d draws", len(out), n, i)
		}
		c := gen.Example(i)
		prefix := fmt.Sprintf("b%d-", i)
		c.pod.UID = types.UID(fmt.Sprintf("%s-%06d", c.pod.UID, i))
		c.st.UID = c.pod.UID
		for j := range c.st.Containers {
			c.st.Containers[j].ID = prefix + c.st.Containers[j].ID
		}
		if c.opts.Probes != nil {
			probes := map[string]vocab.ProbeResults{}
			for id, p := range c.opts.Probes {
				probes[prefix+id] = p
			}
			c.opts.Probes = probes
		}
		c.ks = kubeletconv.PodStatus(c.st)
		paSetActuated(c.pod, c.opts.Actuated)
		live, start := paProbeMaps(c.opts.Probes)
		// Both sides must agree on the inputs that are timed.
		o := c.opts
		o.Features = f
		got := podactions.Compute(c.pod, c.st, o)
		if !keep(got) {
			continue
		}
		want := kuberuntime.KLComputePodActions(c.pod, c.ks, live, start, c.opts.RestartAllContainers)
		if d := cmp.Diff(paFromKubelet(c.pod, want), paFromOurs(got)); d != "" {
			b.Fatalf("benchmark case %d differs from the kubelet (-kubelet +ours):\n%s", i, d)
		}
		b.Cleanup(kuberuntime.KLPodActionsSetProbes(c.pod, c.ks, live, start))
		out = append(out, c)
	}
	return out
}

// underGatesB sets the kubelet's gates to f for the benchmark.
func underGatesB(b *testing.B, f features.Set) {
	b.Helper()
	m := map[string]bool{}
	for _, g := range kubeletVersion.Gates() {
		if !kubeletVersion.Locked(g) {
			m[string(g)] = f.Enabled(g)
		}
	}
	kubeletgates.Set(b, m)
}
