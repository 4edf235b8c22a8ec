package podgen

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// This file holds the self-checks the tests run on every generated value:
// the subset of v1.37.2 API validation (pkg/apis/core/validation) that
// concerns the fields Pod sets, and the consistency RuntimeState promises.

var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// podProblems lists what the API server would reject in pod, or what o
// forbids.
func podProblems(pod *v1.Pod, o PodOptions) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	spec := &pod.Spec

	if pod.UID == "" || pod.Name == "" || pod.Namespace == "" {
		bad("identity not set: %q %q %q", pod.UID, pod.Name, pod.Namespace)
	}
	if !slices.Contains(o.restartPolicies(), spec.RestartPolicy) {
		bad("restartPolicy %q", spec.RestartPolicy)
	}
	if spec.DNSPolicy == "" {
		bad("dnsPolicy not set")
	}
	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		bad("negative terminationGracePeriodSeconds %d", *g)
	}
	if (pod.DeletionTimestamp == nil) != (pod.DeletionGracePeriodSeconds == nil) {
		bad("deletionTimestamp and deletionGracePeriodSeconds not set together")
	}
	if g := pod.DeletionGracePeriodSeconds; g != nil && *g < 1 {
		bad("deletionGracePeriodSeconds %d", *g)
	}
	if o.NoDeletion && pod.DeletionTimestamp != nil {
		bad("deletionTimestamp despite NoDeletion")
	}
	if o.NoHostNetwork && spec.HostNetwork {
		bad("hostNetwork despite NoHostNetwork")
	}

	// Counts.
	nInit, nSide := 0, 0
	for i := range spec.InitContainers {
		if restart.IsSidecar(&spec.InitContainers[i]) {
			nSide++
		} else {
			nInit++
		}
	}
	if n := len(spec.Containers); n < 1 || n > orDefault(o.MaxContainers, 4) {
		bad("%d containers", n)
	}
	if nInit > orDefault(o.MaxInitContainers, 3) || (o.NoInitContainers && nInit > 0) {
		bad("%d regular init containers", nInit)
	}
	if nSide > orDefault(o.MaxSidecars, 3) || (o.NoSidecars && nSide > 0) {
		bad("%d sidecars", nSide)
	}
	if n := len(spec.EphemeralContainers); n > orDefault(o.MaxEphemeral, 2) || (o.NoEphemeral && n > 0) {
		bad("%d ephemeral containers", n)
	}

	// Names unique across all three lists.
	names := map[string]bool{}
	name := func(n string) {
		if !dns1123Label.MatchString(n) || len(n) > 63 {
			bad("container name %q is not a DNS-1123 label", n)
		}
		if names[n] {
			bad("duplicate container name %q", n)
		}
		names[n] = true
	}

	common := func(c *v1.Container) {
		name(c.Name)
		if c.Image == "" {
			bad("%s: no image", c.Name)
		}
		if odd := len(o.Images) == 0 && strings.HasPrefix(c.Image, OddImagePrefix); !odd && !slices.Contains(o.images(), c.Image) {
			bad("%s: image %q not from the pool", c.Name, c.Image)
		}
		if c.ImagePullPolicy == "" {
			bad("%s: no imagePullPolicy", c.Name)
		}
		switch c.TerminationMessagePolicy {
		case v1.TerminationMessageReadFile, v1.TerminationMessageFallbackToLogsOnError:
		default:
			bad("%s: terminationMessagePolicy %q", c.Name, c.TerminationMessagePolicy)
		}
		resourceProblems(c, bad)
		if o.NoResources && (len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 || len(c.ResizePolicy) > 0) {
			bad("%s: resources despite NoResources", c.Name)
		}
		if o.NoResizePolicy && len(c.ResizePolicy) > 0 {
			bad("%s: resizePolicy despite NoResizePolicy", c.Name)
		}
		seen := map[v1.ResourceName]bool{}
		for _, p := range c.ResizePolicy {
			if p.ResourceName != v1.ResourceCPU && p.ResourceName != v1.ResourceMemory || seen[p.ResourceName] {
				bad("%s: resizePolicy resource %q", c.Name, p.ResourceName)
			}
			seen[p.ResourceName] = true
			switch p.RestartPolicy {
			case v1.NotRequired:
			case v1.RestartContainer:
				if spec.RestartPolicy == v1.RestartPolicyNever {
					bad("%s: resizePolicy RestartContainer in a Never pod", c.Name)
				}
			default:
				bad("%s: resizePolicy %q", c.Name, p.RestartPolicy)
			}
		}
		if c.Lifecycle != nil {
			bad("%s: lifecycle is never generated", c.Name)
		}
	}
	probes := func(c *v1.Container, allowed bool) {
		for _, p := range []struct {
			kind string
			p    *v1.Probe
		}{{"liveness", c.LivenessProbe}, {"startup", c.StartupProbe}, {"readiness", c.ReadinessProbe}} {
			if p.p == nil {
				continue
			}
			if !allowed || o.NoProbes {
				bad("%s: %s probe not allowed", c.Name, p.kind)
			}
			h := p.p.ProbeHandler
			n := 0
			for _, set := range []bool{h.Exec != nil, h.HTTPGet != nil, h.TCPSocket != nil, h.GRPC != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				bad("%s: %s probe has %d handlers", c.Name, p.kind, n)
			}
			if p.kind != "readiness" && p.p.SuccessThreshold != 1 {
				bad("%s: %s probe successThreshold %d", c.Name, p.kind, p.p.SuccessThreshold)
			}
			if g := p.p.TerminationGracePeriodSeconds; g != nil && (p.kind == "readiness" || *g <= 0) {
				bad("%s: %s probe terminationGracePeriodSeconds %d", c.Name, p.kind, *g)
			}
			if p.p.TimeoutSeconds < 0 || p.p.PeriodSeconds < 0 || p.p.FailureThreshold < 0 {
				bad("%s: %s probe negative field", c.Name, p.kind)
			}
		}
	}
	rules := func(c *v1.Container, sidecar bool) {
		if len(c.RestartPolicyRules) == 0 {
			return
		}
		if c.RestartPolicy == nil {
			bad("%s: restartPolicyRules without restartPolicy", c.Name)
		}
		if o.NoRestartRules {
			bad("%s: rules despite NoRestartRules", c.Name)
		}
		if sidecar && o.NoRestartAllContainers {
			bad("%s: sidecar rules despite NoRestartAllContainers", c.Name)
		}
		if len(c.RestartPolicyRules) > 20 {
			bad("%s: %d rules", c.Name, len(c.RestartPolicyRules))
		}
		for i, r := range c.RestartPolicyRules {
			switch r.Action {
			case v1.ContainerRestartRuleActionRestart:
			case v1.ContainerRestartRuleActionRestartAllContainers:
				if o.NoRestartAllContainers {
					bad("%s: rule %d RestartAllContainers despite NoRestartAllContainers", c.Name, i)
				}
			default:
				bad("%s: rule %d action %q", c.Name, i, r.Action)
			}
			if r.ExitCodes == nil {
				bad("%s: rule %d without exitCodes", c.Name, i)
				continue
			}
			switch r.ExitCodes.Operator {
			case v1.ContainerRestartRuleOnExitCodesOpIn, v1.ContainerRestartRuleOnExitCodesOpNotIn:
			default:
				bad("%s: rule %d operator %q", c.Name, i, r.ExitCodes.Operator)
			}
			if len(r.ExitCodes.Values) > 255 {
				bad("%s: rule %d has %d values", c.Name, i, len(r.ExitCodes.Values))
			}
			seen := map[int32]bool{}
			for _, v := range r.ExitCodes.Values {
				if seen[v] {
					bad("%s: rule %d repeats value %d (the list is a set)", c.Name, i, v)
				}
				seen[v] = true
			}
		}
	}

	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		common(c)
		sidecar := restart.IsSidecar(c)
		if c.RestartPolicy != nil && !sidecar {
			switch *c.RestartPolicy {
			case v1.ContainerRestartPolicyOnFailure, v1.ContainerRestartPolicyNever:
				if o.NoRestartRules {
					bad("%s: restartPolicy despite NoRestartRules", c.Name)
				}
			default:
				bad("%s: init restartPolicy %q", c.Name, *c.RestartPolicy)
			}
		}
		rules(c, sidecar)
		probes(c, sidecar)
		if !sidecar {
			for _, p := range c.ResizePolicy {
				if p.RestartPolicy == v1.RestartContainer {
					bad("%s: resizePolicy RestartContainer on a regular init container", c.Name)
				}
			}
		}
	}
	for i := range spec.Containers {
		c := &spec.Containers[i]
		common(c)
		if c.RestartPolicy != nil {
			switch *c.RestartPolicy {
			case v1.ContainerRestartPolicyAlways, v1.ContainerRestartPolicyOnFailure, v1.ContainerRestartPolicyNever:
			default:
				bad("%s: restartPolicy %q", c.Name, *c.RestartPolicy)
			}
			if o.NoRestartRules {
				bad("%s: restartPolicy despite NoRestartRules", c.Name)
			}
		}
		rules(c, false)
		probes(c, true)
	}
	for i := range spec.EphemeralContainers {
		ec := &spec.EphemeralContainers[i]
		c := (*v1.Container)(&ec.EphemeralContainerCommon)
		name(c.Name)
		if c.Image == "" || c.ImagePullPolicy == "" || c.TerminationMessagePolicy == "" {
			bad("%s: image, imagePullPolicy or terminationMessagePolicy missing", c.Name)
		}
		if c.LivenessProbe != nil || c.StartupProbe != nil || c.ReadinessProbe != nil || c.Lifecycle != nil ||
			len(c.Ports) > 0 || len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 ||
			c.RestartPolicy != nil || len(c.RestartPolicyRules) > 0 || len(c.ResizePolicy) > 0 {
			bad("%s: field not allowed on an ephemeral container", c.Name)
		}
		if ec.TargetContainerName != "" && !slices.ContainsFunc(spec.Containers, func(c v1.Container) bool { return c.Name == ec.TargetContainerName }) &&
			!slices.ContainsFunc(spec.InitContainers, func(c v1.Container) bool { return c.Name == ec.TargetContainerName }) {
			bad("%s: target %q not found", c.Name, ec.TargetContainerName)
		}
	}

	if spec.Resources != nil {
		if o.NoResources || o.NoPodResources {
			bad("pod-level resources despite options")
		}
		podResourceProblems(spec, bad)
	}

	vols := map[string]bool{}
	for _, v := range spec.Volumes {
		if !dns1123Label.MatchString(v.Name) || vols[v.Name] {
			bad("volume name %q", v.Name)
		}
		vols[v.Name] = true
		if o.NoVolumes {
			bad("volume despite NoVolumes")
		}
		if ed := v.EmptyDir; ed != nil && ed.SizeLimit != nil && ed.SizeLimit.Sign() <= 0 {
			bad("volume %s: sizeLimit %s", v.Name, ed.SizeLimit)
		}
	}
	return errs
}

