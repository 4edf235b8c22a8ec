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
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/tooling/differential/kubeletgates"
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
	noPodLevel := defaultGates()
	noPodLevel, _ = noPodLevel.With(features.PodLevelResources, false)
	noPodLevel, _ = noPodLevel.With(features.InPlacePodLevelResourcesVerticalScaling, false) // needs PodLevelResources
	// Each case runs under the v1.37.2 defaults or with PodLevelResources
	// off, the one gate of features.Set the defaulting reads.
	draw := func(rt *rapid.T) features.Set {
		return rapid.SampledFrom([]features.Set{defaultGates(), noPodLevel}).Draw(rt, "gates")
	}
	// The gates the defaulting reads that features.Set does not hold are at
	// their v1.37.2 defaults.
	gatesRead := func(rt *rapid.T, f features.Set) {
		// PodLevelResourcesFixDefaulting is not in features.Set, and the
		// per-case gate switch leaves it off once a case has turned
		// PodLevelResources off: set it to its v1.37.2 value for this case
		// (it defaults on with PodLevelResources and needs it).
		kubeletgates.Set(rt, map[string]bool{"PodLevelResourcesFixDefaulting": f.Enabled(features.PodLevelResources)})
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

// adStripDefaults clears, each with probability one half, fields the API
// server defaults on a pod that was defaulted.
func adStripDefaults(rt *rapid.T, pod *v1.Pod) {
	strip := func(label string) bool { return rapid.Bool().Draw(rt, "strip "+label) }
	s := &pod.Spec
	if strip("restartPolicy") {
		s.RestartPolicy = ""
	}
	if strip("grace") {
		if strip("grace negative") {
			s.TerminationGracePeriodSeconds = adPtr(rapid.Int64Range(-100, -1).Draw(rt, "negativeGrace"))
		} else {
			s.TerminationGracePeriodSeconds = nil
		}
	}
	if strip("dnsPolicy") {
		s.DNSPolicy = ""
	}
	if strip("schedulerName") {
		s.SchedulerName = ""
	}
	if strip("securityContext") {
		s.SecurityContext = nil
	}
	if strip("enableServiceLinks") {
		s.EnableServiceLinks = nil
	}
	if strip("serviceAccount") {
		s.DeprecatedServiceAccount = ""
	}
	stripContainer := func(c *v1.Container) {
		if strip("imagePullPolicy") {
			c.ImagePullPolicy = ""
		}
		if strip("terminationMessagePath") {
			c.TerminationMessagePath = ""
		}
		if strip("terminationMessagePolicy") {
			c.TerminationMessagePolicy = ""
		}
		for i := range c.Ports {
			if strip("protocol") {
				c.Ports[i].Protocol = ""
			}
		}
		for _, p := range []*v1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p == nil {
				continue
			}
			if strip("timeout") {
				p.TimeoutSeconds = 0
			}
			if strip("period") {
				p.PeriodSeconds = 0
			}
			if strip("success") {
				p.SuccessThreshold = 0
			}
			if strip("failure") {
				p.FailureThreshold = 0
			}
			if p.HTTPGet != nil && strip("httpGet") {
				p.HTTPGet.Path, p.HTTPGet.Scheme = "", ""
			}
			if p.GRPC != nil && strip("grpc") {
				p.GRPC.Service = nil
			}
		}
		if c.Resources.Limits != nil && strip("requests") {
			if strip("requests nil") {
				c.Resources.Requests = nil
			} else {
				for name := range c.Resources.Requests {
					if strip("request " + string(name)) {
						delete(c.Resources.Requests, name)
					}
				}
			}
		}
	}
	for i := range s.InitContainers {
		stripContainer(&s.InitContainers[i])
	}
	for i := range s.Containers {
		stripContainer(&s.Containers[i])
	}
	for i := range s.EphemeralContainers {
		stripContainer((*v1.Container)(&s.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

func adPtr[T any](v T) *T { return &v }

// adMaybe draws a pointer to a value of g, or nil.
func adMaybe[T any](rt *rapid.T, label string, g *rapid.Generator[T]) *T {
	if rapid.Bool().Draw(rt, label+" set") {
		return adPtr(g.Draw(rt, label))
	}
	return nil
}

// adQuantity draws quantities that need rounding to a milli-unit, and ones
// that do not, in several notations.
func adQuantity() *rapid.Generator[resource.Quantity] {
	return rapid.Custom(func(rt *rapid.T) resource.Quantity {
		s := rapid.SampledFrom([]string{
			"0", "1", "100m", "1500u", "0.5m", "1.0001", "1.0005m", "1Gi", "1.5Gi", "1e-7",
			"123456789n", "2k", "3E2", "0.1", "999999999999999999", "1.5Mi", "7Ki", "10",
		}).Draw(rt, "quantity")
		return resource.MustParse(s)
	})
}

func adResourceList(rt *rapid.T, label string) v1.ResourceList {
	switch rapid.IntRange(0, 3).Draw(rt, label+" kind") {
	case 0:
		return nil
	case 1:
		return v1.ResourceList{}
	}
	l := v1.ResourceList{}
	for _, name := range []v1.ResourceName{"cpu", "memory", "hugepages-2Mi", "example.com/gpu", "ephemeral-storage"} {
		if rapid.Bool().Draw(rt, label+" "+string(name)) {
			l[name] = adQuantity().Draw(rt, label+" "+string(name)+" value")
		}
	}
	return l
}

func adHttpGet(rt *rapid.T) *v1.HTTPGetAction {
	return &v1.HTTPGetAction{
		Path:   rapid.SampledFrom([]string{"", "/", "/healthz"}).Draw(rt, "path"),
		Port:   intstr.FromInt32(8080),
		Scheme: rapid.SampledFrom([]v1.URIScheme{"", v1.URISchemeHTTP, v1.URISchemeHTTPS}).Draw(rt, "scheme"),
		Protocol: adMaybe(rt, "protocol",
			rapid.SampledFrom([]v1.HTTPProtocol{v1.HTTPProtocolHTTP1, "H2C"})),
	}
}

func adHandler(rt *rapid.T) v1.ProbeHandler {
	switch rapid.IntRange(0, 4).Draw(rt, "handler") {
	case 0:
		return v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}
	case 1:
		return v1.ProbeHandler{HTTPGet: adHttpGet(rt)}
	case 2:
		return v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromInt32(80)}}
	case 3:
		return v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9, Service: adMaybe(rt, "service", rapid.SampledFrom([]string{"", "svc"}))}}
	}
	return v1.ProbeHandler{}
}

