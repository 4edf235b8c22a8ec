package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// fakeRuntime is the container runtime's view of one pod: its sandboxes
// and container instances, whose processes follow the script.
type fakeRuntime struct {
	pod        *v1.Pod
	script     *Script
	sandboxes  []runtimestate.Sandbox
	containers []*instance
	// logs are the log files, each once (a handful per pod: a list, not a
	// map of sets).
	logs []logFile
	// runsByID and logsMax are what runs and logMax return, kept until
	// the containers or the logs change (changed).
	runsByID map[string]Run
	logsMax  map[string]int
	changed  bool
	// sandboxBuf and containerBuf are where the lists of sandboxes and
	// instances start (addSandbox, addContainer): room for the usual pod
	// inside the podSim, rather than lists allocated and grown through 1,
	// 2, 4.
	sandboxBuf   [1]runtimestate.Sandbox
	containerBuf [4]*instance
	// reports are what reported made.
	reports []reportedMemo
	// removals counts the instances removed (prober.instance).
	removals int
}

// reported is reportedResources(lr, memoryRequest), made once per pod for
// each pair (up to four): the instances of a container report the same
// values, and nothing changes what a Resources points to (the snapshots of
// an instance already share it).
func (r *fakeRuntime) reported(lr ContainerResources, memoryRequest resource.Quantity) *runtimestate.Resources {
	for _, m := range r.reports {
		if m.lr == lr && m.memoryRequest == memoryRequest {
			return m.out
		}
	}
	out := reportedResources(lr, memoryRequest)
	if len(r.reports) < 4 {
		r.reports = append(r.reports, reportedMemo{lr, memoryRequest, out})
	}
	return out
}

// reportedMemo is a pair of reported and what it made of it.
type reportedMemo struct {
	lr            ContainerResources
	memoryRequest resource.Quantity
	out           *runtimestate.Resources
}

// addSandbox adds a sandbox.
func (r *fakeRuntime) addSandbox(sb runtimestate.Sandbox) {
	if r.sandboxes == nil {
		r.sandboxes = r.sandboxBuf[:0]
	}
	r.sandboxes = append(r.sandboxes, sb)
}

// addContainer adds an instance, the newest.
func (r *fakeRuntime) addContainer(in *instance) {
	if r.containers == nil {
		r.containers = r.containerBuf[:0]
	}
	r.containers = append(r.containers, in)
}

// logFile is the log file of a container's instance: the container's name
// and the instance's restart count.
type logFile struct {
	name         string
	restartCount int
}

// addLog records the log file of container name's instance restartCount.
func (r *fakeRuntime) addLog(name string, restartCount int) {
	if !slices.Contains(r.logs, logFile{name, restartCount}) {
		r.logs = append(r.logs, logFile{name, restartCount})
	}
}

// remove removes an instance, and its log file unless keepLogs.
func (r *fakeRuntime) remove(id string, keepLogs bool) {
	for i, in := range r.containers {
		if in.c.ID != id {
			continue
		}
		if !keepLogs {
			r.logs = slices.DeleteFunc(r.logs, func(l logFile) bool { return l == logFile{in.c.Name, in.c.RestartCount} })
		}
		r.containers = append(r.containers[:i], r.containers[i+1:]...)
		r.changed = true
		r.removals++
		return
	}
}

// logMax is, per container name, the highest restart count with a log
// file.
func (r *fakeRuntime) logMax() map[string]int {
	r.refresh()
	return r.logsMax
}

// refresh recomputes runsByID and logsMax after a change. Neither is
// changed by its readers, and none keeps them (a sync reads them and
// returns), so they are shared until the next change, which refills the
// same maps.
func (r *fakeRuntime) refresh() {
	if r.runsByID != nil && !r.changed {
		return
	}
	r.changed = false
	if r.runsByID == nil {
		r.runsByID = make(map[string]Run, len(r.containers))
		r.logsMax = map[string]int{}
	}
	// Kept entries are overwritten in place and only gone instances
	// deleted: a Run is stored out of line in the map, so a fresh entry
	// costs an allocation.
	for id := range r.runsByID {
		if r.find(id) == nil {
			delete(r.runsByID, id)
		}
	}
	for _, in := range r.containers {
		r.runsByID[in.c.ID] = in.run
	}
	out := r.logsMax
	clear(out)
	for _, l := range r.logs {
		if cur, ok := out[l.name]; !ok || l.restartCount > cur {
			out[l.name] = l.restartCount
		}
	}
}

