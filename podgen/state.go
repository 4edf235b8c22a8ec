package podgen

import (
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// StateOptions restrict what RuntimeState generates. The zero value
// generates everything described on RuntimeState.
type StateOptions struct {
	// MaxSandboxes bounds the sandboxes. Zero means 3.
	MaxSandboxes int
	// MaxInstances bounds the instances per container name. Zero means 3.
	MaxInstances int
	// Realistic keeps to what a v1.37.2 kubelet on a healthy node leaves
	// behind:
	//   - sandbox attempts go up by one, only the latest sandbox may be
	//     ready, its network mode matches hostNetwork, and a ready
	//     sandbox of a pod without hostNetwork reports an IP;
	//   - every instance names a container of the spec and lives in a
	//     sandbox the runtime still reports;
	//   - only the newest instance of a name may be created, running or
	//     unknown, and only in the latest sandbox (in an older sandbox it
	//     is exited or unknown); ephemeral containers have one instance;
	//   - restart counts go up by one per instance; hashes are never 0;
	//     exit codes are not negative; OOMKilled comes with exit code 137
	//     and ContainerCannotRun with 128.
	// Without it, each of these is broken now and then.
	Realistic bool
	// NoStrangers never adds instances whose name is not in the spec
	// (Realistic implies it).
	NoStrangers bool
	// AllExited is the percentage of draws (0-100) in which the pod's
	// containers have all stopped: at least one sandbox, none ready, and
	// at least one instance of every container name of the spec, every
	// instance exited. This is what a pod that reached a terminal phase
	// leaves behind, which draws reach rarely otherwise (see doc.go,
	// "Terminal pods"). Zero leaves the draws as they are.
	AllExited int
}

// stateExitCodes are the exit codes of exited instances, besides those of
// the container's own rules.
var stateExitCodes = []int{0, 1, 2, 42, 128, 137, 143, 255}

// RuntimeState returns a generator of runtime states of pod, as
// runtimestate.Pod values that pass Validate:
//
//   - 0-3 sandboxes, newest first by attempt (equal attempts, or one skipped, now and then),
//     ready or not (more than one ready now and then), with network mode
//     NODE for hostNetwork pods and POD otherwise (now and then another
//     mode, or "" which reads as POD), and an IPv4 or IPv6 primary IP
//     (dual stack in either order), an empty IP (now and then with
//     additional IPs only), no network status at all, and (unless
//     Realistic) now and then an IP that does not parse, parses only with
//     leading zeros, or repeats a family;
//   - for each container name of the spec (regular, init, sidecar,
//     ephemeral) 0-3 instances (0 models a container that never ran or
//     whose instances were garbage-collected), oldest first in older
//     sandboxes, with restart counts going up; now and then an instance
//     whose name is not in the spec (the library must ignore it);
//   - states created, running, exited or unknown; exit codes 0, 1, 2, 42,
//     128, 137, 143, 255, the values of the container's rules, and now and
//     then a negative one; reasons Completed, Error, OOMKilled,
//     ContainerCannotRun or none;
//   - Hash usually containerhash.Of the spec container, sometimes the hash
//     of another image of DefaultImages (the instance then reports it)
//     or 0 (annotation missing);
//   - CreatedAt <= StartedAt <= FinishedAt, StartedAt zero only for created
//     instances, exit code, reason, message and FinishedAt only on exited
//     ones; no two instances share a CreatedAt, so newest-first is well
//     defined; every time is Epoch plus drawn offsets;
//   - resources reported for some instances, equal to the spec or not;
//   - container IDs "cNN" numbered in creation order, sandbox IDs "sN".
//
// RuntimeState panics if pod is nil. The pod is only read.
func RuntimeState(pod *v1.Pod, opts StateOptions) *rapid.Generator[*runtimestate.Pod] {
	if pod == nil {
		panic("podgen.RuntimeState: nil pod")
	}
	return rapid.Custom(func(t *rapid.T) *runtimestate.Pod { return drawState(t, pod, opts) })
}

// specEntry is a container name of the spec (or a stranger) and what an
// instance of it is created from.
type specEntry struct {
	kind kind
	c    *v1.Container
}

func specEntries(pod *v1.Pod) []specEntry {
	var out []specEntry
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		k := kindInit
		if restart.IsSidecar(c) {
			k = kindSidecar
		}
		out = append(out, specEntry{k, c})
	}
	for i := range pod.Spec.Containers {
		out = append(out, specEntry{kindRegular, &pod.Spec.Containers[i]})
	}
	for i := range pod.Spec.EphemeralContainers {
		out = append(out, specEntry{kindEphemeral, (*v1.Container)(&pod.Spec.EphemeralContainers[i].EphemeralContainerCommon)})
	}
	return out
}