func adProbe(rt *rapid.T, label string) *v1.Probe {
	if !rapid.Bool().Draw(rt, label) {
		return nil
	}
	n := rapid.SampledFrom([]int32{0, 0, 1, 2, 5, -1})
	return &v1.Probe{
		ProbeHandler:     adHandler(rt),
		TimeoutSeconds:   n.Draw(rt, "timeout"),
		PeriodSeconds:    n.Draw(rt, "period"),
		SuccessThreshold: n.Draw(rt, "success"),
		FailureThreshold: n.Draw(rt, "failure"),
	}
}

func adHook(rt *rapid.T, label string) *v1.LifecycleHandler {
	switch rapid.IntRange(0, 3).Draw(rt, label) {
	case 1:
		return &v1.LifecycleHandler{HTTPGet: adHttpGet(rt)}
	case 2:
		return &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 1}}
	case 3:
		return &v1.LifecycleHandler{}
	}
	return nil
}

func adPartialContainer(rt *rapid.T, name string) v1.Container {
	c := v1.Container{
		Name:                     name,
		Image:                    adImageRef().Draw(rt, "image"),
		ImagePullPolicy:          rapid.SampledFrom([]v1.PullPolicy{"", "", v1.PullNever, v1.PullAlways}).Draw(rt, "pull"),
		TerminationMessagePath:   rapid.SampledFrom([]string{"", "/tmp/msg"}).Draw(rt, "tmpath"),
		TerminationMessagePolicy: rapid.SampledFrom([]v1.TerminationMessagePolicy{"", v1.TerminationMessageFallbackToLogsOnError}).Draw(rt, "tmpolicy"),
		LivenessProbe:            adProbe(rt, "liveness"),
		ReadinessProbe:           adProbe(rt, "readiness"),
		StartupProbe:             adProbe(rt, "startup"),
		Resources: v1.ResourceRequirements{
			Limits:   adResourceList(rt, "limits"),
			Requests: adResourceList(rt, "requests"),
		},
	}
	for i := range rapid.IntRange(0, 2).Draw(rt, "ports") {
		c.Ports = append(c.Ports, v1.ContainerPort{
			ContainerPort: int32(80 + i),
			HostPort:      rapid.SampledFrom([]int32{0, 0, 9090}).Draw(rt, "hostPort"),
			Protocol:      rapid.SampledFrom([]v1.Protocol{"", v1.ProtocolUDP, v1.ProtocolTCP}).Draw(rt, "protocol"),
		})
	}
	for range rapid.IntRange(0, 2).Draw(rt, "env") {
		e := v1.EnvVar{Name: "E"}
		switch rapid.IntRange(0, 3).Draw(rt, "envKind") {
		case 1:
			e.ValueFrom = &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{
				APIVersion: rapid.SampledFrom([]string{"", "v1", "v2"}).Draw(rt, "apiVersion"),
				FieldPath:  "metadata.name",
			}}
		case 2:
			e.ValueFrom = &v1.EnvVarSource{FileKeyRef: &v1.FileKeySelector{
				VolumeName: "v", Path: "p", Key: "k",
				Optional: adMaybe(rt, "optional", rapid.Bool()),
			}}
		case 3:
			e.ValueFrom = &v1.EnvVarSource{ResourceFieldRef: &v1.ResourceFieldSelector{Resource: "limits.cpu"}}
		}
		c.Env = append(c.Env, e)
	}
	if post, pre := adHook(rt, "postStart"), adHook(rt, "preStop"); post != nil || pre != nil || rapid.Bool().Draw(rt, "emptyLifecycle") {
		c.Lifecycle = &v1.Lifecycle{PostStart: post, PreStop: pre}
	}
	return c
}

