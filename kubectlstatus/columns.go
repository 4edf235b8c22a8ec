package kubectlstatus

import (
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
)

// Row is the row `kubectl get pods` prints for a pod: its NAME, READY,
// STATUS, RESTARTS and AGE cells, as printPod in
// pkg/printers/internalversion/printers.go (v1.37.2) fills them.
type Row struct {
	Name string `json:"name"`
	// Ready is READY: "ready/total" (see ReadyCount).
	Ready string `json:"ready"`
	// Status is STATUS (Compute).
	Status string `json:"status"`
	// Restarts is RESTARTS: the count, with "(<age> ago)" of the last
	// restart when the count is not 0 and a last restart time is known
	// (see RestartCount).
	Restarts string `json:"restarts"`
	// Age is AGE: the time since metadata.creationTimestamp, "<unknown>"
	// without one.
	Age string `json:"age"`
}

// Columns returns the row of pod as `kubectl get pods` prints it at time
// now (the server-side printer's clock, read for RESTARTS and AGE). It
// mirrors printPod. A nil pod gives the zero Row.
func Columns(pod *v1.Pod, now time.Time) Row {
	if pod == nil {
		return Row{}
	}
	return Row{Name: pod.Name, Ready: Ready(pod), Status: Compute(pod), Restarts: Restarts(pod, now), Age: since(pod.CreationTimestamp.Time, now)}
}

// Ready returns the READY cell of pod: "ready/total". A nil pod gives "".
// See ReadyCount.
func Ready(pod *v1.Pod) string {
	if pod == nil {
		return ""
	}
	r, t := ReadyCount(pod)
	if r >= 0 && r < readyCells && t >= 0 && t < readyCells {
		return readyCell[r][t]
	}
	return strconv.Itoa(r) + "/" + strconv.Itoa(t)
}

// readyCell holds the READY cells of up to readyCells-1 containers, made
// once: a cell costs no allocation.
const readyCells = 10

var readyCell = func() (c [readyCells][readyCells]string) {
	for r := range readyCells {
		for t := range readyCells {
			c[r][t] = strconv.Itoa(r) + "/" + strconv.Itoa(t)
		}
	}
	return c
}()

// ReadyCount returns the two numbers of the READY cell as printPod counts
// them:
//
//   - total is the number of regular containers (spec.containers) plus the
//     native sidecars (init containers with restartPolicy Always); ephemeral
//     containers never count;
//   - ready counts, walking the init container statuses in list order as
//     STATUS does (Compute, step 2), every native sidecar that has started
//     and is ready, up to the first init container status that holds the
//     pod in initialisation (not terminated with exit 0, and not a started
//     sidecar): sidecars after it are not counted even when ready. Then,
//     unless that walk stopped with the Initialized condition not True,
//     every regular container whose status is running and ready (one with
//     a waiting reason or a terminated state is not counted, whatever its
//     ready flag says).
//
// The counts are read off the status as it is: a status listing a
// container twice counts it twice, as the printer does. A nil pod gives
// 0, 0.
func ReadyCount(pod *v1.Pod) (ready, total int) {
	w := walk(pod)
	return w.ready, w.total
}

// Restarts returns the RESTARTS cell of pod at time now: the count of
// RestartCount, followed by " (<age> ago)" when the count is not 0 and the
// last restart time is known, the age being the time from it to now as
// kubectl prints durations (duration.HumanDuration: "45s", "3m10s",
// "2d3h"). A nil pod gives "".
func Restarts(pod *v1.Pod, now time.Time) string {
	if pod == nil {
		return ""
	}
	n, last := RestartCount(pod)
	if n == 0 || last.IsZero() {
		return strconv.Itoa(n)
	}
	// Written in a buffer on the stack: the cell is the one allocation.
	var buf [48]byte
	b := strconv.AppendInt(buf[:0], int64(n), 10)
	b = append(b, " ("...)
	b = appendAge(b, now.Sub(last))
	b = append(b, " ago)"...)
	return string(b)
}

// RestartCount returns the number of the RESTARTS cell and the time of the
// last restart, as printPod computes them from the container statuses'
// restartCount and lastState.terminated.finishedAt:
//
//   - while the pod initialises (the init container walk of Compute stops
//     at a status, and the Initialized condition is not True), the sum
//     over the init container statuses walked, the one it stopped at
//     included, and the latest finishedAt of their last terminations;
//   - otherwise, the sum over the native sidecars among the init container
//     statuses walked and over every regular container status, and the
//     latest finishedAt among those: the restarts of completed init
//     containers no longer count.
//
// Ephemeral containers never count. The time is zero when no counted
// status has a last termination with a finish time. A nil pod gives 0 and
// the zero time.
func RestartCount(pod *v1.Pod) (n int, last time.Time) {
	w := walk(pod)
	return w.restarts, w.lastRestart
}

// counts are the READY and RESTARTS numbers of printPod.
type counts struct {
	ready, total, restarts int
	lastRestart            time.Time
}

// walk mirrors printPod's loops over the container statuses (those of
// Compute), keeping the counts that Compute does not.
func walk(pod *v1.Pod) counts {
	var c counts
	if pod == nil {
		return c
	}
	c.total = len(pod.Spec.Containers)
	inits := pod.Spec.InitContainers
	for i := range inits {
		if ic := &inits[i]; ic.RestartPolicy != nil && *ic.RestartPolicy == v1.ContainerRestartPolicyAlways {
			c.total++
		}
	}
	later := func(t *time.Time, s *v1.ContainerStatus) {
		if lt := s.LastTerminationState.Terminated; lt != nil && t.Before(lt.FinishedAt.Time) {
			*t = lt.FinishedAt.Time
		}
	}

	var sidecarRestarts int
	var sidecarLast time.Time
	initializing := false
	for i := range pod.Status.InitContainerStatuses {
		s := &pod.Status.InitContainerStatuses[i]
		c.restarts += int(s.RestartCount)
		later(&c.lastRestart, s)
		sidecar := anySidecar(inits, s.Name)
		if sidecar {
			sidecarRestarts += int(s.RestartCount)
			later(&sidecarLast, s)
		}
		if s.State.Terminated != nil && s.State.Terminated.ExitCode == 0 {
			continue
		}
		if sidecar && s.Started != nil && *s.Started {
			if s.Ready {
				c.ready++
			}
			continue
		}
		initializing = true
		break
	}

	if !initializing || conditionTrue(pod.Status.Conditions, v1.PodInitialized, true) {
		c.restarts, c.lastRestart = sidecarRestarts, sidecarLast
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			s := &pod.Status.ContainerStatuses[i]
			c.restarts += int(s.RestartCount)
			later(&c.lastRestart, s)
			switch {
			case s.State.Waiting != nil && s.State.Waiting.Reason != "":
			case s.State.Terminated != nil:
			case s.Ready && s.State.Running != nil:
				c.ready++
			}
		}
	}
	return c
}
