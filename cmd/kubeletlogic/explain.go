package main

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/apistatus"
	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/kubectlstatus"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// sample is the pod the bare command explains (a copy of
// examples/manifests/init-sidecar-app.yaml; a test keeps the two equal).
//
//go:embed sample.yaml
var sample []byte

const sampleName = "the built-in sample (examples/manifests/init-sidecar-app.yaml)"

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// atFlag is --at: a duration after the pod's start, not negative.
type atFlag struct {
	d   time.Duration
	set bool
}

func (a *atFlag) String() string {
	if !a.set {
		return ""
	}
	return a.d.String()
}

func (a *atFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 90s or 5m")
	}
	if d < 0 {
		return fmt.Errorf("want a time after the pod's start (0s or later)")
	}
	a.d, a.set = d, true
	return nil
}

func runExplain(e *env) int {
	fs := newFlagSet(e, "explain", "[-f FILE|-] [--runtime FILE] [--kubelet-version 1.37] [--gate Name=bool]... [--at 90s] [--resize cpu=500m,memory=256Mi] [--resize-pod cpu=2] [-o text|json|yaml]")
	file := fs.String("f", "", "the pod: a Pod (kubectl get pod -o yaml), a List, or a workload (Deployment, Job, …); - for standard input; none: a built-in sample")
	rtFile := fs.String("runtime", "", "what the container runtime reports about the pod (sandboxes and container instances, YAML or JSON); none: read off the pod's status, or a pod just admitted")
	gates := addGateFlags(fs)
	var at atFlag
	fs.Var(&at, "at", "the time to explain, after the pod's start (default: the last time the runtime state or status shows)")
	var resize explainResizeFlag
	fs.Var(&resize, "resize", "what the kubelet does with the running pod after an in-place resize, as simulate's --resize: [container:]cpu=500m,memory=256Mi (no container: each one; cpu= sets the request, the limit or both, whichever it has; requests.cpu=, limits.memory= one value); repeatable")
	var resizePod resizePodFlag
	fs.Var(&resizePod, "resize-pod", "what the kubelet does with the running pod after an in-place resize of its pod-level resources (spec.resources), as simulate's --resize-pod: cpu=2,memory=256Mi (cpu= sets the request, the limit or both, whichever spec.resources has; requests.cpu=, limits.memory= one value); repeatable; with --resize, one request")
	out := fs.String("o", "text", "output: text, json or yaml")
	if code := parseFlags(e, fs); code >= 0 {
		return code
	}
	if *out != "text" && *out != "json" && *out != "yaml" {
		fmt.Fprintf(e.stderr, "kubeletlogic explain: -o %q: want text, json or yaml\n", *out)
		return exitUsage
	}
	set, err := gates.set()
	if err != nil {
		fmt.Fprintf(e.stderr, "kubeletlogic explain: %v\n", err)
		return exitBadInput
	}

	data, name := sample, sampleName
	if *file != "" {
		if data, name, err = readSource(e, *file); err != nil {
			return inputFailed(e, "explain", err)
		}
	}
	pods, err := readPodsNoting(e, "explain", data, name)
	if err != nil {
		return inputFailed(e, "explain", err)
	}
	var rtData []byte
	if *rtFile != "" {
		if len(pods) > 1 {
			fmt.Fprintf(e.stderr, "kubeletlogic explain: --runtime describes one pod, and %s holds %d\n", name, len(pods))
			return exitUsage
		}
		if rtData, _, err = readSource(e, *rtFile); err != nil {
			return inputFailed(e, "explain", err)
		}
	}
	var all []*explanation
	for _, lp := range pods {
		in := explainInput{pod: lp.pod, from: lp.from, gates: set, at: at}
		if rtData != nil {
			st, err := readRuntime(rtData, *rtFile, lp.pod)
			if err != nil {
				return inputFailed(e, "explain", err)
			}
			in.st, in.stFrom = st, *rtFile
		}
		x := explain(in)
		if len(resize.specs)+len(resizePod.specs) > 0 {
			if x.Resize, err = explainResize(lp.pod, explainState(in), resize.specs, resizePod.specs, set); err != nil {
				return inputFailed(e, "explain", err)
			}
		}
		all = append(all, x)
	}
	switch *out {
	case "json", "yaml":
		if err := writeMachine(e.stdout, *out, all); err != nil {
			fmt.Fprintf(e.stderr, "kubeletlogic explain: %v\n", err)
			return exitBadInput
		}
	default:
		for i, x := range all {
			if i > 0 {
				fmt.Fprintln(e.stdout)
			}
			writeText(e.stdout, x)
		}
	}
	return exitOK
}

