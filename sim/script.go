package sim

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// Duration is a time.Duration that reads and writes as Go duration text
// ("1.5s", "2m") in JSON and YAML, and also reads a number of seconds.
// Write one with the package's units (20 * sim.Minute, sim.Seconds(1.5));
// it has time.Duration's String, Seconds, Milliseconds, Round and
// Truncate, and D returns it as a time.Duration.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as duration text.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads duration text ("90s") or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %v", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration: want text such as \"90s\" or a number of seconds, got %s", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// Script is what the containers and the runtime do: the part of a
// simulation the kubelet does not decide.
type Script struct {
	// Containers are the behaviours by container name (init containers,
	// sidecars, regular and ephemeral containers alike). A container not
	// listed runs until it is stopped and exits at once on SIGTERM with
	// code 0, and every probe of it succeeds.
	Containers map[string]Behaviour `json:"containers,omitempty"`
	// Runtime are the container runtime's own delays; zero fields take
	// the defaults of DefaultRuntimeDelays.
	Runtime RuntimeDelays `json:"runtime,omitzero"`
	// Images are how the images the containers use behave on the node,
	// by image as the spec writes it (see Image): an image not listed is
	// present and every pull of it succeeds at once.
	Images map[string]Image `json:"images,omitempty"`
}

// Behaviour is what one container does, run after run.
type Behaviour struct {
	// Runs are the successive runs (container instances) of the
	// container: Runs[0] is the first instance, Runs[1] the second and so
	// on; the last entry repeats for every later instance. No entry is a
	// container that runs until stopped.
	Runs []Run `json:"runs,omitempty"`
}

// run returns the behaviour of the container's instance number n (0 for
// the first).
func (b Behaviour) run(n int) Run {
	if len(b.Runs) == 0 {
		return Run{}
	}
	return nthRepeatingLast(b.Runs, n).withOOM()
}

// nthRepeatingLast is list[n], the last entry standing for every later n
// and the first for a negative one; the zero value for an empty list.
func nthRepeatingLast[T any](list []T, n int) T {
	var zero T
	if len(list) == 0 {
		return zero
	}
	return list[max(0, min(n, len(list)-1))]
}

// Run is one run of a container.
type Run struct {
	// ExitAfter is how long after it started the process exits on its own,
	// with ExitCode; 0 means it runs until it is stopped.
	ExitAfter Duration `json:"exitAfter,omitempty"`
	ExitCode  int32    `json:"exitCode,omitempty"`
	// On SIGTERM the process exits TermAfter later with TermExitCode,
	// unless IgnoreSIGTERM: then only SIGKILL ends it (exit code 137),
	// when the stop timeout runs out.
	// OOMAfter is how long after it started the process is killed by the
	// kernel for exceeding its memory limit (0: never): the runtime
	// reports exit code 137 with reason OOMKilled (see withOOM). When
	// ExitAfter is set too, the earlier of the two ends the run.
	OOMAfter Duration `json:"oomAfter,omitempty"`
	// oomKilled is set by withOOM on a run the OOM kill ends.
	oomKilled     bool
	IgnoreSIGTERM bool     `json:"ignoreSIGTERM,omitempty"`
	TermAfter     Duration `json:"termAfter,omitempty"`
	TermExitCode  int32    `json:"termExitCode,omitempty"`
	// TermSpread, when set, adds to TermAfter a part of it drawn
	// uniformly from [0, TermSpread) for each instance (from the seed): a
	// process that exits on SIGTERM when its current step ends, such as
	// a shell whose trap runs once its current `sleep 1` returns
	// (TermSpread 1s).
	TermSpread Duration `json:"termSpread,omitempty"`
	// TermStep, when set, is the length of the steps the process works in
	// from its start, one after another: on SIGTERM it exits TermAfter
	// after the end of its current step. This is a shell whose trap runs
	// once its current `sleep 1` returns (`trap 'exit 0' TERM; while true;
	// do sleep 1; done`): its steps are 1 s and the loop's own time, and
	// when it exits follows from when it started and when the signal came,
	// not from a draw (in the captures the trap loop's finishedAt was
	// within 0.02 s of a whole number of 1.001 s steps after its
	// startedAt, and its StopContainer returned 0.01 s to 0.05 s later).
	TermStep Duration `json:"termStep,omitempty"`
	// PreStop is how long the container's exec or httpGet preStop hook
	// runs. A sleep hook runs for the seconds the spec gives (the kubelet
	// itself sleeps) and ignores this.
	PreStop Duration `json:"preStop,omitempty"`
	// PostStart is how long the container's exec or httpGet postStart
	// hook runs, and PostStartFails whether it then fails (an exec hook
	// that exits non-zero, an httpGet hook whose request fails). The
	// kubelet waits for the hook before it starts the next container, and
	// kills the container when the hook fails. A sleep hook runs for the
	// seconds the spec gives and never fails; it takes neither field.
	PostStart      Duration `json:"postStart,omitempty"`
	PostStartFails bool     `json:"postStartFails,omitempty"`
	// Liveness, Readiness and Startup give each probe's outcome as a
	// function of the run's age: the last step whose At the age has
	// reached decides; before the first step (and with no step) the probe
	// succeeds. Steps are listed in increasing order of At, and exit codes
	// are 0-255: Simulate refuses others.
	Liveness  []ProbeStep `json:"liveness,omitempty"`
	Readiness []ProbeStep `json:"readiness,omitempty"`
	Startup   []ProbeStep `json:"startup,omitempty"`
}