func adPartialVolume(rt *rapid.T, i int) v1.Volume {
	vol := v1.Volume{Name: "v" + string(rune('a'+i))}
	src := &vol.VolumeSource
	mode := func() *int32 { return adMaybe(rt, "mode", rapid.SampledFrom([]int32{0o400, 0o644})) }
	items := func() []v1.DownwardAPIVolumeFile {
		var out []v1.DownwardAPIVolumeFile
		for range rapid.IntRange(0, 2).Draw(rt, "items") {
			f := v1.DownwardAPIVolumeFile{Path: "p"}
			if rapid.Bool().Draw(rt, "fieldRef") {
				f.FieldRef = &v1.ObjectFieldSelector{APIVersion: rapid.SampledFrom([]string{"", "v1"}).Draw(rt, "apiVersion"), FieldPath: "metadata.name"}
			}
			out = append(out, f)
		}
		return out
	}
	switch rapid.IntRange(0, 13).Draw(rt, "volumeKind") {
	case 0: // no source
	case 1:
		src.EmptyDir = &v1.EmptyDirVolumeSource{}
	case 2:
		src.Secret = &v1.SecretVolumeSource{SecretName: "s", DefaultMode: mode()}
	case 3:
		src.ConfigMap = &v1.ConfigMapVolumeSource{DefaultMode: mode()}
	case 4:
		src.DownwardAPI = &v1.DownwardAPIVolumeSource{DefaultMode: mode(), Items: items()}
	case 5:
		p := &v1.ProjectedVolumeSource{DefaultMode: mode()}
		for range rapid.IntRange(0, 3).Draw(rt, "projections") {
			var vp v1.VolumeProjection
			switch rapid.IntRange(0, 2).Draw(rt, "projection") {
			case 0:
				vp.DownwardAPI = &v1.DownwardAPIProjection{Items: items()}
			case 1:
				vp.ServiceAccountToken = &v1.ServiceAccountTokenProjection{Path: "t", ExpirationSeconds: adMaybe(rt, "expiration", rapid.SampledFrom([]int64{600, 7200}))}
			case 2:
				vp.ConfigMap = &v1.ConfigMapProjection{}
			}
			p.Sources = append(p.Sources, vp)
		}
		src.Projected = p
	case 6:
		src.HostPath = &v1.HostPathVolumeSource{Path: "/x", Type: adMaybe(rt, "hostPathType", rapid.SampledFrom([]v1.HostPathType{v1.HostPathDirectory, v1.HostPathUnset}))}
	case 7:
		src.ISCSI = &v1.ISCSIVolumeSource{ISCSIInterface: rapid.SampledFrom([]string{"", "eth"}).Draw(rt, "iface")}
	case 8:
		src.RBD = &v1.RBDVolumeSource{
			RBDPool:   rapid.SampledFrom([]string{"", "pool"}).Draw(rt, "pool"),
			RadosUser: rapid.SampledFrom([]string{"", "user"}).Draw(rt, "user"),
			Keyring:   rapid.SampledFrom([]string{"", "/k"}).Draw(rt, "keyring"),
		}
	case 9:
		src.ScaleIO = &v1.ScaleIOVolumeSource{
			StorageMode: rapid.SampledFrom([]string{"", "ThickProvisioned"}).Draw(rt, "storageMode"),
			FSType:      rapid.SampledFrom([]string{"", "ext4"}).Draw(rt, "scaleioFS"),
		}
	case 10:
		src.AzureDisk = &v1.AzureDiskVolumeSource{
			CachingMode: adMaybe(rt, "caching", rapid.SampledFrom([]v1.AzureDataDiskCachingMode{v1.AzureDataDiskCachingNone})),
			FSType:      adMaybe(rt, "azureFS", rapid.SampledFrom([]string{"xfs"})),
			ReadOnly:    adMaybe(rt, "readOnly", rapid.Bool()),
			Kind:        adMaybe(rt, "azureKind", rapid.SampledFrom([]v1.AzureDataDiskKind{v1.AzureManagedDisk})),
		}
	case 11:
		e := &v1.EphemeralVolumeSource{}
		if rapid.Bool().Draw(rt, "claimTemplate") {
			e.VolumeClaimTemplate = &v1.PersistentVolumeClaimTemplate{Spec: v1.PersistentVolumeClaimSpec{
				VolumeMode: adMaybe(rt, "volumeMode", rapid.SampledFrom([]v1.PersistentVolumeMode{v1.PersistentVolumeBlock})),
				Resources: v1.VolumeResourceRequirements{
					Limits:   adResourceList(rt, "claimLimits"),
					Requests: adResourceList(rt, "claimRequests"),
				},
			}}
		}
		src.Ephemeral = e
	case 12:
		src.Image = &v1.ImageVolumeSource{
			Reference:  adImageRef().Draw(rt, "imageVolume"),
			PullPolicy: rapid.SampledFrom([]v1.PullPolicy{"", v1.PullNever}).Draw(rt, "imagePull"),
		}
	case 13:
		src.PersistentVolumeClaim = &v1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}
	}
	return vol
}