func inputFailed(e *env, cmd string, err error) int {
	fmt.Fprintf(e.stderr, "kubeletlogic %s: %v\n", cmd, err)
	var ie *inputError
	if errors.As(err, &ie) {
		return exitBadInput
	}
	return exitBadInput
}

type explainInput struct {
	pod    *v1.Pod
	from   string
	st     *runtimestate.Pod
	stFrom string
	gates  features.Set
	at     atFlag
}

// explanation is everything explain says about one pod; the text output
// renders it, -o json and -o yaml print it as it is.
type explanation struct {
	Kind           string   `json:"kind"`
	KubeletVersion string   `json:"kubeletVersion"`
	Gates          []string `json:"gatesChanged,omitempty"`
	Pod            string   `json:"pod"`
	From           string   `json:"from"`
	Runtime        string   `json:"runtime"`
	// At is the time explained, after the pod's start; Now the clock then
	// (absent when the inputs hold no time at all).
	At  string     `json:"at"`
	Now *time.Time `json:"now,omitempty"`

	Next          next           `json:"next"`
	Phase         phaseWhy       `json:"phase"`
	Status        v1.PodStatus   `json:"status"`
	KubectlStatus string         `json:"kubectlStatus"`
	Containers    []outlook      `json:"containers"`
	Probes        probesReport   `json:"probes,omitzero"`
	BackOff       backOff        `json:"crashLoopBackOff"`
	Deletion      deletionReport `json:"deletion"`
	Resize        *resizeReport  `json:"resize,omitempty"`
	// Assumptions are what the answers take for granted.
	Assumptions []string `json:"assumptions,omitempty"`

	// Warnings name the features of the pod that this kubelet does not
	// honour because their gate is off (podactions.GatesOff).
	Warnings []string `json:"warnings,omitempty"`
	// Assumed is what a runtime state read off the pod's status takes as
	// given (podstatus.StatusView.Assumed).
	Assumed []string `json:"assumed,omitempty"`
}

type next struct {
	// Function is the kubelet function the pod worker runs (SyncPod,
	// SyncTerminatingPod, SyncTerminatedPod); Starts, Stops, Removes and
	// Held name the containers it starts, stops, removes, and holds in
	// crash-loop back-off (sim.Next, see next.go).
	Function string   `json:"function"`
	Starts   []string `json:"starts,omitempty"`
	Stops    []string `json:"stops,omitempty"`
	Removes  []string `json:"removes,omitempty"`
	Held     []string `json:"heldInBackOff,omitempty"`
	// Say are the decisions in words, one a line.
	Say []string `json:"say"`
	// Terminating is true when the pod is being deleted: the pod worker
	// terminates it instead of syncing it.
	Terminating bool `json:"terminating,omitempty"`
}

type phaseWhy struct {
	Phase v1.PodPhase `json:"phase"`
	Why   string      `json:"why"`
	// HeldBack is set when the phase is terminal while a container still
	// runs: what the API shows meanwhile (status_manager.go
	// mergePodStatus).
	HeldBack string `json:"heldBack,omitempty"`
}

// outlook is one container's restart behaviour and where it stands.
type outlook struct {
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	Policy string   `json:"policy"`
	Rules  []string `json:"rules,omitempty"`
	Now    string   `json:"now"`
}

type backOff struct {
	Initial string `json:"initial"`
	Max     string `json:"max"`
	// Restarts are the earliest restart times, after the first start, of a
	// container that exits at once every time.
	Restarts []string `json:"restartsOfAContainerThatExitsAtOnce"`
	// None, when set, says why the schedule applies to no container of
	// the pod: none starts again after it exits, whatever its exit code.
	None string `json:"none,omitempty"`
}

