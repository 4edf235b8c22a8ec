package sim

// OOM kills. A container whose memory use passes its limit is killed by
// the kernel's OOM killer; the runtime reports the instance exited with
// code 137 and reason OOMKilled (containerd's task exit with the OOM
// event; the kubelet copies the runtime's reason into the container's
// terminated state: kuberuntime/kuberuntime_container.go
// toKubeContainerStatus). The kubelet does nothing of its own: the exit is
// a failure like any other for the restart policy (an OOMKilled reason
// counts as failed whatever the exit code: restart.Failed, after
// kuberuntime_manager.go computePodActions and the container restart
// rules) and for the crash-loop back-off (doBackOff). The scripted run
// says when the kill comes (Run.OOMAfter); what memory the process uses
// is the script's part.

// reasonOOMKilled is the runtime's reason for an OOM-killed instance.
const reasonOOMKilled = "OOMKilled"

// withOOM returns r as it plays out: when the OOM kill comes before the
// process's own exit (or it has none), the run ends at OOMAfter with exit
// code 137, marked as OOM-killed.
func (r Run) withOOM() Run {
	if r.OOMAfter <= 0 || (r.ExitAfter > 0 && r.ExitAfter <= r.OOMAfter) {
		return r
	}
	r.ExitAfter = r.OOMAfter
	r.ExitCode = 137
	r.oomKilled = true
	return r
}
