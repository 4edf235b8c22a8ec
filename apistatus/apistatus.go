package apistatus

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Waiting reasons and termination reasons the kubelet writes itself.
const (
	// ContainerCreating is the default waiting reason of a regular or
	// ephemeral container of a pod without init containers.
	ContainerCreating = "ContainerCreating"
	// PodInitializing is the default waiting reason of every container of
	// a pod with init containers.
	PodInitializing = "PodInitializing"
	// RestartingAllContainers marks containers removed by a
	// RestartAllContainers reset.
	RestartingAllContainers = "RestartingAllContainers"
	// ContainerStatusUnknown marks a container that used to run and that
	// the runtime no longer reports, or reports in an unknown state.
	ContainerStatusUnknown = "ContainerStatusUnknown"
	// Completed is the reason the kubelet assumes for a regular init
	// container whose instances are gone once regular containers exist.
	Completed = "Completed"
)

// Messages the kubelet writes with the reasons above.
const (
	MessageRestartingAllContainers = "The container is removed because RestartAllContainers in place"
	MessageVanishedWhenDeleted     = "The container could not be located when the pod was deleted.  The container used to be Running"
	MessageVanishedWhenTerminated  = "The container could not be located when the pod was terminated"
	MessageInitAssumedCompleted    = "Unable to get init container status from container runtime and pod has been initialized, treat it as exited normally"
)

// DefaultRuntimeType is the container-ID scheme used when
// Options.RuntimeType is empty.
const DefaultRuntimeType = "containerd"

// Options are the inputs of Compute besides the pod and the runtime state.
// The zero value is a kubelet v1.37.2 with its default gates, no cached
// status, an empty reason cache and a runtime without recursive read-only
// mounts.
type Options struct {
	// Features are the kubelet's feature gates. The decisions read
	// RestartAllContainersOnContainerExits (restart counts and last
	// termination states carried across a reset, the
	// RestartingAllContainers reason), ChangeContainerStatusOnKubeletRestart
	// (when off, a running container keeps the previous Started), and
	// InPlacePodVerticalScaling (Resources and AllocatedResources); and,
	// through restart.ShouldContainerBeRestarted, ContainerRestartRules.
	// The zero value is kubelet v1.37.2's defaults (features.V1_37).
	Features features.Set
	// Cached is the pod status the kubelet generated last (its status
	// manager's cache). nil means the cache has none, and the kubelet then
	// uses pod.Status, as generateAPIPodStatus does.
	Cached *v1.PodStatus
	// StartFailures are the reason cache's entries for the pod, by
	// container name. A container absent from the map has no entry.
	StartFailures map[string]vocab.StartFailure
	// RecursiveReadOnlySupported is whether the runtime handler of the
	// pod's runtime class reports support for recursive read-only mounts.
	// false is also what a kubelet without runtime-handler information
	// sees.
	RecursiveReadOnlySupported bool
	// RuntimeType is the scheme of container IDs ("containerd" when
	// empty): ContainerID is "<RuntimeType>://<instance ID>".
	RuntimeType string
}

// Statuses are the container status lists the kubelet generates for a pod.
type Statuses struct {
	// InitContainerStatuses are in the order of spec.initContainers.
	InitContainerStatuses []v1.ContainerStatus
	// ContainerStatuses and EphemeralContainerStatuses are sorted by name.
	ContainerStatuses          []v1.ContainerStatus
	EphemeralContainerStatuses []v1.ContainerStatus
	// RestartingAllContainers is the podRestarting input the kubelet
	// derived: gate RestartAllContainersOnContainerExits on and
	// restart.ShouldAllContainersRestart true for the previous status.
	RestartingAllContainers bool
}

