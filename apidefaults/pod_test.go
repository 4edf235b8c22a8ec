package apidefaults

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/validation"
)

func TestPullPolicyFor(t *testing.T) {
	sha := "sha256:" + repeat("a", 64)
	for _, tc := range []struct {
		image string
		want  v1.PullPolicy
	}{
		{"busybox", v1.PullAlways},
		{"busybox:latest", v1.PullAlways},
		{"busybox:1.36", v1.PullIfNotPresent},
		{"busybox@" + sha, v1.PullIfNotPresent},
		{"busybox:latest@" + sha, v1.PullAlways},
		{"busybox:1.36@" + sha, v1.PullIfNotPresent},
		{"registry.k8s.io/pause", v1.PullAlways},
		{"registry.k8s.io/pause:3.10", v1.PullIfNotPresent},
		{"localhost:5000/app", v1.PullAlways},
		{"localhost/app:latest", v1.PullAlways},
		{"[::1]:5000/app", v1.PullAlways},
		{"index.docker.io/app", v1.PullAlways},
		{"Example.COM/app", v1.PullAlways},   // upper-case domain is fine
		{"", v1.PullIfNotPresent},            // does not parse
		{"Busybox", v1.PullIfNotPresent},     // upper-case repository
		{"app/Busybox", v1.PullIfNotPresent}, // upper-case path
		{" busybox", v1.PullIfNotPresent},
		{"busybox:", v1.PullIfNotPresent},
		{"a:b:c", v1.PullIfNotPresent},
		{"busybox:LATEST", v1.PullIfNotPresent}, // tags are case-sensitive
		{"busybox@sha256:abc", v1.PullIfNotPresent},
		{"busybox:latest@sha256:" + repeat("A", 64), v1.PullIfNotPresent}, // upper-case hex
		{"busybox:latest@md5:" + repeat("a", 32), v1.PullIfNotPresent},    // unknown algorithm
		{"busybox:latest@sha512:" + repeat("a", 128), v1.PullAlways},      // sha512
		{"busybox:latest@sha256:" + repeat("a", 65), v1.PullIfNotPresent}, // wrong length
		{repeat("a", 64), v1.PullIfNotPresent},                            // bare identifier
		{repeat("a", 63), v1.PullAlways},                                  // a name
		{"example.com/" + repeat("a", 256), v1.PullIfNotPresent},          // path too long
		{"example.com/" + repeat("a", 255), v1.PullAlways},
		{"busybox:" + repeat("t", 128), v1.PullIfNotPresent},
		{"busybox:" + repeat("t", 129), v1.PullIfNotPresent},
	} {
		if got := pullPolicyFor(tc.image); got != tc.want {
			t.Errorf("pullPolicyFor(%q) = %s, want %s", tc.image, got, tc.want)
		}
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

func TestPodFields(t *testing.T) {
	neg := int64(-5)
	two := int64(2)
	for _, tc := range []struct {
		name  string
		pod   v1.Pod
		check func(t *testing.T, p *v1.Pod)
	}{
		{"empty spec", v1.Pod{}, func(t *testing.T, p *v1.Pod) {
			s := p.Spec
			if s.RestartPolicy != v1.RestartPolicyAlways || s.DNSPolicy != v1.DNSClusterFirst ||
				s.SchedulerName != v1.DefaultSchedulerName || s.SecurityContext == nil ||
				*s.TerminationGracePeriodSeconds != 30 || !*s.EnableServiceLinks {
				t.Errorf("spec = %+v", s)
			}
		}},
		{"negative grace becomes 1", v1.Pod{Spec: v1.PodSpec{TerminationGracePeriodSeconds: &neg}}, func(t *testing.T, p *v1.Pod) {
			if *p.Spec.TerminationGracePeriodSeconds != 1 {
				t.Errorf("grace = %d", *p.Spec.TerminationGracePeriodSeconds)
			}
		}},
		{"grace kept", v1.Pod{Spec: v1.PodSpec{TerminationGracePeriodSeconds: &two, RestartPolicy: v1.RestartPolicyNever}}, func(t *testing.T, p *v1.Pod) {
			if *p.Spec.TerminationGracePeriodSeconds != 2 || p.Spec.RestartPolicy != v1.RestartPolicyNever {
				t.Errorf("spec = %+v", p.Spec)
			}
		}},
		{"service account synced", v1.Pod{Spec: v1.PodSpec{DeprecatedServiceAccount: "old"}}, func(t *testing.T, p *v1.Pod) {
			if p.Spec.ServiceAccountName != "old" || p.Spec.DeprecatedServiceAccount != "old" {
				t.Errorf("sa = %q %q", p.Spec.ServiceAccountName, p.Spec.DeprecatedServiceAccount)
			}
		}},
		{"container defaults", v1.Pod{Spec: v1.PodSpec{
			InitContainers:      []v1.Container{{Name: "i", Image: "x:1", Ports: []v1.ContainerPort{{ContainerPort: 80}}}},
			Containers:          []v1.Container{{Name: "c", Image: "x", Env: []v1.EnvVar{{Name: "N", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.name"}, FileKeyRef: &v1.FileKeySelector{}}}}}},
			EphemeralContainers: []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "e", Image: "x@sha256:" + repeat("0", 64)}}},
		}}, func(t *testing.T, p *v1.Pod) {
			i, c, e := p.Spec.InitContainers[0], p.Spec.Containers[0], p.Spec.EphemeralContainers[0]
			if i.ImagePullPolicy != v1.PullIfNotPresent || c.ImagePullPolicy != v1.PullAlways || e.ImagePullPolicy != v1.PullIfNotPresent {
				t.Errorf("pull policies %s %s %s", i.ImagePullPolicy, c.ImagePullPolicy, e.ImagePullPolicy)
			}
			for _, cc := range []v1.Container{i, c, v1.Container(e.EphemeralContainerCommon)} {
				if cc.TerminationMessagePath != "/dev/termination-log" || cc.TerminationMessagePolicy != v1.TerminationMessageReadFile {
					t.Errorf("%s: termination message %q %q", cc.Name, cc.TerminationMessagePath, cc.TerminationMessagePolicy)
				}
			}
			if i.Ports[0].Protocol != v1.ProtocolTCP || i.Ports[0].HostPort != 0 {
				t.Errorf("port = %+v", i.Ports[0])
			}
			vf := c.Env[0].ValueFrom
			if vf.FieldRef.APIVersion != "v1" || vf.FileKeyRef.Optional == nil || *vf.FileKeyRef.Optional {
				t.Errorf("env = %+v", vf)
			}
		}},
		{"host network host ports", v1.Pod{Spec: v1.PodSpec{HostNetwork: true,
			Containers: []v1.Container{{Name: "c", Ports: []v1.ContainerPort{{ContainerPort: 80}, {ContainerPort: 81, HostPort: 9}}}}}}, func(t *testing.T, p *v1.Pod) {
			if ps := p.Spec.Containers[0].Ports; ps[0].HostPort != 80 || ps[1].HostPort != 9 {
				t.Errorf("ports = %+v", ps)
			}
		}},
		{"probes and hooks", v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c",
			LivenessProbe:  &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{}}, PeriodSeconds: 7},
			ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9}}},
			StartupProbe:   &v1.Probe{ProbeHandler: v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{}}, FailureThreshold: 30},
			Lifecycle:      &v1.Lifecycle{PreStop: &v1.LifecycleHandler{HTTPGet: &v1.HTTPGetAction{Path: "/stop"}}},
		}}}}, func(t *testing.T, p *v1.Pod) {
			c := p.Spec.Containers[0]
			if l := c.LivenessProbe; l.PeriodSeconds != 7 || l.TimeoutSeconds != 1 || l.SuccessThreshold != 1 || l.FailureThreshold != 3 ||
				l.HTTPGet.Path != "/" || l.HTTPGet.Scheme != v1.URISchemeHTTP || l.HTTPGet.Protocol != nil {
				t.Errorf("liveness = %+v %+v", l, l.HTTPGet)
			}
			if r := c.ReadinessProbe; r.GRPC.Service == nil || *r.GRPC.Service != "" || r.PeriodSeconds != 10 {
				t.Errorf("readiness = %+v", r)
			}
			if s := c.StartupProbe; s.FailureThreshold != 30 || s.TimeoutSeconds != 1 {
				t.Errorf("startup = %+v", s)
			}
			if h := c.Lifecycle.PreStop.HTTPGet; h.Path != "/stop" || h.Scheme != v1.URISchemeHTTP {
				t.Errorf("preStop = %+v", h)
			}
		}},
		{"requests from limits, rounded", v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Limits:   v1.ResourceList{"cpu": resource.MustParse("500u"), "memory": resource.MustParse("1Gi")},
			Requests: v1.ResourceList{"memory": resource.MustParse("512Mi")},
		}}, {Name: "d", Resources: v1.ResourceRequirements{Limits: v1.ResourceList{}}}}}}, func(t *testing.T, p *v1.Pod) {
			r := p.Spec.Containers[0].Resources
			if q := r.Limits["cpu"]; q.String() != "1m" {
				t.Errorf("cpu limit %s, want 1m", q.String())
			}
			if q := r.Requests["cpu"]; q.String() != "1m" {
				t.Errorf("cpu request %s, want 1m", q.String())
			}
			if q := r.Requests["memory"]; q.String() != "512Mi" {
				t.Errorf("memory request %s", q.String())
			}
			if p.Spec.Containers[1].Resources.Requests == nil {
				t.Error("empty limits: requests stay nil, want an empty map")
			}
		}},
		{"no limits: requests stay nil", v1.Pod{Spec: v1.PodSpec{EphemeralContainers: []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{
			Resources: v1.ResourceRequirements{Limits: v1.ResourceList{"cpu": resource.MustParse("1")}}}}}}}, func(t *testing.T, p *v1.Pod) {
			if p.Spec.EphemeralContainers[0].Resources.Requests != nil {
				t.Error("ephemeral container got requests from limits")
			}
		}},
		{"volumes", v1.Pod{Spec: v1.PodSpec{Volumes: []v1.Volume{
			{Name: "none"},
			{Name: "secret", VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{}}},
			{Name: "proj", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{Sources: []v1.VolumeProjection{{ServiceAccountToken: &v1.ServiceAccountTokenProjection{}}}}}},
			{Name: "img", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "artifact"}}},
			{Name: "hp", VolumeSource: v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/x"}}},
		}}}, func(t *testing.T, p *v1.Pod) {
			v := p.Spec.Volumes
			if v[0].EmptyDir == nil {
				t.Error("no source: want emptyDir")
			}
			if *v[1].Secret.DefaultMode != 0o644 {
				t.Errorf("secret mode %o", *v[1].Secret.DefaultMode)
			}
			if *v[2].Projected.DefaultMode != 0o644 || *v[2].Projected.Sources[0].ServiceAccountToken.ExpirationSeconds != 3600 {
				t.Errorf("projected = %+v", v[2].Projected)
			}
			if v[3].Image.PullPolicy != v1.PullAlways || v[3].EmptyDir != nil {
				t.Errorf("image = %+v", v[3].VolumeSource)
			}
			if v[4].HostPath.Type == nil || *v[4].HostPath.Type != v1.HostPathUnset {
				t.Errorf("hostPath = %+v", v[4].HostPath)
			}
		}},
		{"status IPs", v1.Pod{Status: v1.PodStatus{PodIP: "10.0.0.1", PodIPs: []v1.PodIP{{IP: "10.0.0.2"}, {IP: "fd00::1"}}}}, func(t *testing.T, p *v1.Pod) {
			if len(p.Status.PodIPs) != 1 || p.Status.PodIPs[0].IP != "10.0.0.1" {
				t.Errorf("podIPs = %v", p.Status.PodIPs)
			}
		}},
		{"status IP from list", v1.Pod{Status: v1.PodStatus{PodIPs: []v1.PodIP{{IP: "10.0.0.2"}}}}, func(t *testing.T, p *v1.Pod) {
			if p.Status.PodIP != "10.0.0.2" {
				t.Errorf("podIP = %q", p.Status.PodIP)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.pod.DeepCopy()
			Pod(p)
			tc.check(t, p)
			again := p.DeepCopy()
			Pod(again)
			if !equality.Semantic.DeepEqual(p, again) {
				t.Error("second Pod changed the pod")
			}
		})
	}
}