func resourceProblems(c *v1.Container, bad func(string, ...any)) {
	for _, rl := range []v1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
		for r, q := range rl {
			if r != v1.ResourceCPU && r != v1.ResourceMemory {
				bad("%s: resource %q", c.Name, r)
			}
			if q.Sign() < 0 {
				bad("%s: negative %s", c.Name, r)
			}
		}
	}
	for r, req := range c.Resources.Requests {
		if lim, ok := c.Resources.Limits[r]; ok && req.Cmp(lim) > 0 {
			bad("%s: %s request %s above limit %s", c.Name, r, req.String(), lim.String())
		}
	}
}

// podResourceProblems checks pod-level resources as the API server does:
// requests at least the aggregate container requests (regular containers
// and sidecars together, or any regular init container plus the sidecars
// started before it, whichever is more), limits at least the requests and
// at least every regular container's limit.
func podResourceProblems(spec *v1.PodSpec, bad func(string, ...any)) {
	rr := spec.Resources
	for _, r := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory} {
		var sidecars, regular, aggregate resource.Quantity
		for _, c := range spec.InitContainers {
			q := c.Resources.Requests[r]
			if restart.IsSidecar(&c) {
				sidecars.Add(q)
				continue
			}
			need := sidecars.DeepCopy()
			need.Add(q)
			if need.Cmp(aggregate) > 0 {
				aggregate = need
			}
		}
		for _, c := range spec.Containers {
			regular.Add(c.Resources.Requests[r])
		}
		regular.Add(sidecars)
		if regular.Cmp(aggregate) > 0 {
			aggregate = regular
		}
		req, hasReq := rr.Requests[r]
		lim, hasLim := rr.Limits[r]
		if hasReq && req.Cmp(aggregate) < 0 {
			bad("pod-level %s request %s below aggregate %s", r, req.String(), aggregate.String())
		}
		if hasReq && hasLim && req.Cmp(lim) > 0 {
			bad("pod-level %s request %s above limit %s", r, req.String(), lim.String())
		}
		if hasLim {
			for _, c := range spec.Containers {
				if q, ok := c.Resources.Limits[r]; ok && q.Cmp(lim) > 0 {
					bad("%s: %s limit %s above pod-level limit %s", c.Name, r, q.String(), lim.String())
				}
			}
		}
	}
	for r := range rr.Requests {
		if r != v1.ResourceCPU && r != v1.ResourceMemory {
			bad("pod-level resource %q", r)
		}
	}
}