// anyRestarts reports whether some container of pod starts again after an
// exit with some exit code (restart.RestartsAfterExit: the restartPolicy,
// a native sidecar, a restart rule), or a RestartAllContainers rule may
// restart them all: only then does the crash-loop back-off apply.
func anyRestarts(pod *v1.Pod, f features.Set) bool {
	if f.Enabled(features.RestartAllContainersOnContainerExits) && restart.AllContainersCouldRestart(&pod.Spec) {
		return true
	}
	for _, name := range keycheck.ContainerNames(pod) {
		for code := int32(0); code <= 255; code++ {
			if again, _, _ := restart.RestartsAfterExit(pod, name, code, "", f); again {
				return true
			}
		}
	}
	return false
}

type deletionReport struct {
	// Basis says which runtime state the plan kills.
	Basis        string        `json:"basis"`
	Grace        int64         `json:"gracePeriodSeconds"`
	GraceFrom    string        `json:"graceFrom"`
	Ordered      bool          `json:"sidecarOrdering"`
	Steps        []string      `json:"steps"`
	Containers   []stopJSON    `json:"containers,omitempty"`
	SandboxStop  string        `json:"stopPodSandboxAt"`
	Notes        []string      `json:"notes,omitempty"`
	Then         []string      `json:"then"`
	Finalizers   []string      `json:"finalizers,omitempty"`
	MayDeleteNow *mayDeleteNow `json:"mayDeleteNow,omitempty"`
	// Static: the pod is a static pod; the plan is what removing its
	// manifest does.
	Static bool `json:"staticPod,omitempty"`
}

type stopJSON struct {
	Name       string   `json:"name"`
	ID         string   `json:"id"`
	PreStopEnd string   `json:"preStopEnd,omitempty"`
	WaitsFor   []string `json:"waitsFor,omitempty"`
	SIGTERM    string   `json:"sigterm"`
	Timeout    int64    `json:"timeoutSeconds"`
	SIGKILL    string   `json:"sigkill"`
}

type mayDeleteNow struct {
	Delete bool   `json:"delete"`
	Why    string `json:"why"`
}