// instance is a container instance while it is being laid out in time.
type instance struct {
	runtimestate.Container
	sandbox int // index into the sandboxes in creation order; -1: removed
	// offsets from the sandbox's creation; end is when the next instance
	// of the same name may be created.
	created, started, finished, end time.Duration
}

func drawState(t *rapid.T, pod *v1.Pod, o StateOptions) *runtimestate.Pod {
	realistic := o.Realistic
	settled := chance(t, o.AllExited, "all instances exited")
	minSandboxes := 0
	if settled {
		minSandboxes = 1
	}
	nSandboxes := rapid.IntRange(minSandboxes, max(minSandboxes, orDefault(o.MaxSandboxes, 3))).Draw(t, "sandboxes")
	maxInstances := orDefault(o.MaxInstances, 3)

	entries := specEntries(pod)
	if !realistic && !o.NoStrangers && chance(t, 5, "stranger instances") {
		entries = append(entries, specEntry{kindStranger, &v1.Container{Name: "ghost", Image: DefaultImages[0]}})
	}

	// Containers can outlive their sandbox only when the runtime removed
	// the sandbox first; a realistic runtime has none then.
	orphans := nSandboxes == 0 && !realistic && chance(t, 15, "instances of a removed sandbox")

	var insts []*instance
	for _, e := range entries {
		name := e.c.Name
		n := 0
		if nSandboxes > 0 || orphans {
			max := maxInstances
			if realistic && e.kind == kindEphemeral {
				max = 1
			}
			least := 0
			if settled && e.kind != kindStranger {
				least = 1
			}
			n = rapid.IntRange(least, max).Draw(t, name+" instances")
		}
		sb := 0
		if orphans {
			sb = -1
		}
		var cursor time.Duration
		restarts := 0
		if n > 0 && chance(t, 25, name+" older instances collected") {
			restarts = rapid.IntRange(1, 10).Draw(t, name+" first restartCount")
		}
		for j := range n {
			l := fmt.Sprintf("%s instance %d", name, j)
			if sb >= 0 {
				next := rapid.IntRange(sb, nSandboxes-1).Draw(t, l+" sandbox")
				if next != sb {
					cursor = 0
				}
				sb = next
			}
			newest := j == n-1
			inLatest := sb == nSandboxes-1 || sb < 0
			in := &instance{sandbox: sb}
			in.Name = name
			in.RestartCount = restarts
			if settled {
				in.State = runtimestate.Exited
			} else {
				in.State = drawInstanceState(t, l, realistic, newest, inLatest)
			}
			drawInstance(t, l, in, e, realistic)

			in.created = cursor + seconds(rapid.IntRange(1, 120).Draw(t, l+" created"))
			in.end = in.created
			if in.State != runtimestate.Created {
				in.started = in.created + seconds(rapid.IntRange(0, 5).Draw(t, l+" started"))
				in.end = in.started
			}
			if in.State == runtimestate.Exited {
				in.finished = in.started + seconds(rapid.IntRange(0, 900).Draw(t, l+" ran for"))
				in.end = in.finished
			}
			cursor = in.end
			insts = append(insts, in)

			restarts++
			if !realistic && chance(t, 10, l+" restartCount gap") {
				restarts += rapid.IntRange(1, 3).Draw(t, l+" restartCount gap size")
			}
		}
	}

	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace}

	// Lay the sandboxes out one after the other, each created after the
	// last instance of the one before it ended.
	starts := make([]time.Time, nSandboxes)
	at := Epoch.Add(seconds(rapid.IntRange(0, 3600).Draw(t, "first sandbox created")))
	removedAt := at
	for k := range nSandboxes {
		starts[k] = at
		var last time.Duration
		for _, in := range insts {
			if in.sandbox == k && in.end > last {
				last = in.end
			}
		}
		at = at.Add(last + seconds(1+rapid.IntRange(0, 600).Draw(t, fmt.Sprintf("sandbox %d lifetime", k))))
	}
	for k := range nSandboxes {
		st.Sandboxes = append(st.Sandboxes, drawSandbox(t, pod, k, nSandboxes, starts[k], realistic))
		if settled {
			st.Sandboxes[k].Ready = false
		}
	}
	for k := 1; k < nSandboxes; k++ {
		st.Sandboxes[k].Attempt = st.Sandboxes[k-1].Attempt + 1
		if !realistic {
			switch weighted(t, fmt.Sprintf("sandbox %d attempt step", k), 80, 10, 10) {
			case 1:
				st.Sandboxes[k].Attempt--
			case 2:
				st.Sandboxes[k].Attempt++
			}
		}
	}

	// Absolute times, then break ties in CreatedAt by a millisecond each:
	// instances of one name are at least a second apart, so this keeps
	// every name's order.
	for _, in := range insts {
		base := removedAt
		if in.sandbox >= 0 {
			base = starts[in.sandbox]
			in.SandboxID = st.Sandboxes[in.sandbox].ID
		} else {
			in.SandboxID = "s-removed"
		}
		in.CreatedAt = base.Add(in.created)
		if in.State != runtimestate.Created {
			in.StartedAt = base.Add(in.started)
		}
		if in.State == runtimestate.Exited {
			in.FinishedAt = base.Add(in.finished)
		}
	}
	sort.SliceStable(insts, func(i, j int) bool { return insts[i].CreatedAt.Before(insts[j].CreatedAt) })
	for i := 1; i < len(insts); i++ {
		if prev := insts[i-1].CreatedAt; !insts[i].CreatedAt.After(prev) {
			shift := prev.Add(time.Millisecond).Sub(insts[i].CreatedAt)
			in := insts[i]
			in.CreatedAt = in.CreatedAt.Add(shift)
			if !in.StartedAt.IsZero() {
				in.StartedAt = in.StartedAt.Add(shift)
			}
			if !in.FinishedAt.IsZero() {
				in.FinishedAt = in.FinishedAt.Add(shift)
			}
		}
	}
	last := at
	for i, in := range insts {
		in.ID = fmt.Sprintf("c%02d", i+1)
		for _, ts := range []time.Time{in.CreatedAt, in.StartedAt, in.FinishedAt} {
			if ts.After(last) {
				last = ts
			}
		}
	}
	for i := len(insts) - 1; i >= 0; i-- {
		st.Containers = append(st.Containers, insts[i].Container)
	}
	st.Timestamp = last.Add(seconds(1 + rapid.IntRange(0, 60).Draw(t, "state read after")))
	st.Normalize()
	return st
}