func TestNilPod(t *testing.T) {
	Pod(nil)
	if PodCopy(nil) != nil {
		t.Error("PodCopy(nil) != nil")
	}
}

// A minimal pod: validation.Pod rejects it before defaulting and accepts it
// after.
func TestMinimalPodValidates(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
	if validation.Pod(pod) == nil {
		t.Fatal("undefaulted minimal pod accepted: the test proves nothing")
	}
	d := PodCopy(pod)
	if err := validation.Pod(d); err != nil {
		t.Fatalf("defaulted minimal pod rejected: %v", err)
	}
	if pod.Spec.RestartPolicy != "" {
		t.Error("PodCopy changed its argument")
	}
}

// Defaulting is idempotent and keeps podgen pods (already defaulted, as the
// API server stores them) valid.
func TestIdempotentOnPodgenPods(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pod := podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
		once := PodCopy(pod)
		twice := PodCopy(once)
		if !equality.Semantic.DeepEqual(once, twice) {
			t.Fatal("Pod is not idempotent")
		}
		if err := validation.Pod(once); err != nil {
			t.Fatalf("defaulted podgen pod rejected: %v", err)
		}
	})
}

// TestCreated: only a manifest of an API pod (generation 0, no phase, no
// static config source) gets the generation 1 the API server gives it.
func TestCreated(t *testing.T) {
	for _, c := range []struct {
		name   string
		gen    int64
		phase  v1.PodPhase
		source string // "": no annotation
		want   int64
	}{
		{"manifest", 0, "", "", 1},
		{"manifest of an API pod", 0, "", "api", 1},
		{"generation given", 3, "", "", 3},
		{"read back with a status", 0, v1.PodRunning, "", 0},
		{"static pod from a file", 0, "", "file", 0},
		{"static pod from a URL", 0, "", "http", 0},
	} {
		pod := &v1.Pod{}
		pod.Generation, pod.Status.Phase = c.gen, c.phase
		if c.source != "" {
			pod.Annotations = map[string]string{"kubernetes.io/config.source": c.source}
		}
		Created(pod)
		if pod.Generation != c.want {
			t.Errorf("%s: generation %d, want %d", c.name, pod.Generation, c.want)
		}
	}
	Created(nil)
}