// instance is one container instance and what its process will do.
type instance struct {
	c   runtimestate.Container
	run Run
	// gen invalidates exits scheduled before a change.
	gen int
}

func exitReason(code int32) string {
	if code == 0 {
		return "Completed"
	}
	return "Error"
}

func hashOf(c *v1.Container) uint64 { return containerhash.Of(c) }

func (r *fakeRuntime) find(id string) *instance {
	for _, in := range r.containers {
		if in.c.ID == id {
			return in
		}
	}
	return nil
}

// snapshot is what the runtime reports at now, newest first.
func (r *fakeRuntime) snapshot(now time.Time) *runtimestate.Pod {
	// A pod with one sandbox and up to three instances, the usual case,
	// gets one allocation for the three: its lists are exactly as long as
	// their arrays, so nothing appended to them writes into another's.
	var p *runtimestate.Pod
	var cs []runtimestate.Container
	if len(r.sandboxes) == 1 {
		var sb []runtimestate.Sandbox
		switch len(r.containers) {
		case 0:
			s := new(struct {
				p  runtimestate.Pod
				sb [1]runtimestate.Sandbox
			})
			p, sb = &s.p, s.sb[:]
		case 1:
			s := new(struct {
				p  runtimestate.Pod
				sb [1]runtimestate.Sandbox
				c  [1]runtimestate.Container
			})
			p, sb, cs = &s.p, s.sb[:], s.c[:0]
		case 2:
			s := new(struct {
				p  runtimestate.Pod
				sb [1]runtimestate.Sandbox
				c  [2]runtimestate.Container
			})
			p, sb, cs = &s.p, s.sb[:], s.c[:0]
		case 3:
			s := new(struct {
				p  runtimestate.Pod
				sb [1]runtimestate.Sandbox
				c  [3]runtimestate.Container
			})
			p, sb, cs = &s.p, s.sb[:], s.c[:0]
		}
		if p != nil {
			sb[0] = r.sandboxes[0]
			p.Sandboxes = sb
		}
	}
	if p == nil {
		p = new(runtimestate.Pod)
		p.Sandboxes = append([]runtimestate.Sandbox(nil), r.sandboxes...)
		slices.SortStableFunc(p.Sandboxes, newestSandboxFirst)
		if len(r.containers) > 0 {
			cs = make([]runtimestate.Container, 0, len(r.containers))
		}
	}
	p.UID, p.Name, p.Namespace, p.Timestamp = r.pod.UID, r.pod.Name, r.pod.Namespace, now
	for i := len(r.containers) - 1; i >= 0; i-- {
		cs = append(cs, r.containers[i].c)
	}
	p.Containers = cs
	return p
}

// newestSandboxFirst orders sandboxes by attempt, then creation time,
// newest first.
func newestSandboxFirst(a, b runtimestate.Sandbox) int {
	if a.Attempt != b.Attempt {
		if a.Attempt > b.Attempt {
			return -1
		}
		return 1
	}
	switch {
	case a.CreatedAt.After(b.CreatedAt):
		return -1
	case b.CreatedAt.After(a.CreatedAt):
		return 1
	}
	return 0
}

// runs maps each instance ID to its behaviour.
func (r *fakeRuntime) runs() map[string]Run {
	r.refresh()
	return r.runsByID
}

// running reports whether any container process is alive.
func (r *fakeRuntime) running() bool {
	for _, in := range r.containers {
		if in.c.State == runtimestate.Running {
			return true
		}
	}
	return false
}