func drawInstanceState(t *rapid.T, l string, realistic, newest, inLatest bool) runtimestate.State {
	states := []runtimestate.State{runtimestate.Exited, runtimestate.Running, runtimestate.Created, runtimestate.Unknown}
	switch {
	case newest && inLatest:
		return states[weighted(t, l+" state", 35, 40, 10, 15)]
	case newest && realistic:
		return states[weighted(t, l+" state", 85, 0, 0, 15)]
	case newest:
		return states[weighted(t, l+" state", 75, 10, 3, 12)]
	case realistic:
		return runtimestate.Exited
	default:
		return states[weighted(t, l+" state", 85, 5, 2, 8)]
	}
}

func drawInstance(t *rapid.T, l string, in *instance, e specEntry, realistic bool) {
	c := e.c
	in.Image = c.Image
	in.Hash = containerhash.Of(c)
	switch weighted(t, l+" hash", 82, 12, 6) {
	case 1:
		// Created from another image: the spec changed since.
		var others []string
		for _, img := range DefaultImages {
			if img != c.Image {
				others = append(others, img)
			}
		}
		in.Image = pick(t, l+" other image", others)
		in.Hash = containerhash.Of(&v1.Container{Name: c.Name, Image: in.Image})
	case 2:
		if !realistic {
			in.Hash, in.HashMissing = 0, true
		}
	}
	in.ImageRef = in.Image + "@sha256:" + strings.Repeat(fmt.Sprintf("%08x", containerhash.Of(&v1.Container{Image: in.Image})), 8)

	if in.State == runtimestate.Exited {
		in.ExitCode, in.Reason = drawExit(t, l, c, realistic)
		if chance(t, 10, l+" message") {
			in.Message = "terminated"
		}
	}

	if (e.kind == kindRegular || e.kind == kindInit || e.kind == kindSidecar) && chance(t, 30, l+" resources") {
		in.Resources = drawReportedResources(t, l, c)
	}
}