// Compute returns the container statuses the kubelet v1.37.2 generates for
// pod from the runtime state st. It mirrors convertStatusToAPIStatus in
// pkg/kubelet/kubelet_pods.go as far as container statuses go: podRestarting
// from kubecontainer.ShouldAllContainersRestart (gate
// RestartAllContainersOnContainerExits), then convertToAPIContainerStatuses
// for spec.containers, spec.initContainers and spec.ephemeralContainers,
// each against the matching list of the previous status.
//
// For each list, convertToAPIContainerStatuses (and so Compute):
//
//  1. gives every spec container a default status: Waiting with reason
//     PodInitializing when the pod has init containers, ContainerCreating
//     otherwise, the spec image, and volume mounts from the spec. A
//     previous status that is Terminated is reused whole; otherwise its
//     restartCount and lastState are kept.
//  2. for a container the runtime reports no instance of but the previous
//     status knows: during a RestartAllContainers reset (and the previous
//     state not Waiting) it becomes Waiting RestartingAllContainers with a
//     matching last termination (exit 137) and one more restart; otherwise,
//     if it was Running and nothing else was recorded, it gets a last
//     termination ContainerStatusUnknown (exit 137) and, unless the pod is
//     being deleted, one more restart.
//  3. converts the two newest instances of each container (newest by
//     creation time): the newest gives state, containerID, image, imageID
//     and restartCount; the second newest's state becomes lastState.
//     Running, created (Waiting without reason), exited (Terminated with
//     the runtime's exit code, reason and message), unknown after a
//     previous Running (Terminated ContainerStatusUnknown, or
//     RestartingAllContainers during a reset, exit 137, one more restart),
//     anything else Waiting without reason.
//  4. for each container the kubelet will start again
//     (restart.ShouldContainerBeRestarted) and that has a reason-cache
//     entry: Waiting with the cached reason and message, the terminated
//     state (if any) moving to lastState. For init containers, a newest
//     instance that exited 0 is left alone, and a regular init container
//     with no instance at all once a regular container was created is
//     reported Terminated Completed (exit 0).
//
// A nil pod gives zero Statuses. A nil st is a runtime that reports no
// sandbox and no container. Instances are taken newest first by CreatedAt
// (the order runtimestate.Pod keeps); instances created at the same instant
// keep their order in st, where the kubelet's unstable sort leaves them in
// no defined order. Compute ignores a key of opts.StartFailures that names
// no container: call opts.Validate(pod) first to have such keys reported.
//
// The result shares no memory with the arguments (strings aside, which
// cannot change: a container ID the previous status already holds is that
// string), and Compute allocates what the result holds and little more:
// the statuses of the three lists in one array (each list a slice of it
// with no room to grow into the next; a list with repeated names gets a
// slice of its own); the state objects of all statuses, with the empty
// resources of containers that set none (gate InPlacePodVerticalScaling),
// from one array of sets (with the statuses' array, for a pod of one or
// two containers) and, for large pods, arrays of a kind (see states; no
// two statuses share an object); their new container IDs, as
// substrings of one string; per status its volume-mount statuses and
// (same gate) other resources; and a copy of each field that would otherwise point into the
// arguments (a previous status reused whole, its last state, volume mounts
// or Started, the spec's requests), made once the status is final. The
// arguments are never copied; the bookkeeping lives on the stack (up to 16
// containers a list, and the container IDs of up to 16 instances), and
// instances are copied only to sort them when st does not list them newest
// first.
func Compute(pod *v1.Pod, st *runtimestate.Pod, opts Options) Statuses {
	if pod == nil {
		return Statuses{}
	}
	if st == nil {
		st = &runtimestate.Pod{}
	}
	prev := opts.Cached
	if prev == nil {
		prev = &pod.Status
	}

	// Nothing of pod, st or prev is written to. A result field that would
	// point into them (a previous status reused, its last state, volume
	// mounts or Started, the spec's requests) is copied once the status is
	// final, and only then (see alias), so that the result shares no memory
	// with the arguments and nothing else is copied.
	var out Statuses
	if opts.Features.Enabled(features.RestartAllContainersOnContainerExits) {
		out.RestartingAllContainers = restart.ShouldAllContainersRestart(pod, st, prev)
	}
	c := converter{pod: pod, st: st, opts: opts, restarting: out.RestartingAllContainers}
	if c.opts.RuntimeType == "" {
		c.opts.RuntimeType = DefaultRuntimeType
	}
	c.newestFirst = st.Containers
	if !slices.IsSortedFunc(c.newestFirst, newerFirst) {
		c.newestFirst = slices.Clone(st.Containers)
		slices.SortStableFunc(c.newestFirst, newerFirst)
	}
	// The IDs are needed only while converting: up to 16 sit on the stack
	// (an argument of convert rather than a field of c, which would take
	// them to the heap).
	var idsArr [16]string
	ids := containerIDs(idsArr[:0], c.opts.RuntimeType, c.newestFirst, prev)
	// A status holds at most two state objects of a kind (its state and
	// its last state), so a pod of one container needs arrays of two.
	containers := len(pod.Spec.InitContainers) + len(pod.Spec.Containers) + len(pod.Spec.EphemeralContainers)
	c.mem.chunk = min(max(4, containers), 2*containers)
	// One array holds the statuses of the three lists (see take); for a
	// pod of one or two containers it comes with the sets of states.
	c.statuses, c.mem.sets = c.mem.memoryFor(containers)
	c.mem.resChunk = withoutResources(pod, st)
	hasInit := len(pod.Spec.InitContainers) > 0

	out.ContainerStatuses = c.convert(prev.ContainerStatuses, containerList{regular: pod.Spec.Containers}, ids, hasInit, false)
	out.InitContainerStatuses = c.convert(prev.InitContainerStatuses, containerList{regular: pod.Spec.InitContainers}, ids, hasInit, true)
	out.EphemeralContainerStatuses = c.convert(prev.EphemeralContainerStatuses, containerList{ephemeral: pod.Spec.EphemeralContainers}, ids, hasInit, false)
	return out
}