// explain computes the explanation of one pod.
func explain(in explainInput) *explanation {
	pod := in.pod
	x := &explanation{Kind: "Explanation", KubeletVersion: in.gates.Version().String(), Gates: in.gates.Diff(), From: in.from}
	x.Pod = pod.Name
	if pod.Namespace != "" {
		x.Pod = pod.Namespace + "/" + pod.Name
	}
	x.Warnings = gateWarnings(pod, in.gates)

	// The runtime state: given, read off the status, or none.
	st, fromStatus := in.st, false
	var view podstatus.StatusView
	switch {
	case st != nil:
		x.Runtime = fmt.Sprintf("%s (%s)", in.stFrom, describeState(st))
	case podstatus.KubeletWrote(&pod.Status):
		view = podstatus.RuntimeFromStatus(pod)
		st, fromStatus = view.State, true
		x.Runtime = fmt.Sprintf("read off the pod's status (%s)", describeState(st))
		x.Assumed = view.Assumed
	default:
		x.Runtime = "none given: the pod as just admitted, no sandbox yet"
	}

	start, hasTime := startOf(pod, st)
	if hasTime && pod.Status.StartTime == nil && pod.Spec.ActiveDeadlineSeconds != nil {
		// The kubelet's status manager has held a startTime since the
		// pod's first sync, and its active-deadline handler counts from
		// it (active_deadline.go): the runtime's first sandbox or
		// instance stands for it here, as for every other time.
		pod = pod.DeepCopy()
		pod.Status.StartTime = &metav1.Time{Time: start}
	}
	now := latest(pod, st, start)
	if in.at.set {
		now = start.Add(in.at.d)
	}
	x.At = "+" + now.Sub(start).String()
	if !hasTime && in.at.set && in.at.d > 0 {
		// Nothing shows the pod ran: the answer is for a pod admitted
		// that long ago and never started, which is rarely the question.
		x.Warnings = append(x.Warnings, fmt.Sprintf("--at %s with no runtime state and no times in the status: the pod is taken as never started in those %s (no sandbox, no container); what the kubelet does with it over that time is simulate --for %s", in.at.d, in.at.d, in.at.d))
	}
	if hasTime {
		n := now.UTC()
		x.Now = &n
	}
	rel := func(t time.Time) string {
		if t.IsZero() {
			return "(time unknown)"
		}
		d := t.Sub(start)
		if d < 0 {
			return "-" + (-d).String()
		}
		return "+" + d.String()
	}

	cfg, err := restart.NewBackOffConfig(in.gates, restart.BackOffSettings{})
	if err != nil {
		cfg = restart.BackOffConfig{Initial: restart.DefaultInitialBackOff, Max: restart.DefaultMaxBackOff}
	}

	statusOpts := podstatus.Options{Features: in.gates, Now: now, RuntimeType: runtimeTypeOf(pod), Probes: view.Probes}
	if ips := hostIPs(pod); len(ips) > 0 {
		statusOpts.HostIPs = ips
	}
	first := podstatus.Compute(pod, st, statusOpts)
	var failures map[string]vocab.StartFailure
	var oc outlookContext
	x.Next, failures, oc = explainNext(pod, st, view, now, in.gates, cfg, rel)
	// Crash-loop back-off of each container: the records the next sync
	// holds.
	entryOf := oc.entry
	final := first
	if len(failures) > 0 {
		statusOpts.StartFailures = failures
		final = podstatus.Compute(pod, st, statusOpts)
	}

	x.Status = final.Status
	x.Phase = phaseWhy{Phase: final.Status.Phase, Why: final.GetPhase.Why}
	if final.Phase.Phase != final.GetPhase.Phase {
		x.Phase.Why = fmt.Sprintf("%s (getPhase gave %s: %s)", final.Phase, final.GetPhase.Phase, final.GetPhase.Why)
	}
	shown := pod.DeepCopy()
	shown.Status = final.Status
	if p := final.Status.Phase; (p == v1.PodSucceeded || p == v1.PodFailed) && anyRunning(st) {
		// mergePodStatus keeps the API's phase, reason and message: the
		// ones given, or, with no status given, the phase the kubelet
		// wrote before, getPhase's from these containers.
		kept := pod.Status.Phase
		if kept == "" {
			kept = final.GetPhase.Phase
		}
		shown.Status.Phase, shown.Status.Reason, shown.Status.Message = kept, pod.Status.Reason, pod.Status.Message
		x.Phase.HeldBack = fmt.Sprintf("containers still run: the status manager writes phase %s (with its reason and message) to the API only once SyncTerminatingPod has stopped them (mergePodStatus); until then the API keeps phase %s, with the conditions and container statuses below", p, kept)
	}
	// kubectl reads the API object: while the phase is held back, the
	// phase, reason and message kept there.
	x.KubectlStatus = kubectlstatus.Compute(shown)

	// Restart outlook per container.
	for _, name := range keycheck.ContainerNames(pod) {
		x.Containers = append(x.Containers, containerOutlook(pod, st, name, in.gates, cfg, entryOf, now, rel, oc))
	}
	x.BackOff = backOff{Initial: cfg.Initial.String(), Max: cfg.Max.String()}
	if !anyRestarts(pod, in.gates) {
		x.BackOff.None = "no container of this pod starts again after it exits"
	}
	for _, r := range cfg.Schedule(8, 0) {
		x.BackOff.Restarts = append(x.BackOff.Restarts, "+"+r.Start.String())
	}

	x.Probes = explainProbes(pod, st, start, now, in.gates, rel)
	x.Assumptions = explainAssumptions(pod, &x.Probes)
	x.Deletion = deletion(pod, st, in.st == nil && !fromStatus, in.gates)
	return x
}