func drawExit(t *rapid.T, l string, c *v1.Container, realistic bool) (int, string) {
	var ruleCodes []int
	for _, r := range c.RestartPolicyRules {
		if r.ExitCodes != nil {
			for _, v := range r.ExitCodes.Values {
				ruleCodes = append(ruleCodes, int(v))
			}
		}
	}
	var code int
	switch {
	case len(ruleCodes) > 0 && chance(t, 40, l+" exit code from a rule"):
		code = pick(t, l+" rule exit code", ruleCodes)
	case !realistic && chance(t, 5, l+" negative exit code"):
		code = pick(t, l+" negative exit code value", []int{-1, -2, -137})
	default:
		code = pick(t, l+" exit code", stateExitCodes)
	}
	reason := "Error"
	switch code {
	case 0:
		reason = "Completed"
	case 137:
		if chance(t, 40, l+" OOMKilled") {
			reason = "OOMKilled"
		}
	case 128:
		if chance(t, 40, l+" ContainerCannotRun") {
			reason = "ContainerCannotRun"
		}
	}
	if !realistic {
		switch weighted(t, l+" odd reason", 84, 4, 8, 4) {
		case 1:
			reason = ""
		case 2:
			reason = "OOMKilled"
		case 3:
			reason = "ContainerCannotRun"
		}
	}
	return code, reason
}

// oddIPs are addresses the kubelet does not parse, or parses only
// sloppily (leading zeros), or that repeat the family of the primary one.
var oddIPs = []string{"10.244.1", "not-an-ip", "fe80::1%eth0", "", "010.244.0.07", "fd00:0000::0001", "10.244.9.9", "fd00::99"}

// drawOddIPs now and then replaces the primary IP of sb, or adds an
// additional one, with one of oddIPs.
func drawOddIPs(t *rapid.T, l string, sb *runtimestate.Sandbox) {
	switch weighted(t, l+" odd IP", 80, 10, 10) {
	case 1:
		sb.IP = pick(t, l+" odd primary IP", oddIPs)
	case 2:
		sb.AdditionalIPs = append(sb.AdditionalIPs, pick(t, l+" odd additional IP", oddIPs))
	}
}

// drawReportedResources draws the resources the runtime reports for an
// instance: those of the spec, sometimes with one value changed (a resize
// not yet actuated, or one the runtime rounded).
func drawReportedResources(t *rapid.T, l string, c *v1.Container) *runtimestate.Resources {
	r := &runtimestate.Resources{}
	if q, ok := c.Resources.Requests[v1.ResourceCPU]; ok {
		r.CPURequest = ptr(q.DeepCopy())
	}
	if q, ok := c.Resources.Limits[v1.ResourceCPU]; ok {
		r.CPULimit = ptr(q.DeepCopy())
	}
	if q, ok := c.Resources.Requests[v1.ResourceMemory]; ok {
		r.MemoryRequest = ptr(q.DeepCopy())
	}
	if q, ok := c.Resources.Limits[v1.ResourceMemory]; ok {
		r.MemoryLimit = ptr(q.DeepCopy())
	}
	if r.CPURequest != nil && r.CPURequest.MilliValue() < 2 {
		// The kubelet writes a request below 2m as 2 cgroup shares (the
		// minimum), which read back as 2m.
		r.CPURequest = ptr(mustQuantity("2m"))
	}
	if chance(t, 25, l+" resources differ from the spec") {
		switch weighted(t, l+" resource that differs", 1, 1, 1, 1) {
		case 0:
			r.CPURequest = ptr(mustQuantity(pick(t, l+" reported cpu request", cpuPool)))
		case 1:
			r.CPULimit = ptr(mustQuantity(pick(t, l+" reported cpu limit", cpuPool)))
		case 2:
			r.MemoryRequest = ptr(mustQuantity(pick(t, l+" reported memory request", memPool)))
		case 3:
			r.MemoryLimit = ptr(mustQuantity(pick(t, l+" reported memory limit", memPool)))
		}
	}
	return r
}

