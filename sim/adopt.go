package sim

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// ---- a pod the node already ran before its kubelet started (AdoptPod) ----
//
// A kubelet process that starts on a node whose container runtime already
// runs pods (a restarted kubelet, or a restarted kubeletlogic-node) learns
// them from two places: the runtime, whose containers kept running and
// exiting, and the API server, which sends the pods bound to the node
// (SyncLoop ADD). It keeps nothing else: no pod worker, no crash-loop
// back-off record, no reason cache, no probe result, no status-manager
// entry. That is the restart of kubeletrestart.go seen from the new
// process only; AdoptPod gives it a pod whose runtime is known from its
// API status alone (runtimestate.FromStatus): the running containers
// running since their startedAt, the terminated ones and the last
// terminations as exited instances, restart counts and sandbox as the
// status shows them.

// AdoptPod gives the kubelet, at time at, a pod that was on the node before
// the kubelet started, with the runtime state its API status (pod.Status)
// shows, and the script its containers and the runtime follow from now on.
// A running container goes on as the script's run for its restart count
// says (its ExitAfter counting from its startedAt; an exit that would have
// come before at comes at at); the next instance of a container gets the
// next restart count, and the script's run of that number. The kubelet then
// behaves as a new kubelet process does (Action.RestartKubelet): a new pod
// worker whose first sync waits for the first relist, no crash-loop
// back-off record (the first back-off after a crash is the initial one),
// the status derived again with the API status as the previous one
// (generateAPIPodStatus), and a pod whose API phase is Succeeded or Failed
// and whose runtime runs nothing stays terminal (pod_workers.go UpdatePod:
// its worker starts terminated). The checks are AddPod's.
func (n *Node) AdoptPod(at time.Time, pod *v1.Pod, script Script) error {
	if pod == nil {
		return errors.New("sim: AdoptPod: nil pod")
	}
	p, err := n.newPod(PodInput{Pod: pod, Script: script}, n.added)
	if err != nil {
		return err
	}
	n.added++
	p.seedRuntime()
	n.place(at, p, p.adopt)
	return nil
}

// seedRuntime fills the simulated runtime with the sandbox and the
// container instances the pod's API status shows.
func (p *podSim) seedRuntime() {
	st, _ := runtimestate.FromStatus(p.pod)
	if st == nil {
		return
	}
	// FromStatus gives a ready sandbox whose status shows no IP an assumed
	// one, the same for every pod; the node gives such a pod its own, the
	// address RunPodSandbox gives a pod at its place. (The pod's copy has
	// podIP set whenever podIPs is: apidefaults.)
	for _, sb := range st.Sandboxes {
		if sb.Ready && !p.pod.Spec.HostNetwork && p.pod.Status.PodIP == "" {
			sb.IP = fmt.Sprintf("10.88.%d.%d", p.index/250%250, p.index%250+2)
		}
		p.rt.addSandbox(sb)
	}
	p.rt.logs = nil
	// st lists the instances newest first; the runtime keeps them in the
	// order they were created.
	for i := len(st.Containers) - 1; i >= 0; i-- {
		c := st.Containers[i]
		_, spec, ok := restart.KindOf(&p.pod.Spec, c.Name)
		if !ok {
			continue
		}
		c.Hash = hashOf(spec)
		if c.Image == "" {
			c.Image = spec.Image
		}
		if c.ImageRef == "" {
			c.ImageRef = "sha256:" + spec.Image
		}
		// The runtime's ID of the image is the one the status shows: the
		// container's next instances show it too (imageRef).
		if p.imageRefs == nil {
			p.imageRefs = map[string]string{}
		}
		p.imageRefs[spec.Image] = c.ImageRef
		// What the runtime reports of a running container (see apply's
		// CreateContainer).
		if r := spec.Resources; c.State == runtimestate.Running {
			lr := linuxResources(r.Requests.Cpu().MilliValue(), r.Limits.Cpu().MilliValue(), r.Limits.Memory().Value())
			c.Resources = reportedResources(lr, memoryRequest(p.pod, c.Name))
		}
		// The instance's number is its restart count: the script's run
		// of that number, and the next instance the one after.
		in := &instance{c: c, run: p.drawRun(p.script.Containers[c.Name].run(c.RestartCount))}
		p.rt.addContainer(in)
		if p.created[c.Name] < c.RestartCount+1 {
			p.created[c.Name] = c.RestartCount + 1
		}
		p.rt.addLog(c.Name, c.RestartCount)
	}
	p.rt.changed = true
}

// adopt is the new kubelet receiving the pod (SyncLoop ADD) and its PLEG's
// first relist reporting the pod's containers, as startKubelet does for a
// pod the simulation ran before.
func (p *podSim) adopt() {
	now := p.loop.Now
	if p.pod.CreationTimestamp.IsZero() {
		p.pod.CreationTimestamp = metav1.NewTime(now.Truncate(time.Second))
	}
	p.log(KindAction, now, "pod adopted by the kubelet: its containers as its API status shows them")
	if !p.static {
		// The API object as it is: the status manager's previous status.
		st := p.pod.Status
		p.api = &st
	}
	// The processes go on: each running one exits as its run says, from
	// its own start.
	for _, in := range p.rt.containers {
		p.scheduleOwnExit(in, now)
	}
	p.admitPod()
	p.busy = true
	p.update(termination.Update{Type: termination.UpdateCreate, Pod: p.pod})
	p.resizesAfterRestart()
	p.relistAt(now)
	p.busy = false
	p.tryRun()
}