// newerFirst orders instances newest first by creation time.
func newerFirst(a, b runtimestate.Container) int {
	switch {
	case b.CreatedAt.Before(a.CreatedAt):
		return -1
	case a.CreatedAt.Before(b.CreatedAt):
		return 1
	}
	return 0
}

// containerList is one of the spec's container lists; ephemeral containers
// are read through their common fields, without copying them.
type containerList struct {
	regular   []v1.Container
	ephemeral []v1.EphemeralContainer
}

func (l containerList) len() int { return len(l.regular) + len(l.ephemeral) }

func (l containerList) at(i int) *v1.Container {
	if l.regular != nil {
		return &l.regular[i]
	}
	return (*v1.Container)(&l.ephemeral[i].EphemeralContainerCommon)
}

type converter struct {
	pod         *v1.Pod
	st          *runtimestate.Pod
	opts        Options
	restarting  bool
	newestFirst []runtimestate.Container
	mem         states
	// statuses are what is left of the array of the statuses of every
	// list, one per spec container (see take).
	statuses []v1.ContainerStatus
}

// take hands out the next n statuses of c.statuses, zero, as a slice of
// capacity n: the lists share one array but no status, and appending to
// one list reallocates it rather than overwrite the next.
func (c *converter) take(n int) []v1.ContainerStatus {
	work := c.statuses[:n:n]
	c.statuses = c.statuses[n:]
	return work
}

// containerIDs appends to dst "<runtimeType>://<ID>" for every instance:
// the strings of prev's statuses that already read so (their current and
// last states'), the others made as substrings of one string.
func containerIDs(dst []string, runtimeType string, ins []runtimestate.Container, prev *v1.PodStatus) []string {
	if len(ins) == 0 {
		return dst
	}
	dst = slices.Grow(dst, len(ins))
	start := len(dst)
	missing := 0
	for i := range ins {
		id := prevContainerID(prev, runtimeType, ins[i].ID)
		if id == "" {
			missing++
		}
		dst = append(dst, id)
	}
	if missing == 0 {
		return dst
	}
	n := 0
	for i := range ins {
		if dst[start+i] == "" {
			n += len(runtimeType) + len("://") + len(ins[i].ID)
		}
	}
	var b strings.Builder
	b.Grow(n)
	for i := range ins {
		if dst[start+i] == "" {
			b.WriteString(runtimeType)
			b.WriteString("://")
			b.WriteString(ins[i].ID)
		}
	}
	all := b.String()
	for i := range ins {
		if dst[start+i] == "" {
			l := len(runtimeType) + len("://") + len(ins[i].ID)
			dst[start+i], all = all[:l], all[l:]
		}
	}
	return dst
}