// deletion plans the kill of the pod as it is now, or, for a pod just
// admitted, as it will be once its containers run.
func deletion(pod *v1.Pod, st *runtimestate.Pod, steady bool, f features.Set) deletionReport {
	var r deletionReport
	grace, _ := termination.EffectiveGracePeriod(0, pod, nil, f)
	r.Grace = grace
	switch {
	case pod.DeletionGracePeriodSeconds != nil:
		r.GraceFrom = "metadata.deletionGracePeriodSeconds"
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		r.GraceFrom = "spec.terminationGracePeriodSeconds"
	default:
		r.GraceFrom = "the minimum"
	}
	r.Basis = "the runtime state: the containers running now"
	if steady {
		st = steadyKillState(pod)
		r.Basis = "no runtime state given: once its sidecars and containers run"
		if len(pod.Spec.EphemeralContainers) > 0 {
			r.Basis = "no runtime state given: once its sidecars, containers and ephemeral containers run"
		}
	}
	tl := termination.Plan(pod, st, termination.Options{Features: f, GracePeriodOverride: &grace})
	r.Ordered = tl.Ordered
	for _, c := range tl.Containers {
		sj := stopJSON{Name: c.Name, ID: c.ID, WaitsFor: c.WaitsFor, SIGTERM: c.StopCall.String(), Timeout: c.Stop.Timeout, SIGKILL: c.Deadline().String()}
		if c.Stop.PreStopRan {
			sj.PreStopEnd = c.PreStopEnd.String()
		}
		r.Containers = append(r.Containers, sj)
	}
	r.SandboxStop = tl.SandboxStop.String()
	for _, c := range tl.Containers {
		if _, spec, ok := restart.KindOf(&pod.Spec, c.Name); ok && spec.Lifecycle != nil && spec.Lifecycle.PreStop != nil && spec.Lifecycle.PreStop.Sleep == nil {
			r.Notes = append(r.Notes, fmt.Sprintf("%s's preStop hook is taken to return at once: the kubelet deducts its real duration, in whole seconds, from the grace", c.Name))
		}
	}
	r.Steps = strings.Split(strings.TrimRight(tl.String(), "\n"), "\n")
	if len(tl.Containers) == 0 {
		r.Steps = append([]string{"no container runs: nothing to stop"}, r.Steps...)
	}
	r.Then = []string{
		"then the kubelet writes the pod's last status: " + afterKill(pod, st, f),
		"and deletes the API object (grace 0) once its pod worker has finished (volumes unmounted, cgroup removed)",
	}
	if phase.IsStaticPod(pod) {
		// A static pod is stopped by removing its manifest; its API
		// object is the kubelet's mirror pod, which housekeeping deletes
		// as an orphan once the pod's worker no longer terminates it
		// (HandlePodCleanups, kubelet_pods.go:1339). A DELETE of the
		// mirror pod stops nothing: the next sync deletes and recreates
		// it (tryReconcileMirrorPods, kubelet.go:3558).
		r.Static = true
		r.Then = []string{
			"then the kubelet writes the pod's last status to its mirror pod: " + afterKill(pod, st, f),
			"and housekeeping deletes the mirror pod, left without its static pod, once the pod worker has finished",
		}
		r.Notes = append(r.Notes, "a static pod: only removing its manifest stops it; deleting its mirror pod through the API stops nothing, the kubelet creates the mirror pod again")
	}
	if len(pod.Finalizers) > 0 {
		r.Finalizers = pod.Finalizers
		r.Then = append(r.Then, fmt.Sprintf("finalizers %s keep the object in the API, terminal phase and all, until their controllers remove them: the kubelet's part is done", strings.Join(pod.Finalizers, ", ")))
	}
	if pod.DeletionTimestamp != nil {
		d := termination.CanBeDeleted(pod, st, nil)
		r.MayDeleteNow = &mayDeleteNow{Delete: d.Delete, Why: d.String()}
	}
	return r
}

// steadyRunning returns the running instances of st.
func steadyRunning(st *runtimestate.Pod) []*runtimestate.Container {
	var out []*runtimestate.Container
	if st == nil {
		return nil
	}
	for i := range st.Containers {
		if st.Containers[i].State == runtimestate.Running {
			out = append(out, &st.Containers[i])
		}
	}
	return out
}