// adPartialPod draws a pod built from scratch, each defaulted field left
// empty or set (sometimes to a value that is not the default).
func adPartialPod(rt *rapid.T) *v1.Pod {
	pod := &v1.Pod{}
	s := &pod.Spec
	s.RestartPolicy = rapid.SampledFrom([]v1.RestartPolicy{"", v1.RestartPolicyNever, v1.RestartPolicyOnFailure}).Draw(rt, "restartPolicy")
	s.TerminationGracePeriodSeconds = adMaybe(rt, "grace", rapid.SampledFrom([]int64{-30, -1, 0, 1, 45}))
	s.DNSPolicy = rapid.SampledFrom([]v1.DNSPolicy{"", v1.DNSDefault}).Draw(rt, "dnsPolicy")
	s.SchedulerName = rapid.SampledFrom([]string{"", "other"}).Draw(rt, "scheduler")
	s.EnableServiceLinks = adMaybe(rt, "serviceLinks", rapid.Bool())
	s.HostNetwork = rapid.Bool().Draw(rt, "hostNetwork")
	s.ServiceAccountName = rapid.SampledFrom([]string{"", "sa"}).Draw(rt, "sa")
	s.DeprecatedServiceAccount = rapid.SampledFrom([]string{"", "sa", "old"}).Draw(rt, "deprecatedSA")
	if rapid.Bool().Draw(rt, "securityContext") {
		s.SecurityContext = &v1.PodSecurityContext{RunAsNonRoot: adPtr(true)}
	}
	for i := range rapid.IntRange(0, 2).Draw(rt, "inits") {
		s.InitContainers = append(s.InitContainers, adPartialContainer(rt, "init-"+string(rune('0'+i))))
	}
	for i := range rapid.IntRange(0, 2).Draw(rt, "containers") {
		s.Containers = append(s.Containers, adPartialContainer(rt, "app-"+string(rune('0'+i))))
	}
	for i := range rapid.IntRange(0, 1).Draw(rt, "ephemerals") {
		s.EphemeralContainers = append(s.EphemeralContainers, v1.EphemeralContainer{
			EphemeralContainerCommon: v1.EphemeralContainerCommon(adPartialContainer(rt, "debug-"+string(rune('0'+i)))),
		})
	}
	for i := range rapid.IntRange(0, 3).Draw(rt, "volumes") {
		s.Volumes = append(s.Volumes, adPartialVolume(rt, i))
	}
	s.Overhead = adResourceList(rt, "overhead")
	if rapid.Bool().Draw(rt, "podResources") {
		s.Resources = &v1.ResourceRequirements{Limits: adResourceList(rt, "podLimits"), Requests: adResourceList(rt, "podRequests")}
	}
	st := &pod.Status
	ip := rapid.SampledFrom([]string{"", "10.0.0.1", "fd00::1"})
	st.PodIP = ip.Draw(rt, "podIP")
	for range rapid.IntRange(0, 2).Draw(rt, "podIPs") {
		st.PodIPs = append(st.PodIPs, v1.PodIP{IP: ip.Draw(rt, "podIPsEntry")})
	}
	for range rapid.IntRange(0, 2).Draw(rt, "statuses") {
		cs := v1.ContainerStatus{Name: "app-0", AllocatedResources: adResourceList(rt, "allocated")}
		if rapid.Bool().Draw(rt, "statusResources") {
			cs.Resources = &v1.ResourceRequirements{Limits: adResourceList(rt, "stLimits"), Requests: adResourceList(rt, "stRequests")}
		}
		switch rapid.IntRange(0, 2).Draw(rt, "statusList") {
		case 0:
			st.InitContainerStatuses = append(st.InitContainerStatuses, cs)
		case 1:
			st.ContainerStatuses = append(st.ContainerStatuses, cs)
		case 2:
			st.EphemeralContainerStatuses = append(st.EphemeralContainerStatuses, cs)
		}
	}
	st.AllocatedResources = adResourceList(rt, "podAllocated")
	if rapid.Bool().Draw(rt, "podStatusResources") {
		st.Resources = &v1.ResourceRequirements{Limits: adResourceList(rt, "pstLimits"), Requests: adResourceList(rt, "pstRequests")}
	}
	return pod
}