func drawSandbox(t *rapid.T, pod *v1.Pod, k, n int, createdAt time.Time, realistic bool) runtimestate.Sandbox {
	l := fmt.Sprintf("sandbox %d", k)
	sb := runtimestate.Sandbox{ID: fmt.Sprintf("s%d", k), CreatedAt: createdAt}
	if k == 0 && chance(t, 30, l+" attempt") {
		sb.Attempt = uint32(rapid.IntRange(1, 5).Draw(t, l+" attempt value"))
	}
	latest := k == n-1
	switch {
	case latest:
		sb.Ready = chance(t, 80, l+" ready")
	case !realistic:
		sb.Ready = chance(t, 15, l+" ready")
	}

	want := runtimestate.NamespacePod
	if pod.Spec.HostNetwork {
		want = runtimestate.NamespaceNode
	}
	sb.NetworkMode = want
	if !realistic {
		switch weighted(t, l+" network mode", 80, 8, 12) {
		case 1:
			sb.NetworkMode = ""
		case 2:
			var others []runtimestate.NamespaceMode
			for _, m := range []runtimestate.NamespaceMode{runtimestate.NamespacePod, runtimestate.NamespaceContainer, runtimestate.NamespaceNode, runtimestate.NamespaceTarget} {
				if m != want {
					others = append(others, m)
				}
			}
			sb.NetworkMode = pick(t, l+" other network mode", others)
		}
	}

	v4 := fmt.Sprintf("10.244.%d.%d", k, 2+rapid.IntRange(0, 200).Draw(t, l+" ip"))
	v6 := fmt.Sprintf("fd00::%d:%d", k, 2+rapid.IntRange(0, 200).Draw(t, l+" ipv6"))
	const (
		withIP = iota
		emptyIP
		noStatus
	)
	var shape int
	switch {
	case pod.Spec.HostNetwork && realistic:
		shape = emptyIP
	case pod.Spec.HostNetwork:
		shape = weighted(t, l+" network status", 20, 70, 10)
	case sb.Ready && realistic:
		shape = withIP
	case sb.Ready:
		shape = weighted(t, l+" network status", 80, 12, 8)
	case realistic:
		shape = weighted(t, l+" network status", 40, 60, 0)
	default:
		shape = weighted(t, l+" network status", 30, 60, 10)
	}
	switch shape {
	case withIP:
		// IPv4 only, dual stack, IPv6 first, IPv6 only.
		switch weighted(t, l+" ip families", 60, 20, 10, 10) {
		case 0:
			sb.IP = v4
		case 1:
			sb.IP, sb.AdditionalIPs = v4, []string{v6}
		case 2:
			sb.IP, sb.AdditionalIPs = v6, []string{v4}
		case 3:
			sb.IP = v6
		}
		if !realistic {
			drawOddIPs(t, l, &sb)
		}
	case emptyIP:
		if !realistic && chance(t, 20, l+" additional IPs without a primary") {
			sb.AdditionalIPs = []string{pick(t, l+" lone additional IP", []string{v4, v6})}
			if chance(t, 50, l+" second additional IP") {
				sb.AdditionalIPs = append(sb.AdditionalIPs, pick(t, l+" second additional IP value", []string{v4, v6}))
			}
		}
	case noStatus:
		sb.NoNetworkStatus = true
	}
	// A network status without a primary IP is what a runtime reports
	// (the faithful reading, not the friendly default of an IP left out).
	sb.NoIP = !sb.NoNetworkStatus && sb.IP == ""
	return sb
}