// afterKill says which terminal phase the kubelet writes once every running
// container of st is stopped: the status it generates with podIsTerminal,
// for processes that exit 0 on SIGTERM and for processes killed at the
// timeout (exit 137), made Failed when it is not terminal, as TerminatePod
// does for a pod that is not static.
func afterKill(pod *v1.Pod, st *runtimestate.Pod, f features.Set) string {
	phaseWith := func(code int, reason string) v1.PodPhase {
		after := st.DeepCopy()
		if after == nil {
			after = &runtimestate.Pod{}
		}
		for i := range after.Containers {
			if c := &after.Containers[i]; c.State == runtimestate.Running {
				c.State, c.ExitCode, c.Reason = runtimestate.Exited, code, reason
			}
		}
		ph := podstatus.Compute(pod, after, podstatus.Options{Features: f, PodIsTerminal: true}).Status.Phase
		// SyncTerminatedPod ends with the status manager's TerminatePod,
		// which marks a pod that is still Pending or Running (an init
		// container or a container that never completed) Failed; a
		// static pod keeps its phase (status_manager.go TerminatePod).
		if ph != v1.PodSucceeded && ph != v1.PodFailed && !phase.IsStaticPod(pod) {
			ph = v1.PodFailed
		}
		return ph
	}
	clean, killed := phaseWith(0, "Completed"), phaseWith(137, "Error")
	if clean == killed {
		return fmt.Sprintf("phase %s, however its containers exit", clean)
	}
	return fmt.Sprintf("phase %s if its containers exit 0 on SIGTERM, %s if they are killed (exit 137) or fail", clean, killed)
}

// steadyKillState is the runtime state IF DELETED NOW kills when none is
// given: steadyState with every ephemeral container running too (one runs
// from when it is added to the spec until it exits, and the kill stops it
// with the regular containers: killContainersWithSyncResult).
func steadyKillState(pod *v1.Pod) *runtimestate.Pod {
	st := steadyState(pod)
	n := len(pod.Spec.EphemeralContainers)
	if n == 0 {
		return st
	}
	// Newest first, as the runtime lists them: the ephemeral containers
	// were created last, in spec order.
	eph := make([]runtimestate.Container, 0, n+len(st.Containers))
	for i := n - 1; i >= 0; i-- {
		eph = append(eph, runtimestate.Container{ID: fmt.Sprintf("e%d", i+1), Name: pod.Spec.EphemeralContainers[i].Name, SandboxID: "s1", State: runtimestate.Running})
	}
	st.Containers = append(eph, st.Containers...)
	return st
}

// steadyState is a runtime state in which every sidecar and regular
// container of pod runs in one ready sandbox.
func steadyState(pod *v1.Pod) *runtimestate.Pod {
	st := &runtimestate.Pod{UID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
		Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: true, IP: "10.244.0.2"}}}
	if pod.Spec.HostNetwork {
		st.Sandboxes[0].NetworkMode = runtimestate.NamespaceNode
	}
	var names []string
	for i := range pod.Spec.InitContainers {
		if restart.IsSidecar(&pod.Spec.InitContainers[i]) {
			names = append(names, pod.Spec.InitContainers[i].Name)
		}
	}
	for i := range pod.Spec.Containers {
		names = append(names, pod.Spec.Containers[i].Name)
	}
	for i := len(names) - 1; i >= 0; i-- { // newest first
		st.Containers = append(st.Containers, runtimestate.Container{ID: fmt.Sprintf("c%d", i+1), Name: names[i], SandboxID: "s1", State: runtimestate.Running})
	}
	return st
}

