//go:build kubeletlogic_overlay

package differential

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/apidefaults"
	"github.com/kubeletlogic/kubeletlogic/differential/kubeletgates"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
)

// Each gate setting (v1.37.2 defaults, PodLevelResources off) gets
// apidefaultsCasesPerSetting cases in each of the three case families.
const apidefaultsCasesPerSetting = 4000

// adQuantityCmp compares quantities by value and by the text they print as,
// so a rounding that differs only in representation still shows.
var adQuantityCmp = cmp.Comparer(func(a, b resource.Quantity) bool {
	return a.Cmp(b) == 0 && a.String() == b.String()
})

// adApiServerDefault is the API server's defaulting of v1.37.2 on a copy of pod.
func adApiServerDefault(pod *v1.Pod) *v1.Pod {
	out := pod.DeepCopy()
	corev1.SetObjectDefaults_Pod(out)
	return out
}

// adCompareDefaults fails rt when apidefaults.Pod and the API server's
// defaulting disagree on pod, or when apidefaults.Pod is not idempotent.
func adCompareDefaults(rt *rapid.T, pod *v1.Pod) {
	want := adApiServerDefault(pod)
	got := apidefaults.PodCopy(pod)
	if d := cmp.Diff(want, got, adQuantityCmp); d != "" {
		rt.Fatalf("apidefaults.Pod differs from SetObjectDefaults_Pod (-apiserver +ours):\n%s", d)
	}
	if d := cmp.Diff(got, apidefaults.PodCopy(got), adQuantityCmp); d != "" {
		rt.Fatalf("apidefaults.Pod is not idempotent (-once +twice):\n%s", d)
	}
	compared(rt, "apidefaults.Pod")
}

// TestDifferentialAPIDefaults compares apidefaults.Pod with the API
// server's own SetObjectDefaults_Pod of v1.37.2, under the API server's
// feature gates at their v1.37.2 defaults (and with PodLevelResources off,
// the one gate of features.Set the defaulting reads), on
//   - podgen pods, defaulted, with defaulted fields then removed at random;
//   - pods built from scratch with any subset of the defaulted fields set;
//   - one container whose image is drawn from the Docker reference grammar
//     and its near misses (the pull-policy default).
func TestDifferentialAPIDefaults(t *testing.T) {
	noPodLevel := features.V1_37()
	noPodLevel, _ = noPodLevel.With(features.PodLevelResources, false)
	noPodLevel, _ = noPodLevel.With(features.InPlacePodLevelResourcesVerticalScaling, false) // needs PodLevelResources
	// Each case runs under the v1.37.2 defaults or with PodLevelResources
	// off, the one gate of features.Set the defaulting reads.
	draw := func(rt *rapid.T) features.Set {
		return rapid.SampledFrom([]features.Set{features.V1_37(), noPodLevel}).Draw(rt, "gates")
	}
	// The gates the defaulting reads that features.Set does not hold are at
	// their v1.37.2 defaults.
	gatesRead := func(rt *rapid.T, f features.Set) {
		for name, want := range map[string]bool{
			"ImageVolume":                    true,
			"H2CContainerProbe":              false,
			"PodLevelResourcesFixDefaulting": f.Enabled(features.PodLevelResources),
		} {
			if got := kubeletgates.Enabled(name); got != want {
				rt.Fatalf("API server gate %s is %v, want %v", name, got, want)
			}
		}
	}
	fns := []string{"apidefaults.Pod"}
	n := 2 * apidefaultsCasesPerSetting
	t.Run("stripped podgen pods", func(t *testing.T) {
		checkWith(t, n, fns, draw, func(rt *rapid.T, f features.Set) {
			gatesRead(rt, f)
			pod := adApiServerDefault(podgen.Pod(podgen.PodOptions{}).Draw(rt, "pod"))
			adStripDefaults(rt, pod)
			adCompareDefaults(rt, pod)
		})
	})
	t.Run("partial pods", func(t *testing.T) {
		checkWith(t, n, fns, draw, func(rt *rapid.T, f features.Set) {
			gatesRead(rt, f)
			adCompareDefaults(rt, adPartialPod(rt))
		})
	})
	t.Run("images", func(t *testing.T) {
		checkWith(t, n, fns, draw, func(rt *rapid.T, f features.Set) {
			gatesRead(rt, f)
			img := adImageRef().Draw(rt, "image")
			adCompareDefaults(rt, &v1.Pod{Spec: v1.PodSpec{
				Containers: []v1.Container{{Name: "c", Image: img}},
				Volumes:    []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: img}}}},
			}})
		})
	})
}