// ProbeStep says that from age At of the run on, the probe gives Result
// (vocab.ProbeSuccess or vocab.ProbeFailure) and takes Takes: how long the
// exec probe's command, or the httpGet, tcpSocket or grpc probe's request,
// runs before it answers (0: no time, as before probes took time). A probe
// that takes the probe's timeoutSeconds or longer fails when the timeout
// runs out, whatever Result says (see prober.go).
type ProbeStep struct {
	At     Duration          `json:"at"`
	Result vocab.ProbeResult `json:"result"`
	Takes  Duration          `json:"takes,omitempty"`
}

// outcome is the result of a probe with these steps at the run's age, and
// how long the probe takes.
func outcome(steps []ProbeStep, age time.Duration) (vocab.ProbeResult, time.Duration) {
	r, takes := vocab.ProbeSuccess, time.Duration(0)
	for _, s := range steps {
		if age >= s.At.D() {
			r, takes = s.Result, s.Takes.D()
		}
	}
	if r != vocab.ProbeFailure {
		r = vocab.ProbeSuccess
	}
	return r, takes
}

// RuntimeDelays are how long the container runtime takes to answer the
// kubelet's calls. They shift every later event, so they are part of the
// model: the defaults are the medians over the calls captured from
// containerd 1.6 in testdata/captured (RunPodSandbox 289 ms,
// CreateContainer 11 ms, StartContainer 67 ms, StopPodSandbox 25 ms,
// RemoveContainer 2 ms; StopContainer takes as long as the process takes to
// exit).
type RuntimeDelays struct {
	RunPodSandbox   Duration `json:"runPodSandbox,omitempty"`
	CreateContainer Duration `json:"createContainer,omitempty"`
	StartContainer  Duration `json:"startContainer,omitempty"`
	StopPodSandbox  Duration `json:"stopPodSandbox,omitempty"`
	RemoveContainer Duration `json:"removeContainer,omitempty"`
	// StopContainer is how long a StopContainer call takes to return once
	// the process has ended (containerd handling the task's exit); the
	// kubelet's kill, the containers waiting for it (native-sidecar
	// order) and the sandbox stop go on from the return. The default,
	// 30 ms, is the median of the round-1 captures' calls (20 to 40 ms
	// between the container's finishedAt and the call's return); the
	// loaded round-2 node took 0.17 to 1.2 s (podnet's second stop: the
	// process exited 0.92 s after SIGTERM, the call returned 1.22 s
	// later).
	StopContainer Duration `json:"stopContainer,omitempty"`
	// StopContainerSpread, when set, adds to StopContainer a part drawn
	// uniformly from [0, StopContainerSpread) for each sync (so one draw
	// for every StopContainer call of a kill; from the seed, apart from
	// the kubelet's own draws): a loaded runtime's calls do not all take the
	// same time (podnet's two stops returned 0.42 s and 1.22 s after their
	// processes ended). Zero: every kill takes StopContainer.
	StopContainerSpread Duration `json:"stopContainerSpread,omitempty"`
	// UpdateContainerResources is how long an in-place resize of one
	// container takes (the median of the 3 calls of the api-resize
	// capture: 23, 30 and 184 ms).
	UpdateContainerResources Duration `json:"updateContainerResources,omitempty"`
	// Relist is how long one PLEG relist takes (listing the runtime and
	// reading the status of changed pods); the next relist starts one
	// relist period after the previous one ended. The default, 4.5 ms, is
	// the one the round-1 captures show: their crash loops' deaths, each
	// seen by a global relist, lie on a grid of 1.0040 s to 1.0048 s.
	Relist Duration `json:"relist,omitempty"`
}