func containerOutlook(pod *v1.Pod, st *runtimestate.Pod, name string, f features.Set, cfg restart.BackOffConfig,
	entryOf func(string) restart.BackOffEntry, now time.Time, rel func(time.Time) string, oc outlookContext) outlook {
	o := outlook{Name: name}
	eff, ok := restart.EffectivePolicy(pod, name, f)
	if !ok {
		return o
	}
	o.Kind = kindWords(eff.Kind)
	o.Policy = policyWords(pod, eff)
	if eff.Kind == restart.Sidecar {
		o.Policy = sidecarPolicy(containerSpec(pod, name), f)
	}
	if pod.DeletionTimestamp != nil {
		// ShouldContainerBeRestarted: a pod marked for deletion starts
		// nothing again, whatever its policy.
		o.Policy = "not restarted: the pod is being deleted (ShouldContainerBeRestarted); otherwise " + o.Policy
	}
	rules := outlookRules(pod, name, eff, f)
	for _, r := range rules {
		o.Rules = append(o.Rules, ruleWords(r))
	}
	if eff.Kind != restart.Sidecar && pod.DeletionTimestamp == nil && rulesInForce(rules, f) {
		// ContainerShouldRestart (pkg/api/v1/pod/util.go:419): the first
		// rule that matches the exit code decides; the container's
		// restartPolicy only when none matches. "never restarted" alone
		// contradicted the rule line under it.
		lead := "restarted as the first rule below that matches its exit code says; otherwise "
		if eff.Kind == restart.Init {
			lead = "after a failure, restarted as the first rule below that matches its exit code says; otherwise "
		}
		o.Policy = lead + o.Policy
	}

	newest := st.Newest(name)
	switch {
	case newest == nil:
		o.Now = "not started yet"
	case newest.State == runtimestate.Running:
		o.Now = fmt.Sprintf("running since %s", rel(newest.StartedAt))
	case newest.State == runtimestate.Created:
		o.Now = "created, not started"
	case newest.State == runtimestate.Unknown:
		o.Now = "in an unknown state: the kubelet kills and replaces it"
	default:
		again, _, _ := restart.RestartsAfterExit(pod, name, int32(newest.ExitCode), newest.Reason, f)
		o.Now = fmt.Sprintf("exited %d", newest.ExitCode)
		if newest.Reason != "" {
			o.Now += " (" + newest.Reason + ")"
		}
		o.Now += " at " + rel(newest.FinishedAt)
		if newest.RestartCount > 0 {
			o.Now += fmt.Sprintf(" (restart count %d)", newest.RestartCount)
		}
		if rule, ok := restart.MatchRule(containerSpec(pod, name), int32(newest.ExitCode)); ok && len(rules) > 0 {
			o.Now += fmt.Sprintf("; rule %q matches", ruleWords(rule))
		}
		rule, matched := restart.MatchRule(containerSpec(pod, name), int32(newest.ExitCode))
		switch {
		case pod.DeletionTimestamp != nil:
			o.Now += "; the pod is being deleted: not restarted"
		case matched && len(rules) > 0 && rule.Action == v1.ContainerRestartRuleActionRestartAllContainers && f.Enabled(features.RestartAllContainersOnContainerExits):
			o.Now += "; the whole pod restarts in place: every container is removed, then started again from the first init container"
		case oc.resetting:
			o.Now += "; " + resetWords(false, oc.removed[name])
		case oc.over != "":
			o.Now += "; " + oc.over + ": not restarted"
		case !again && oc.started[name]:
			o.Now += "; by its policy not restarted, " + oc.againWords()
		case !again:
			o.Now += "; not restarted"
		default:
			_, c, _ := restart.KindOf(&pod.Spec, name)
			d := cfg.Decide(pod, c, st, entryOf(name), now)
			if d.Start && oc.started[name] {
				o.Now += "; restarted now"
			} else if d.Start {
				o.Now += "; to be restarted, but not by this sync (see NEXT)"
			} else {
				o.Now += fmt.Sprintf("; restarted at %s at the earliest (back-off %s)", rel(d.Until), d.Delay)
			}
		}
	}
	if oc.resetting && newest != nil && newest.State != runtimestate.Exited && eff.Kind != restart.Ephemeral {
		o.Now += "; " + resetWords(newest.State == runtimestate.Running, oc.removed[name])
	}
	return o
}

// rulesInForce says whether one of rules changes what the kubelet does
// after some exit: a Restart rule (read with gate ContainerRestartRules,
// which EffectivePolicy already required), or a RestartAllContainers rule
// with gate RestartAllContainersOnContainerExits (without it the kubelet
// falls back to the restartPolicy).
func rulesInForce(rules []v1.ContainerRestartRule, f features.Set) bool {
	for _, r := range rules {
		switch r.Action {
		case v1.ContainerRestartRuleActionRestart:
			return true
		case v1.ContainerRestartRuleActionRestartAllContainers:
			if f.Enabled(features.RestartAllContainersOnContainerExits) {
				return true
			}
		}
	}
	return false
}

func containerSpec(pod *v1.Pod, name string) *v1.Container {
	_, c, _ := restart.KindOf(&pod.Spec, name)
	return c
}

func kindWords(k restart.Kind) string {
	switch k {
	case restart.Init:
		return "init container"
	case restart.Sidecar:
		return "native sidecar"
	case restart.Ephemeral:
		return "ephemeral container"
	}
	return "container"
}