// prevContainerID is the container ID of instance id in prev's statuses
// ("" when none reads "<runtimeType>://<id>").
func prevContainerID(prev *v1.PodStatus, runtimeType, id string) string {
	if prev == nil || id == "" {
		return ""
	}
	is := func(s string) bool {
		return len(s) == len(runtimeType)+len("://")+len(id) && s[:len(runtimeType)] == runtimeType &&
			s[len(runtimeType):len(runtimeType)+len("://")] == "://" && s[len(runtimeType)+len("://"):] == id
	}
	for _, l := range [3][]v1.ContainerStatus{prev.ContainerStatuses, prev.InitContainerStatuses, prev.EphemeralContainerStatuses} {
		for i := range l {
			if is(l[i].ContainerID) {
				return l[i].ContainerID
			}
			if t := l[i].LastTerminationState.Terminated; t != nil && is(t.ContainerID) {
				return t.ContainerID
			}
		}
	}
	return ""
}

// The placeholders of the default waiting states (a pod without, with init
// containers); convert never hands them out.
var (
	waitingCreating     = &v1.ContainerStateWaiting{Reason: ContainerCreating}
	waitingInitializing = &v1.ContainerStateWaiting{Reason: PodInitializing}
)

// alias records which fields of a status under construction still point
// into the arguments; convert copies them when the status is final.
type alias uint8

const (
	// aliasWhole: the status is a shallow copy of a previous status.
	aliasWhole alias = 1 << iota
	// aliasLast: LastTerminationState is a previous status's.
	aliasLast
	// aliasLastTerminated: LastTerminationState.Terminated is a previous
	// status's state.
	aliasLastTerminated
	// aliasMounts: VolumeMounts are a previous status's.
	aliasMounts
	// aliasStarted: Started is a previous status's.
	aliasStarted
	// aliasAllocated: AllocatedResources is the spec's requests.
	aliasAllocated
)

// unalias copies the fields of s that a says point into the arguments.
func unalias(s *v1.ContainerStatus, a alias) {
	if a&aliasWhole != 0 {
		var cp v1.ContainerStatus
		s.DeepCopyInto(&cp)
		*s = cp
		return
	}
	if a&aliasLast != 0 {
		var cp v1.ContainerState
		s.LastTerminationState.DeepCopyInto(&cp)
		s.LastTerminationState = cp
	} else if a&aliasLastTerminated != 0 && s.LastTerminationState.Terminated != nil {
		s.LastTerminationState.Terminated = s.LastTerminationState.Terminated.DeepCopy()
	}
	if a&aliasMounts != 0 && s.VolumeMounts != nil {
		mounts := make([]v1.VolumeMountStatus, len(s.VolumeMounts))
		for i := range s.VolumeMounts {
			s.VolumeMounts[i].DeepCopyInto(&mounts[i])
		}
		s.VolumeMounts = mounts
	}
	if a&aliasStarted != 0 && s.Started != nil {
		started := *s.Started
		s.Started = &started
	}
	if a&aliasAllocated != 0 && s.AllocatedResources != nil {
		s.AllocatedResources = s.AllocatedResources.DeepCopy()
	}
}

// lastNamed returns the last status named name in previous, the one the
// kubelet's map of previous statuses by name keeps, or nil.
func lastNamed(previous []v1.ContainerStatus, name string) *v1.ContainerStatus {
	for i := len(previous) - 1; i >= 0; i-- {
		if previous[i].Name == name {
			return &previous[i]
		}
	}
	return nil
}

