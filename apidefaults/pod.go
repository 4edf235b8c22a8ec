package apidefaults

import (
	"reflect"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Pod fills in, in place, every field the v1.37.2 API server's defaulting
// fills in on a pod (SetObjectDefaults_Pod in k8s.io/kubernetes
// pkg/apis/core/v1, with the API server's default feature gates; the
// package documentation lists the fields and the gates). Fields already set
// are kept, except a negative terminationGracePeriodSeconds, which becomes
// 1, and quantities, which are rounded up to a whole milli-unit.
//
// Pod is idempotent, and a nil pod is left alone.
func Pod(pod *v1.Pod) {
	if pod == nil {
		return
	}
	spec := &pod.Spec
	defaultPodOnly(pod)
	defaultSpec(spec)
	for i := range spec.Volumes {
		defaultVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		defaultContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		defaultContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		defaultContainer((*v1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	roundUp(spec.Overhead)
	if spec.Resources != nil {
		roundRequirements(spec.Resources)
	}
	defaultStatus(&pod.Status)
}

// PodCopy returns a defaulted deep copy of pod (see Pod), leaving pod
// unchanged; nil for a nil pod.
func PodCopy(pod *v1.Pod) *v1.Pod {
	if pod == nil {
		return nil
	}
	out := pod.DeepCopy()
	Pod(out)
	return out
}

// defaultPodOnly fills in what the API server defaults on a Pod but not on
// a pod template (SetDefaults_Pod).
func defaultPodOnly(pod *v1.Pod) {
	spec := &pod.Spec
	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		spec.TerminationGracePeriodSeconds = ptrTo(int64(1))
	}
	for i := range spec.Containers {
		requestsFromLimits(&spec.Containers[i].Resources)
	}
	for i := range spec.InitContainers {
		requestsFromLimits(&spec.InitContainers[i].Resources)
	}
	if spec.EnableServiceLinks == nil {
		spec.EnableServiceLinks = ptrTo(v1.DefaultEnableServiceLinks)
	}
	if spec.HostNetwork {
		hostPortsFromContainerPorts(spec.Containers)
		hostPortsFromContainerPorts(spec.InitContainers)
	}
}

// requestsFromLimits gives every resource with a limit and no request a
// request equal to the limit. A non-nil limits map, even an empty one,
// makes the requests map non-nil.
func requestsFromLimits(r *v1.ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = v1.ResourceList{}
	}
	for name, limit := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			r.Requests[name] = limit.DeepCopy()
		}
	}
}

func hostPortsFromContainerPorts(cs []v1.Container) {
	for i := range cs {
		for j := range cs[i].Ports {
			p := &cs[i].Ports[j]
			if p.HostPort == 0 {
				p.HostPort = p.ContainerPort
			}
		}
	}
}

// defaultSpec fills in what the API server defaults on every pod spec, a
// pod template's included (SetDefaults_PodSpec).
func defaultSpec(spec *v1.PodSpec) {
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = v1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = v1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &v1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptrTo(int64(v1.DefaultTerminationGracePeriodSeconds))
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = v1.DefaultSchedulerName
	}
}

// defaultContainer fills in one container's defaults; an ephemeral
// container is passed as its common part, which has the same layout.
func defaultContainer(c *v1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicyFor(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = v1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = v1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = v1.ProtocolTCP
		}
	}
	for i := range c.Env {
		src := c.Env[i].ValueFrom
		if src == nil {
			continue
		}
		if src.FieldRef != nil {
			defaultFieldRef(src.FieldRef)
		}
		if src.FileKeyRef != nil && src.FileKeyRef.Optional == nil {
			src.FileKeyRef.Optional = ptrTo(false)
		}
	}
	roundRequirements(&c.Resources)
	for _, p := range []*v1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p != nil {
			defaultProbe(p)
		}
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*v1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil && h.HTTPGet != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

func defaultProbe(p *v1.Probe) {
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	if p.HTTPGet != nil {
		defaultHTTPGet(p.HTTPGet)
	}
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptrTo("")
	}
}

func defaultHTTPGet(h *v1.HTTPGetAction) {
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = v1.URISchemeHTTP
	}
}