// ownExitAt schedules the exit of in's process on its own at at, with its
// run's exit code (OOMKilled for an OOM kill), unless the instance is
// stopped or restarted before. The exit waits in p.ownExits under a key
// the loop passes to onOwnExit (made once), rather than in a closure per
// exit.
func (p *podSim) ownExitAt(in *instance, at time.Time) {
	in.gen++
	p.ownExitKeys++
	p.ownExits = append(p.ownExits, ownExit{key: p.ownExitKeys, in: in, gen: in.gen, at: at})
	if p.ownExitTick == nil {
		p.ownExitTick = p.onOwnExit
	}
	p.loop.AtCall(at, p.ownExitTick, p.ownExitKeys)
}

// ownExit is an exit ownExitAt scheduled: the instance, its gen then, and
// the time of the exit.
type ownExit struct {
	key int64
	in  *instance
	gen int
	at  time.Time
}

// onOwnExit is the exit ownExitAt scheduled under key.
func (p *podSim) onOwnExit(key int64) {
	i := slices.IndexFunc(p.ownExits, func(e ownExit) bool { return e.key == key })
	if i < 0 {
		return
	}
	e := p.ownExits[i]
	p.ownExits = slices.Delete(p.ownExits, i, i+1)
	if in := e.in; in.gen == e.gen && in.c.State == runtimestate.Running {
		reason := exitReason(in.run.ExitCode)
		if in.run.oomKilled {
			reason = reasonOOMKilled
		}
		p.exitAs(in, in.run.ExitCode, e.at, reason)
	}
}

// hasSandbox: the runtime still has sandbox id (not removed).
func (r *fakeRuntime) hasSandbox(id string) bool {
	for _, sb := range r.sandboxes {
		if sb.ID == id {
			return true
		}
	}
	return false
}

// sandboxReady: a sandbox of the pod is ready (not stopped).
func (r *fakeRuntime) sandboxReady() bool {
	for _, sb := range r.sandboxes {
		if sb.Ready {
			return true
		}
	}
	return false
}

// oneLine joins the lines of a decision's text, so that every entry is one
// line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }

// callStarted records a call; in the timeline its At and Done are times
// since the start of the simulation, like the entry's.
func (p *podSim) callStarted(c Call, start time.Time) *Call {
	msg := c.String()
	if c.Method == "CreateContainer" && !p.rt.hasSandbox(c.Sandbox) {
		// The container GC may remove an evicted pod's sandbox while a
		// sync is under way (ShouldPodContentBeRemoved is true for an
		// evicted pod): the runtime then refuses the container.
		c.Error = "sandbox " + c.Sandbox + " not found"
		msg += " fails: " + c.Error
	} else if c.Method == "StartContainer" && p.rt.find(c.ID) == nil {
		c.Error = "container " + c.ID + " not found"
		msg += " fails: " + c.Error
	}
	e := p.log(KindCRI, start.Add(c.At), msg)
	cc := c
	cc.At = start.Add(c.At).Sub(p.node.start)
	cc.Done = start.Add(c.Done).Sub(p.node.start)
	e.Call = p.newCall(cc)
	return e.Call
}