// state reads a runtime state as the kubelet's CRI mapping does: anything
// but created, running and exited is unknown.
func state(s runtimestate.State) runtimestate.State {
	switch s {
	case runtimestate.Created, runtimestate.Running, runtimestate.Exited:
		return s
	}
	return runtimestate.Unknown
}

// slotMeta is what convert keeps for one status besides the status.
type slotMeta struct {
	seen  int // instances converted so far (pass 3)
	alias alias
}

// convert mirrors one call of convertToAPIContainerStatuses. The kubelet
// keys its statuses by container name; convert keeps them in a slice, the
// status of container i at slot[i], the index of the last container with
// its name (a valid pod has unique names, and then slot[i] is i). ids are
// the container IDs of c.newestFirst, in its order.
func (c *converter) convert(previous []v1.ContainerStatus, containers containerList, ids []string, hasInit, isInit bool) []v1.ContainerStatus {
	f := c.opts.Features
	n := containers.len()
	if n == 0 {
		return []v1.ContainerStatus{}
	}
	var slotArr [16]int
	var metaArr [16]slotMeta
	slot, meta := slotArr[:0], metaArr[:0]
	if n > len(slotArr) {
		slot, meta = make([]int, 0, n), make([]slotMeta, 0, n)
	}
	unique := true
	for i := range n {
		k := i
		for j := n - 1; j > i; j-- {
			if containers.at(j).Name == containers.at(i).Name {
				k, unique = j, false
				break
			}
		}
		slot = append(slot, k)
		meta = append(meta, slotMeta{})
	}
	// slotOf returns the slot of the container named name, or -1.
	slotOf := func(name string) int {
		for i := n - 1; i >= 0; i-- {
			if containers.at(i).Name == name {
				return i
			}
		}
		return -1
	}
	work := c.take(n)

	defaultReason := ContainerCreating
	if hasInit {
		defaultReason = PodInitializing
	}

	// Pass 1: defaults, and what the previous status carries over.
	for i := range n {
		if slot[i] != i {
			continue
		}
		ct := containers.at(i)
		s := &work[i]
		if o := lastNamed(previous, ct.Name); o != nil && o.State.Terminated != nil {
			*s = *o
			meta[i].alias = aliasWhole
			continue
		} else if o != nil {
			s.RestartCount = o.RestartCount
			s.LastTerminationState = o.LastTerminationState
			meta[i].alias = aliasLast
		}
		s.Name, s.Image = ct.Name, ct.Image
		// A placeholder until the status is final: most are replaced by
		// an instance's state (pass 3), and the rest get a copy of their own.
		s.State = v1.ContainerState{Waiting: waitingCreating}
		if hasInit {
			s.State.Waiting = waitingInitializing
		}
		s.VolumeMounts = c.volumeMounts(ct)
	}

	// Pass 2: containers the runtime no longer reports at all.
	for i := range n {
		if slot[i] != i {
			continue // the same status as its slot's, and the same steps
		}
		ct := containers.at(i)
		if c.st.Newest(ct.Name) != nil {
			continue
		}
		o := lastNamed(previous, ct.Name)
		if o == nil {
			continue
		}
		if f.Enabled(features.RestartAllContainersOnContainerExits) && c.restarting && o.State.Waiting == nil {
			s := &work[i]
			s.State.Waiting = c.mem.waiting(v1.ContainerStateWaiting{Reason: RestartingAllContainers, Message: MessageRestartingAllContainers})
			s.State.Terminated = nil
			s.LastTerminationState.Terminated = c.mem.terminated(v1.ContainerStateTerminated{
				Reason: RestartingAllContainers, Message: MessageRestartingAllContainers, ExitCode: 137,
			})
			s.RestartCount = o.RestartCount + 1
			continue
		}
		if o.State.Terminated != nil || o.State.Running == nil {
			continue
		}
		s := &work[i]
		if s.State.Waiting == nil || s.State.Waiting.Reason != defaultReason {
			continue
		}
		if s.LastTerminationState.Terminated != nil {
			continue
		}
		s.LastTerminationState.Terminated = c.mem.terminated(v1.ContainerStateTerminated{
			Reason: ContainerStatusUnknown, Message: MessageVanishedWhenDeleted, ExitCode: 137,
		})
		if c.pod.DeletionTimestamp == nil {
			s.RestartCount++
		}
	}

	// Pass 3: the two newest instances of each container.
	for i := range c.newestFirst {
		in := &c.newestFirst[i]
		k := slotOf(in.Name)
		if k < 0 {
			continue
		}
		if meta[k].seen >= 2 {
			continue
		}
		o := lastNamed(previous, in.Name)
		s, a := c.instanceStatus(in, ids[i], o)
		if meta[k].seen == 1 {
			// The second newest instance gives its state alone.
			work[k].LastTerminationState = s.State
			meta[k].alias &^= aliasLast | aliasLastTerminated
			meta[k].seen++
			continue
		}
		if !f.Enabled(features.ChangeContainerStatusOnKubeletRestart) && state(in.State) == runtimestate.Running {
			if o != nil && o.Started != nil {
				s.Started = o.Started
				a |= aliasStarted
			}
		}
		if f.Enabled(features.InPlacePodVerticalScaling) {
			if spec := containerSpec(c.pod, in.Name); spec != nil {
				if r := &spec.Resources; r.Limits == nil && r.Requests == nil && r.Claims == nil {
					// What resourcesOf returns then, without an
					// allocation of its own.
					s.Resources = c.mem.noResources()
				} else {
					s.Resources = resourcesOf(spec, &s, in, o)
				}
				s.AllocatedResources = spec.Resources.Requests
				a |= aliasAllocated
			}
		}
		work[k] = s
		meta[k].alias = a
		meta[k].seen++
	}

	// Pass 4: containers that will be started again, with a recorded
	// start failure.
	for i := range n {
		ct := containers.at(i)
		k := slot[i]
		if isInit {
			newest := c.st.Newest(ct.Name)
			if newest != nil && state(newest.State) == runtimestate.Exited && newest.ExitCode == 0 {
				continue
			}
			sidecar := ct.RestartPolicy != nil && *ct.RestartPolicy == v1.ContainerRestartPolicyAlways
			// v1.36 on (D7): a regular init container whose instances
			// are gone completed, if a regular container was created.
			if newest == nil && f.Version().Minor() >= 36 && c.anyRegularContainerCreated() && !sidecar && work[k].State.Waiting != nil {
				work[k].State = v1.ContainerState{Terminated: c.mem.terminated(v1.ContainerStateTerminated{
					Reason: Completed, Message: MessageInitAssumedCompleted, ExitCode: 0,
				})}
				continue
			}
		}
		if !restart.ShouldContainerBeRestarted(ct, c.pod, c.st, f) {
			continue
		}
		fail, ok := c.opts.StartFailures[ct.Name]
		if !ok {
			continue
		}
		s := &work[k]
		if s.State.Terminated != nil {
			s.LastTerminationState = s.State
			if meta[k].alias&aliasWhole == 0 {
				// The state moved there is one this function made.
				meta[k].alias &^= aliasLast | aliasLastTerminated
			}
		}
		s.State = v1.ContainerState{Waiting: c.mem.waiting(v1.ContainerStateWaiting{Reason: fail.Reason, Message: fail.Message})}
	}

	for k := range n {
		if slot[k] == k {
			unalias(&work[k], meta[k].alias)
			if w := work[k].State.Waiting; w == waitingCreating || w == waitingInitializing {
				work[k].State.Waiting = c.mem.waiting(v1.ContainerStateWaiting{Reason: w.Reason})
			}
		}
	}
	if unique {
		if !isInit {
			slices.SortFunc(work, byName)
		}
		return work
	}
	// Repeated names: the init list has one status per init container
	// (repeats copied, so that no two share memory), the other lists one
	// per name.
	out := make([]v1.ContainerStatus, 0, n)
	emitted := make([]bool, n)
	for i := range n {
		k := slot[i]
		if isInit {
			if emitted[k] {
				out = append(out, *work[k].DeepCopy())
				continue
			}
			emitted[k] = true
			out = append(out, work[k])
		} else if k == i {
			out = append(out, work[k])
		}
	}
	if !isInit {
		slices.SortFunc(out, byName)
	}
	return out
}