// DefaultRuntimeDelays are the delays measured on the captured fixtures.
func DefaultRuntimeDelays() RuntimeDelays {
	return RuntimeDelays{
		RunPodSandbox:   Duration(289 * time.Millisecond),
		CreateContainer: Duration(11 * time.Millisecond),
		StartContainer:  Duration(67 * time.Millisecond),
		StopPodSandbox:  Duration(25 * time.Millisecond),
		RemoveContainer: Duration(2 * time.Millisecond),
		StopContainer:   Duration(30 * time.Millisecond),
		Relist:          Duration(4500 * time.Microsecond),
		// api-resize's three calls took 23, 30 and 184 ms.
		UpdateContainerResources: Duration(30 * time.Millisecond),
	}
}

// orDefault fills the zero fields of d from the defaults.
func (d RuntimeDelays) orDefault() RuntimeDelays {
	def := DefaultRuntimeDelays()
	set := func(v *Duration, dv Duration) {
		if *v <= 0 {
			*v = dv
		}
	}
	set(&d.RunPodSandbox, def.RunPodSandbox)
	set(&d.CreateContainer, def.CreateContainer)
	set(&d.StartContainer, def.StartContainer)
	set(&d.StopPodSandbox, def.StopPodSandbox)
	set(&d.RemoveContainer, def.RemoveContainer)
	set(&d.StopContainer, def.StopContainer)
	set(&d.Relist, def.Relist)
	set(&d.UpdateContainerResources, def.UpdateContainerResources)
	return d
}

// validate reports durations no process can have: negative ones.
func (s Script) validate() error {
	names := make([]string, 0, len(s.Containers))
	for name := range s.Containers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for i, r := range s.Containers[name].Runs {
			for _, d := range []struct {
				field string
				v     Duration
			}{{"exitAfter", r.ExitAfter}, {"termAfter", r.TermAfter}, {"termSpread", r.TermSpread}, {"termStep", r.TermStep}, {"preStop", r.PreStop}, {"postStart", r.PostStart}, {"oomAfter", r.OOMAfter}} {
				if d.v < 0 {
					return fmt.Errorf("script: containers.%s.runs[%d].%s: negative duration %s", name, i, d.field, d.v)
				}
			}
			for _, l := range []struct {
				field string
				steps []ProbeStep
			}{{"liveness", r.Liveness}, {"readiness", r.Readiness}, {"startup", r.Startup}} {
				for j, st := range l.steps {
					if st.At < 0 {
						return fmt.Errorf("script: containers.%s.runs[%d].%s[%d].at: negative duration %s", name, i, l.field, j, st.At)
					}
					if st.Takes < 0 {
						return fmt.Errorf("script: containers.%s.runs[%d].%s[%d].takes: negative duration %s", name, i, l.field, j, st.Takes)
					}
					if st.Result != vocab.ProbeSuccess && st.Result != vocab.ProbeFailure {
						return fmt.Errorf("script: containers.%s.runs[%d].%s[%d].result: %q is not %q or %q", name, i, l.field, j, st.Result, vocab.ProbeSuccess, vocab.ProbeFailure)
					}
				}
			}
		}
	}
	for _, d := range []Duration{s.Runtime.RunPodSandbox, s.Runtime.CreateContainer, s.Runtime.StartContainer, s.Runtime.StopPodSandbox, s.Runtime.RemoveContainer, s.Runtime.Relist, s.Runtime.UpdateContainerResources, s.Runtime.StopContainer, s.Runtime.StopContainerSpread} {
		if d < 0 {
			return fmt.Errorf("script: runtime: negative delay %s", d)
		}
	}
	return nil
}