func (p *podSim) apply(c Call, start time.Time) {
	done := start.Add(c.Done)
	if c.Method == "UpdateContainerResources" {
		// The runtime reports the new values; no relist event.
		if in := p.rt.find(c.ID); in != nil && c.Resources != nil {
			in.c.Resources = p.rt.reported(*c.Resources, memoryRequest(p.allocatedPod(), c.Name))
		}
		return
	}
	if c.Method == "ExecSync" {
		// It does not change what a relist sees.
		return
	}
	if c.Method == "PullImage" {
		p.countPull(c)
		return
	}
	p.markDirty()
	switch c.Method {
	case "RunPodSandbox":
		sb := runtimestate.Sandbox{ID: c.ID, Ready: true, Attempt: c.Attempt, CreatedAt: done}
		if p.pod.Spec.HostNetwork {
			sb.NetworkMode = runtimestate.NamespaceNode
		} else {
			if p.sandboxIP == "" {
				p.sandboxIP = fmt.Sprintf("10.88.%d.%d", p.index/250%250, p.index%250+2)
			}
			sb.IP = p.sandboxIP
		}
		p.rt.addSandbox(sb)
	case "CreateContainer":
		if !p.rt.hasSandbox(c.Sandbox) {
			return // refused (callStarted)
		}
		k := p.created[c.Name]
		p.created[c.Name] = k + 1
		spec := containerByName(p.allocatedPod(), c.Name)
		in := &instance{run: p.drawRun(p.script.Containers[c.Name].run(k))}
		in.c = runtimestate.Container{ID: c.ID, Name: c.Name, SandboxID: c.Sandbox, State: runtimestate.Created,
			Hash: c.Hash, RestartCount: c.RestartCount, CreatedAt: done}
		if spec != nil {
			in.c.Image = spec.Image
			in.c.ImageRef = p.imageRef(spec.Image)
			// The runtime reports every container's Linux resources as
			// the kubelet set them (CRI ContainerStatus): a container
			// without requests or limits has the minimum cpu shares, read
			// back as a 2m request (its status shows none: apistatus).
			r := spec.Resources
			lr := linuxResources(r.Requests.Cpu().MilliValue(), r.Limits.Cpu().MilliValue(), r.Limits.Memory().Value())
			in.c.Resources = p.rt.reported(lr, memoryRequest(p.allocatedPod(), c.Name))
		}
		p.rt.addContainer(in)
		p.rt.addLog(c.Name, c.RestartCount)
		p.rt.changed = true
	case "StartContainer":
		in := p.rt.find(c.ID)
		if in == nil || in.c.State != runtimestate.Created {
			return
		}
		in.c.State = runtimestate.Running
		in.c.StartedAt = done
		if d := in.run.ExitAfter.D(); d > 0 {
			p.ownExitAt(in, done.Add(d))
		}
	case "StopContainer":
		in := p.rt.find(c.ID)
		if in != nil && (in.c.State == runtimestate.Running || in.c.State == runtimestate.Created) {
			// The process ended AfterExit before the call returned; the
			// runtime reports it (the entry) when the call returns.
			p.exitSeen(in, c.ExitCode, done.Add(-c.AfterExit), done, exitReason(c.ExitCode))
		}
	case "StopPodSandbox":
		for i := range p.rt.sandboxes {
			if p.rt.sandboxes[i].ID == c.ID {
				p.rt.sandboxes[i].Ready = false
			}
		}
		for _, in := range p.rt.containers {
			if in.c.SandboxID == c.ID && in.c.State == runtimestate.Running {
				p.exit(in, 137, done)
			}
		}
	case "RemoveContainer":
		p.rt.remove(c.ID, c.KeepLogs)
	}
}

// imageRef is the image ID the runtime reports for image, made once per
// image.
func (p *podSim) imageRef(image string) string {
	if ref, ok := p.imageRefs[image]; ok {
		return ref
	}
	if p.imageRefs == nil {
		p.imageRefs = map[string]string{}
	}
	ref := "sha256:" + image
	p.imageRefs[image] = ref
	return ref
}

func (p *podSim) exit(in *instance, code int32, at time.Time) {
	p.exitAs(in, code, at, exitReason(code))
}

// exitAs ends instance in's process at at with code and the runtime's
// reason.
func (p *podSim) exitAs(in *instance, code int32, at time.Time, reason string) {
	p.exitSeen(in, code, at, at, reason)
}

// exitSeen is exitAs for a process that ended at at and that the timeline
// shows at seen (not before at): a stopped container's exit is reported
// when StopContainer returns.
func (p *podSim) exitSeen(in *instance, code int32, at, seen time.Time, reason string) {
	p.markDirty()
	in.gen++
	if in.c.State == runtimestate.Created {
		in.c.StartedAt = time.Time{}
	}
	in.c.State = runtimestate.Exited
	in.c.ExitCode = int(code)
	in.c.Reason = reason
	in.c.FinishedAt = at
	e := p.log(KindExit, seen, in.c.Name+" "+in.c.ID+" exited with code "+strconv.Itoa(int(code)))
	e.Exit = p.newExit()
	*e.Exit = ExitEntry{Container: in.c.Name, ID: in.c.ID, ExitCode: code, Reason: in.c.Reason, Ended: at.Sub(p.node.start)}
}