func defaultFieldRef(f *v1.ObjectFieldSelector) {
	if f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// defaultVolume fills in a volume's defaults (SetDefaults_Volume and the
// defaults of each volume source).
func defaultVolume(vol *v1.Volume) {
	if noSourceSet(&vol.VolumeSource) {
		vol.VolumeSource = v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}
	}
	src := &vol.VolumeSource
	if src.Image != nil && src.Image.PullPolicy == "" {
		src.Image.PullPolicy = pullPolicyFor(src.Image.Reference)
	}
	if src.HostPath != nil && src.HostPath.Type == nil {
		src.HostPath.Type = ptrTo(v1.HostPathUnset)
	}
	if src.Secret != nil && src.Secret.DefaultMode == nil {
		src.Secret.DefaultMode = ptrTo(v1.SecretVolumeSourceDefaultMode)
	}
	if s := src.ISCSI; s != nil && s.ISCSIInterface == "" {
		s.ISCSIInterface = "default"
	}
	if s := src.RBD; s != nil {
		if s.RBDPool == "" {
			s.RBDPool = "rbd"
		}
		if s.RadosUser == "" {
			s.RadosUser = "admin"
		}
		if s.Keyring == "" {
			s.Keyring = "/etc/ceph/keyring"
		}
	}
	if s := src.DownwardAPI; s != nil {
		if s.DefaultMode == nil {
			s.DefaultMode = ptrTo(v1.DownwardAPIVolumeSourceDefaultMode)
		}
		defaultDownwardItems(s.Items)
	}
	if src.ConfigMap != nil && src.ConfigMap.DefaultMode == nil {
		src.ConfigMap.DefaultMode = ptrTo(v1.ConfigMapVolumeSourceDefaultMode)
	}
	if s := src.AzureDisk; s != nil {
		if s.CachingMode == nil {
			s.CachingMode = ptrTo(v1.AzureDataDiskCachingReadWrite)
		}
		if s.FSType == nil {
			s.FSType = ptrTo("ext4")
		}
		if s.ReadOnly == nil {
			s.ReadOnly = ptrTo(false)
		}
		if s.Kind == nil {
			s.Kind = ptrTo(v1.AzureSharedBlobDisk)
		}
	}
	if s := src.Projected; s != nil {
		if s.DefaultMode == nil {
			s.DefaultMode = ptrTo(v1.ProjectedVolumeSourceDefaultMode)
		}
		for i := range s.Sources {
			p := &s.Sources[i]
			if p.DownwardAPI != nil {
				defaultDownwardItems(p.DownwardAPI.Items)
			}
			if t := p.ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
				t.ExpirationSeconds = ptrTo(int64(3600))
			}
		}
	}
	if s := src.ScaleIO; s != nil {
		if s.StorageMode == "" {
			s.StorageMode = "ThinProvisioned"
		}
		if s.FSType == "" {
			s.FSType = "xfs"
		}
	}
	if s := src.Ephemeral; s != nil && s.VolumeClaimTemplate != nil {
		claim := &s.VolumeClaimTemplate.Spec
		if claim.VolumeMode == nil {
			claim.VolumeMode = ptrTo(v1.PersistentVolumeFilesystem)
		}
		roundUp(claim.Resources.Limits)
		roundUp(claim.Resources.Requests)
	}
}

func defaultDownwardItems(items []v1.DownwardAPIVolumeFile) {
	for i := range items {
		if items[i].FieldRef != nil {
			defaultFieldRef(items[i].FieldRef)
		}
	}
}

// noSourceSet reports whether every pointer field of a volume source is nil
// (the API server's test, made by reflection, so that a source added to
// k8s.io/api later counts as well).
func noSourceSet(src *v1.VolumeSource) bool {
	v := reflect.ValueOf(src).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			return false
		}
	}
	return true
}

// defaultStatus keeps podIP and podIPs in step and rounds the status
// quantities (SetDefaults_PodStatus and the status part of
// SetObjectDefaults_Pod).
func defaultStatus(st *v1.PodStatus) {
	hasIP, hasIPs := st.PodIP != "", len(st.PodIPs) > 0
	switch {
	case hasIP && !hasIPs:
		st.PodIPs = []v1.PodIP{{IP: st.PodIP}}
	case !hasIP && hasIPs:
		st.PodIP = st.PodIPs[0].IP
	case hasIP && hasIPs && st.PodIPs[0].IP != st.PodIP:
		st.PodIPs = []v1.PodIP{{IP: st.PodIP}}
	}
	for _, list := range [][]v1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.EphemeralContainerStatuses} {
		for i := range list {
			roundUp(list[i].AllocatedResources)
			if list[i].Resources != nil {
				roundRequirements(list[i].Resources)
			}
		}
	}
	roundUp(st.AllocatedResources)
	if st.Resources != nil {
		roundRequirements(st.Resources)
	}
}

func roundRequirements(r *v1.ResourceRequirements) {
	roundUp(r.Limits)
	roundUp(r.Requests)
}

// roundUp rounds every quantity in l up to a whole milli-unit, in place
// (SetDefaults_ResourceList).
func roundUp(l v1.ResourceList) {
	for name, q := range l {
		q.RoundUp(resource.Milli)
		l[name] = q
	}
}

func ptrTo[T any](v T) *T { return &v }

// Created sets, in place, what the API server's pod strategy sets when it
// creates a pod and a manifest as written lacks: metadata.generation 1
// (PrepareForCreate in pkg/registry/core/pod/strategy.go, v1.37.2 line 89;
// the same in v1.35 and v1.36). The kubelet writes the generation it sees
// into status.observedGeneration and the conditions' observedGeneration
// (gate PodObservedGenerationTracking), so a manifest read without Created
// shows 0 where a real cluster shows 1.
//
// Only a manifest is changed: a pod with generation 0, no status phase
// (every pod read back from the API server, a capture or the simulator has
// one: the API server writes Pending at creation) and no
// kubernetes.io/config.source other than "api" (a static pod, from a file
// or URL, has no API object, and the kubelet keeps the generation its
// source gives, usually none). A nil pod is left alone.
func Created(pod *v1.Pod) {
	if pod == nil || pod.Generation != 0 || pod.Status.Phase != "" {
		return
	}
	if src, ok := pod.Annotations[configSource]; ok && src != "api" {
		return
	}
	pod.Generation = 1
}

// configSource is the annotation the kubelet reads a pod's source from
// (kubetypes.ConfigSourceAnnotationKey).
const configSource = "kubernetes.io/config.source"