// specContainer finds the container of pod named name in any list.
func specContainer(pod *v1.Pod, name string) (*v1.Container, kind) {
	for i := range pod.Spec.InitContainers {
		if c := &pod.Spec.InitContainers[i]; c.Name == name {
			if restart.IsSidecar(c) {
				return c, kindSidecar
			}
			return c, kindInit
		}
	}
	for i := range pod.Spec.Containers {
		if c := &pod.Spec.Containers[i]; c.Name == name {
			return c, kindRegular
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		if ec := &pod.Spec.EphemeralContainers[i]; ec.Name == name {
			return (*v1.Container)(&ec.EphemeralContainerCommon), kindEphemeral
		}
	}
	return nil, kindStranger
}

// stateProblems lists what RuntimeState promised and st breaks.
func stateProblems(pod *v1.Pod, st *runtimestate.Pod, o StateOptions) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if err := st.Validate(); err != nil {
		bad("Validate: %v", err)
	}
	if st.UID != pod.UID || st.Name != pod.Name || st.Namespace != pod.Namespace {
		bad("identity differs from the pod")
	}
	if n := len(st.Sandboxes); n > orDefault(o.MaxSandboxes, 3) {
		bad("%d sandboxes", n)
	}
	sandboxes := map[string]*runtimestate.Sandbox{}
	for i := range st.Sandboxes {
		s := &st.Sandboxes[i]
		sandboxes[s.ID] = s
		if s.NoNetworkStatus && (s.IP != "" || len(s.AdditionalIPs) > 0) {
			bad("sandbox %s: IPs without network status", s.ID)
		}
		if o.Realistic && s.IP == "" && len(s.AdditionalIPs) > 0 {
			bad("sandbox %s: additional IPs without a primary one", s.ID)
		}
		if s.CreatedAt.IsZero() || s.CreatedAt.Before(Epoch) {
			bad("sandbox %s: createdAt %v", s.ID, s.CreatedAt)
		}
		if o.Realistic {
			want := runtimestate.NamespacePod
			if pod.Spec.HostNetwork {
				want = runtimestate.NamespaceNode
			}
			if s.NetworkMode != want {
				bad("realistic sandbox %s: network mode %q", s.ID, s.NetworkMode)
			}
			if i > 0 && (s.Ready || st.Sandboxes[i-1].Attempt != s.Attempt+1) {
				bad("realistic sandbox %s: ready old sandbox or attempt gap", s.ID)
			}
			if s.Ready && !pod.Spec.HostNetwork && s.IP == "" {
				bad("realistic sandbox %s: ready without IP", s.ID)
			}
			if s.NoNetworkStatus {
				bad("realistic sandbox %s: no network status", s.ID)
			}
		}
	}

	created := map[int64]string{}
	perName := map[string][]*runtimestate.Container{} // newest first
	for i := range st.Containers {
		c := &st.Containers[i]
		perName[c.Name] = append(perName[c.Name], c)
		if other, ok := created[c.CreatedAt.UnixNano()]; ok {
			bad("%s and %s created at the same instant", c.ID, other)
		}
		created[c.CreatedAt.UnixNano()] = c.ID
		if c.CreatedAt.Before(Epoch) || c.CreatedAt.After(st.Timestamp) {
			bad("%s: createdAt %v outside [Epoch, Timestamp]", c.ID, c.CreatedAt)
		}
		switch c.State {
		case runtimestate.Created:
			if !c.StartedAt.IsZero() {
				bad("%s: created with startedAt", c.ID)
			}
		default:
			if c.StartedAt.IsZero() || c.StartedAt.Before(c.CreatedAt) {
				bad("%s: startedAt %v before createdAt %v", c.ID, c.StartedAt, c.CreatedAt)
			}
		}
		if c.State == runtimestate.Exited {
			if c.FinishedAt.IsZero() || c.FinishedAt.Before(c.StartedAt) || c.FinishedAt.After(st.Timestamp) {
				bad("%s: finishedAt %v (started %v)", c.ID, c.FinishedAt, c.StartedAt)
			}
		} else if !c.FinishedAt.IsZero() || c.ExitCode != 0 || c.Reason != "" || c.Message != "" {
			bad("%s: %s with exit details", c.ID, c.State)
		}
		if _, ok := sandboxes[c.SandboxID]; !ok && (len(st.Sandboxes) > 0 || o.Realistic) {
			bad("%s: sandbox %q not reported", c.ID, c.SandboxID)
		}
		spec, k := specContainer(pod, c.Name)
		if k == kindStranger {
			if o.NoStrangers || o.Realistic {
				bad("%s: name %q not in the spec", c.ID, c.Name)
			}
		} else {
			if c.Hash != containerhash.Of(spec) && c.Hash != 0 && c.Image == spec.Image {
				bad("%s: hash differs though the image is the spec's", c.ID)
			}
			if c.Hash != 0 && c.Hash != containerhash.Of(&v1.Container{Name: c.Name, Image: c.Image}) {
				bad("%s: hash is not that of its image", c.ID)
			}
		}
		if o.Realistic {
			if c.Hash == 0 || c.ExitCode < 0 ||
				c.Reason == "OOMKilled" && c.ExitCode != 137 || c.Reason == "ContainerCannotRun" && c.ExitCode != 128 {
				bad("realistic %s: hash %d, exit code %d, reason %q", c.ID, c.Hash, c.ExitCode, c.Reason)
			}
		}
	}
	for name, insts := range perName {
		if n := len(insts); n > orDefault(o.MaxInstances, 3) {
			bad("%s: %d instances", name, n)
		}
		for i := 1; i < len(insts); i++ {
			newer, older := insts[i-1], insts[i]
			if newer.RestartCount <= older.RestartCount {
				bad("%s: restartCount %d of %s not above %d of %s", name, newer.RestartCount, newer.ID, older.RestartCount, older.ID)
			}
			if o.Realistic && newer.RestartCount != older.RestartCount+1 {
				bad("realistic %s: restartCount gap", name)
			}
			if o.Realistic && older.State != runtimestate.Exited {
				bad("realistic %s: older instance %s is %s", name, older.ID, older.State)
			}
		}
		if o.Realistic && len(insts) > 0 && len(st.Sandboxes) > 0 {
			newest := insts[0]
			if newest.SandboxID != st.Sandboxes[0].ID && newest.State != runtimestate.Exited && newest.State != runtimestate.Unknown {
				bad("realistic %s: %s in an old sandbox", name, newest.State)
			}
		}
		if _, k := specContainer(pod, name); o.Realistic && k == kindEphemeral && len(insts) > 1 {
			bad("realistic %s: ephemeral container restarted", name)
		}
	}
	return errs
}