// adImageRef draws image references from the Docker reference grammar and its
// near misses: domains with and without ports, upper case, separators, tags
// (latest among them), digests of each algorithm with right and wrong
// lengths, bare 64-hex identifiers, long paths, and arbitrary strings.
func adImageRef() *rapid.Generator[string] {
	hex := func(n int, upper bool) string {
		s := strings.Repeat("0123456789abcdef", n/16+1)[:n]
		if upper {
			s = strings.ToUpper(s)
		}
		return s
	}
	return rapid.Custom(func(rt *rapid.T) string {
		switch rapid.IntRange(0, 9).Draw(rt, "imageKind") {
		case 0:
			return rapid.StringOfN(rapid.RuneFrom([]rune("abAB09:/@._-[]")), 0, 24, -1).Draw(rt, "anyImage")
		case 1:
			return rapid.SampledFrom([]string{hex(64, false), hex(64, true), hex(63, false), "", " busybox", "busybox "}).Draw(rt, "oddImage")
		}
		var b strings.Builder
		b.WriteString(rapid.SampledFrom([]string{
			"", "", "", "localhost/", "localhost:5000/", "example.com/", "Example.COM/", "index.docker.io/",
			"docker.io/", "[::1]:5000/", "a_b.com/", "UPPER/", "reg:443/", "my-reg.io:x/", "-bad.com/", "lower/",
		}).Draw(rt, "domain"))
		parts := rapid.SliceOfN(rapid.SampledFrom([]string{
			"busybox", "library", "a", "a__b", "a--b", "a.b", "a_b", "a___b", "A", "-a", "a-", "x9", "",
		}), 1, 3).Draw(rt, "path")
		b.WriteString(strings.Join(parts, "/"))
		if rapid.IntRange(0, 9).Draw(rt, "longPath") == 0 {
			b.WriteString("/" + strings.Repeat("p", rapid.IntRange(230, 260).Draw(rt, "pathLen")))
		}
		switch rapid.IntRange(0, 5).Draw(rt, "tagKind") {
		case 1, 2:
			b.WriteString(":latest")
		case 3:
			b.WriteString(":" + rapid.SampledFrom([]string{"1.36", "LATEST", "", "-x", "_x", "latest.1",
				strings.Repeat("t", 128), strings.Repeat("t", 129)}).Draw(rt, "tag"))
		case 4:
			b.WriteString(":latest:latest")
		}
		if rapid.IntRange(0, 2).Draw(rt, "digestKind") == 0 {
			alg := rapid.SampledFrom([]string{"sha256", "sha384", "sha512", "md5", "SHA256", "sha256+b64"}).Draw(rt, "alg")
			n := rapid.SampledFrom([]int{32, 63, 64, 65, 96, 128}).Draw(rt, "hexLen")
			b.WriteString("@" + alg + ":" + hex(n, rapid.IntRange(0, 4).Draw(rt, "upperHex") == 0))
		}
		return b.String()
	})
}