func policyWords(pod *v1.Pod, e restart.Effective) string {
	src := fmt.Sprintf("the pod's restartPolicy %s", orAlways(pod.Spec.RestartPolicy))
	if e.FromContainer {
		src = "its own restartPolicy " + string(e.Policy)
	}
	switch e.Kind {
	case restart.Sidecar:
		return "always restarted, whatever its exit code (restartPolicy Always)"
	case restart.Ephemeral:
		return "never restarted"
	case restart.Init:
		if e.Policy == v1.ContainerRestartPolicyNever {
			return "never restarted: a failure fails the pod (" + src + ")"
		}
		if !e.FromContainer && pod.Spec.RestartPolicy != v1.RestartPolicyOnFailure {
			src += ", read as OnFailure for init containers"
		}
		return "restarted after a failure, never after it succeeds (" + src + ")"
	}
	switch e.Policy {
	case v1.ContainerRestartPolicyAlways:
		return "restarted after every exit (" + src + ")"
	case v1.ContainerRestartPolicyOnFailure:
		return "restarted after a non-zero exit (" + src + ")"
	}
	return "never restarted (" + src + ")"
}

func orAlways(p v1.RestartPolicy) string {
	if p == "" {
		return "Always"
	}
	return string(p)
}

func ruleWords(r v1.ContainerRestartRule) string {
	cond := "any exit"
	if r.ExitCodes != nil {
		var vals []string
		for _, v := range r.ExitCodes.Values {
			vals = append(vals, fmt.Sprint(v))
		}
		op := "in"
		if r.ExitCodes.Operator == v1.ContainerRestartRuleOnExitCodesOpNotIn {
			op = "not in"
		}
		cond = fmt.Sprintf("exit code %s [%s]", op, strings.Join(vals, " "))
	}
	return fmt.Sprintf("%s → %s", cond, r.Action)
}

// describeState summarizes a runtime state in a few words.
func describeState(st *runtimestate.Pod) string {
	sb := "no sandbox"
	if s := st.LatestSandbox(); s != nil {
		ready := "ready"
		if !s.Ready {
			ready = "not ready"
		}
		sb = fmt.Sprintf("sandbox %s %s", s.ID, ready)
	}
	n := len(st.Containers)
	word := "container instances"
	if n == 1 {
		word = "container instance"
	}
	return fmt.Sprintf("%s, %d %s", sb, n, word)
}

// startOf returns when the pod started: its status's startTime, else the
// runtime's first sandbox or instance; and whether the inputs hold any time.
func startOf(pod *v1.Pod, st *runtimestate.Pod) (time.Time, bool) {
	if pod.Status.StartTime != nil && !pod.Status.StartTime.IsZero() {
		return pod.Status.StartTime.Time, true
	}
	first := st.FirstSeen()
	return first, !first.IsZero()
}

// latest returns the last time the runtime state shows (start when none).
func latest(pod *v1.Pod, st *runtimestate.Pod, start time.Time) time.Time {
	last := start
	see := func(t time.Time) {
		if t.After(last) {
			last = t
		}
	}
	if pod.DeletionTimestamp != nil {
		// The deletion request: deletionTimestamp less the grace.
		t := pod.DeletionTimestamp.Time
		if g := pod.DeletionGracePeriodSeconds; g != nil {
			t = t.Add(-time.Duration(*g) * time.Second)
		}
		see(t)
	}
	if st != nil {
		see(st.Timestamp)
		for _, s := range st.Sandboxes {
			see(s.CreatedAt)
		}
		for _, c := range st.Containers {
			see(c.CreatedAt)
			see(c.StartedAt)
			see(c.FinishedAt)
		}
	}
	return last
}

func hostIPs(pod *v1.Pod) []string {
	var out []string
	for _, ip := range pod.Status.HostIPs {
		out = append(out, ip.IP)
	}
	return out
}

// runtimeTypeOf reads the runtime type off the status's container IDs
// ("containerd" when none has one).
func runtimeTypeOf(pod *v1.Pod) string {
	for _, l := range [][]v1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, cs := range l {
			if t, _, ok := strings.Cut(cs.ContainerID, "://"); ok && t != "" {
				return t
			}
		}
	}
	return apistatus.DefaultRuntimeType
}

// anyRunning: some container instance of st runs.
func anyRunning(st *runtimestate.Pod) bool {
	if st == nil {
		return false
	}
	for i := range st.Containers {
		if st.Containers[i].State == runtimestate.Running {
			return true
		}
	}
	return false
}