// probeProblems lists what ProbeResults promised and probes break.
func probeProblems(pod *v1.Pod, st *runtimestate.Pod, probes map[string]vocab.ProbeResults) []string {
	var errs []string
	byID := map[string]*runtimestate.Container{}
	for i := range st.Containers {
		byID[st.Containers[i].ID] = &st.Containers[i]
	}
	for id, r := range probes {
		in := byID[id]
		if in == nil {
			errs = append(errs, fmt.Sprintf("result for unknown container %q", id))
			continue
		}
		if r == (vocab.ProbeResults{}) {
			errs = append(errs, fmt.Sprintf("%s: empty entry", id))
		}
		c, k := specContainer(pod, in.Name)
		if k != kindRegular && k != kindSidecar {
			errs = append(errs, fmt.Sprintf("%s: results for a %s", id, k))
			continue
		}
		if r.Liveness != vocab.ProbeNoResult && c.LivenessProbe == nil || r.Startup != vocab.ProbeNoResult && c.StartupProbe == nil ||
			r.Readiness != vocab.ProbeNoResult && c.ReadinessProbe == nil {
			errs = append(errs, fmt.Sprintf("%s: result for a probe %s does not have", id, in.Name))
		}
	}
	return errs
}

// featureProblems lists what Features promised and s breaks.
func featureProblems(s features.Set, o FeatureOptions) []string {
	var errs []string
	def, _ := features.ForVersion(o.Version)
	if s.Version() != o.Version {
		errs = append(errs, fmt.Sprintf("version %s, want %s", s.Version(), o.Version))
	}
	for _, g := range features.Gates() {
		if o.Version.Locked(g) && !o.FlipLocked && s.Enabled(g) != def.Enabled(g) {
			errs = append(errs, fmt.Sprintf("locked gate %s flipped", g))
		}
		if !o.Version.Has(g) && s.Enabled(g) {
			errs = append(errs, fmt.Sprintf("gate %s on, which %s lacks", g, o.Version))
		}
		if o.IgnoreDependencies || !s.Enabled(g) {
			continue
		}
		for _, d := range Dependencies()[g] {
			if !s.Enabled(d) {
				errs = append(errs, fmt.Sprintf("%s on without %s", g, d))
			}
		}
	}
	return errs
}

// matchingRule is the rule the kubelet applies to exit code of c: the first
// rule whose exit codes match (pkg/api/v1/pod FindMatchingContainerRestartRule).
func matchingRule(c *v1.Container, code int) (v1.ContainerRestartRule, bool) {
	for _, r := range c.RestartPolicyRules {
		if r.ExitCodes == nil {
			continue
		}
		in := slices.Contains(r.ExitCodes.Values, int32(code))
		switch r.ExitCodes.Operator {
		case v1.ContainerRestartRuleOnExitCodesOpIn:
			if in {
				return r, true
			}
		case v1.ContainerRestartRuleOnExitCodesOpNotIn:
			if !in {
				return r, true
			}
		}
	}
	return v1.ContainerRestartRule{}, false
}