func byName(a, b v1.ContainerStatus) int { return strings.Compare(a.Name, b.Name) }

// instanceStatus mirrors convertContainerStatus, the conversion of one
// runtime instance in convertToAPIContainerStatuses. id is its container
// ID; o is the previous status of the instance's container, or nil. The alias says which fields
// point into o.
func (c *converter) instanceStatus(in *runtimestate.Container, id string, o *v1.ContainerStatus) (v1.ContainerStatus, alias) {
	f := c.opts.Features
	var a alias
	s := v1.ContainerStatus{
		Name:         in.Name,
		RestartCount: int32(in.RestartCount),
		Image:        in.Image,
		ImageID:      in.ImageRef,
		ContainerID:  id,
	}
	if o != nil {
		s.VolumeMounts = o.VolumeMounts
		a |= aliasMounts
		if f.Enabled(features.RestartAllContainersOnContainerExits) {
			if o.RestartCount > s.RestartCount {
				s.RestartCount = o.RestartCount
			}
			// The last state carried over a RestartAllContainers reset
			// (which removes the old instances) came with v1.36 (D8).
			switch {
			case f.Version().Minor() < 36:
			case o.ContainerID != s.ContainerID && o.State.Terminated != nil:
				s.LastTerminationState.Terminated = o.State.Terminated
				a |= aliasLastTerminated
			case o.LastTerminationState.Terminated != nil:
				s.LastTerminationState.Terminated = o.LastTerminationState.Terminated
				a |= aliasLastTerminated
			}
		}
	}
	switch st := state(in.State); {
	case st == runtimestate.Running:
		s.State.Running = c.mem.running(v1.ContainerStateRunning{StartedAt: metav1.NewTime(in.StartedAt)})
		if f.Enabled(features.RestartAllContainersOnContainerExits) && o != nil && o.State.Terminated != nil && o.RestartCount >= int32(in.RestartCount) {
			s.RestartCount = o.RestartCount + 1
		}
	case st == runtimestate.Created:
		s.State.Waiting = c.mem.waiting(v1.ContainerStateWaiting{})
	case st == runtimestate.Exited:
		s.State.Terminated = c.mem.terminated(v1.ContainerStateTerminated{
			ExitCode:    int32(in.ExitCode),
			Reason:      in.Reason,
			Message:     in.Message,
			StartedAt:   metav1.NewTime(in.StartedAt),
			FinishedAt:  metav1.NewTime(in.FinishedAt),
			ContainerID: id,
		})
	case st == runtimestate.Unknown && o != nil && o.State.Running != nil:
		reason := ContainerStatusUnknown
		if f.Enabled(features.RestartAllContainersOnContainerExits) && c.restarting {
			reason = RestartingAllContainers
		}
		s.State.Terminated = c.mem.terminated(v1.ContainerStateTerminated{
			Reason: reason, Message: MessageVanishedWhenTerminated, ExitCode: 137,
		})
		s.RestartCount = o.RestartCount + 1
	default:
		s.State.Waiting = c.mem.waiting(v1.ContainerStateWaiting{})
	}
	return s, a
}

// anyRegularContainerCreated mirrors HasAnyRegularContainerCreated
// (pkg/kubelet/kuberuntime/kuberuntime_container.go): the newest instance
// of some regular container is created, running or exited.
func (c *converter) anyRegularContainerCreated() bool {
	for i := range c.pod.Spec.Containers {
		n := c.st.Newest(c.pod.Spec.Containers[i].Name)
		if n == nil {
			continue
		}
		switch n.State {
		case runtimestate.Created, runtimestate.Running, runtimestate.Exited:
			return true
		}
	}
	return false
}
