package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
	"github.com/kubeletlogic/kubeletlogic/phase"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// durationFlag is a duration flag: 0s or later (or, with positive, more
// than 0s).
type durationFlag struct {
	d        time.Duration
	set      bool
	positive bool
}

func (f *durationFlag) String() string {
	if !f.set {
		return ""
	}
	return f.d.String()
}

func (f *durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if _, nerr := strconv.ParseFloat(s, 64); err != nil && nerr == nil {
		return fmt.Errorf("%s has no unit: write %ss for seconds (a duration such as 90s or 5m)", s, s)
	}
	if err != nil {
		return fmt.Errorf("want a duration such as 90s or 5m")
	}
	if d < 0 || (f.positive && d == 0) {
		if f.positive {
			return fmt.Errorf("want a duration longer than 0s")
		}
		return fmt.Errorf("want a time after the start (0s or later)")
	}
	f.d, f.set = d, true
	return nil
}

// simFlags are the flags simulate and timeline share.
type simFlags struct {
	file, script string
	forDur       durationFlag
	deleteAt     durationFlag
	grace        int64
	removeAt     durationFlag
	resize       resizeFlag
	resizePod    resizePodFlag
	resizeAt     durationFlag
	seed         uint64
	contention   contentionFlag
	gates        *gateFlags
}

// contentionFlag is --runtime-contention: a duration, or "off" (-1).
type contentionFlag struct{ d sim.Duration }

func (f *contentionFlag) String() string {
	switch {
	case f.d < 0:
		return "off"
	case f.d == 0:
		return ""
	}
	return f.d.String()
}

func (f *contentionFlag) Set(s string) error {
	if s == "off" {
		f.d = -1
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("want a duration longer than 0s, such as 14ms, or off")
	}
	f.d = sim.Duration(d)
	return nil
}

func addSimFlags(fs *flag.FlagSet) *simFlags {
	f := &simFlags{forDur: durationFlag{d: 10 * time.Minute, positive: true}}
	fs.StringVar(&f.file, "f", "", "the pod: a Pod (kubectl get pod -o yaml), a List, or a workload (Deployment, Job, …); - for standard input")
	fs.StringVar(&f.script, "script", "", "what the containers do, run after run, and what happens to the pod when (YAML or JSON); none: every container runs until it is stopped")
	fs.Var(&f.forDur, "for", "how long to simulate at most (default 10m0s); the simulation also ends when the pod is gone")
	fs.Var(&f.deleteAt, "delete-at", "delete the pod (kubectl delete) at this time after the start, e.g. 60s")
	fs.Int64Var(&f.grace, "grace", -1, "the grace period the DELETE of --delete-at asks for, in seconds (default: the pod's terminationGracePeriodSeconds); 0 is a force delete, as kubectl delete --grace-period=0 --force (without --force kubectl sends 1 for 0)")
	fs.Var(&f.removeAt, "remove-at", "remove the pod at this time: kubectl delete --force (the API object goes at once), or a static pod's manifest removed")
	fs.Var(&f.resize, "resize", "with --resize-at: resize in place, [container:]cpu=500m,memory=256Mi (cpu= and memory= set the request and the limit the container has; requests.cpu=, limits.memory= set one); repeatable")
	fs.Var(&f.resizePod, "resize-pod", "with --resize-at: resize the pod-level resources (spec.resources) in place, cpu=300m,memory=256Mi (cpu= and memory= set the request and the limit spec.resources has; requests.cpu=, limits.memory= set one); with --resize, one request; repeatable")
	fs.Var(&f.resizeAt, "resize-at", "when to apply --resize and --resize-pod (kubectl patch --subresource resize), e.g. 30s")
	fs.Uint64Var(&f.seed, "seed", 1, "the seed of every random choice the kubelet makes (requeue jitter, loop phases); the same seed gives the same timeline")
	fs.Var(&f.contention, "runtime-contention", "with several pods: how much longer a sandbox or container call takes for each other such call it overlaps (default 14ms, as measured on a real node); off: each pod's calls take the same time whatever the others do")
	f.gates = addGateFlags(fs)
	return f
}

// simulation is a simulation run, with what it was run on.
type simulation struct {
	pods       []loadedPod
	notes      []string // what was changed on the pods to simulate them
	script     *sim.ScriptFile
	scriptName string // "" when no script was given
	gates      features.Set
	cfg        sim.Config
	inputs     []sim.PodInput
	tl         *sim.Timeline
}

// prepareSim reads the inputs, runs the simulation, and returns an exit
// code when the command must stop (-1 to go on).
func prepareSim(e *env, cmd string, f *simFlags) (*simulation, int) {
	if f.file == "" {
		fmt.Fprintf(e.stderr, "kubeletlogic %s: -f FILE is required (- for standard input)\n", cmd)
		return nil, exitUsage
	}
	if f.grace >= 0 && !f.deleteAt.set {
		fmt.Fprintf(e.stderr, "kubeletlogic %s: --grace is the grace period of --delete-at, which is not given\n", cmd)
		return nil, exitUsage
	}
	if len(f.resize.specs)+len(f.resizePod.specs) > 0 != f.resizeAt.set {
		fmt.Fprintf(e.stderr, "kubeletlogic %s: --resize and --resize-at go together (what to resize, and when), as do --resize-pod and --resize-at\n", cmd)
		return nil, exitUsage
	}
	if f.script == "-" && f.file == "-" {
		fmt.Fprintf(e.stderr, "kubeletlogic %s: -f and --script cannot both read standard input\n", cmd)
		return nil, exitUsage
	}
	set, err := f.gates.set()
	if err != nil {
		fmt.Fprintf(e.stderr, "kubeletlogic %s: %v\n", cmd, err)
		return nil, exitBadInput
	}
	data, name, err := readSource(e, f.file)
	if err != nil {
		return nil, inputFailed(e, cmd, err)
	}
	pods, err := readPodsNoting(e, cmd, data, name)
	if err != nil {
		return nil, inputFailed(e, cmd, err)
	}
	s := &simulation{pods: pods, gates: set, script: &sim.ScriptFile{}}
	if f.script != "" {
		sdata, sname, err := readSource(e, f.script)
		if err != nil {
			return nil, inputFailed(e, cmd, err)
		}
		if s.script, err = readScript(sdata, sname, pods); err != nil {
			return nil, inputFailed(e, cmd, err)
		}
		s.scriptName = sname
	}
	msg, late := checkSimTimes(f, s.script, s.scriptName)
	if msg != "" {
		fmt.Fprintf(e.stderr, "kubeletlogic %s: %s\n", cmd, msg)
		return nil, exitUsage
	}
	var warnings []string
	for _, w := range s.script.Warnings() {
		warnings = append(warnings, scriptInputError(s.scriptName, w).Error())
	}
	for _, w := range append(warnings, late...) {
		fmt.Fprintf(e.stderr, "kubeletlogic %s: warning: %s\n", cmd, w)
	}
	var actions []sim.Action
	for _, a := range s.script.Actions {
		actions = append(actions, a.Action())
	}
	if f.deleteAt.set {
		g := f.grace
		if g < 0 {
			g = -1
		}
		actions = append(actions, sim.Action{At: sim.Duration(f.deleteAt.d), Delete: &g})
	}
	if f.removeAt.set {
		actions = append(actions, sim.Action{At: sim.Duration(f.removeAt.d), Remove: true})
	}
	if f.resizeAt.set {
		if len(pods) != 1 {
			fmt.Fprintf(e.stderr, "kubeletlogic %s: --resize and --resize-pod need one pod; the input has %d (use a script's resize or resizePod action)\n", cmd, len(pods))
			return nil, exitUsage
		}
		a := sim.Action{At: sim.Duration(f.resizeAt.d)}
		if len(f.resize.specs) > 0 {
			r, err := parseResize(f.resize.specs, pods[0].pod)
			if err != nil {
				fmt.Fprintf(e.stderr, "kubeletlogic %s: %v\n", cmd, err)
				return nil, exitBadInput
			}
			a.Resize = r
		}
		if len(f.resizePod.specs) > 0 {
			r, err := parseResizePod(f.resizePod.specs, pods[0].pod)
			if err != nil {
				fmt.Fprintf(e.stderr, "kubeletlogic %s: %v\n", cmd, err)
				return nil, exitBadInput
			}
			a.ResizePod = r
		}
		actions = append(actions, a)
	}
	sort.SliceStable(actions, func(i, j int) bool { return actions[i].At < actions[j].At })

	s.cfg = sim.Config{Kubelet: sim.Kubelet{Features: set}, Seed: f.seed, For: sim.Duration(f.forDur.d), RuntimeContention: f.contention.d}
	for _, lp := range pods {
		pod, notes := simPod(lp.pod)
		s.notes = append(s.notes, notes...)
		for _, w := range gateWarnings(pod, set) {
			s.notes = append(s.notes, "warning: pod "+pod.Name+": "+w)
		}
		script := s.script.PodScript(pod)
		s.inputs = append(s.inputs, sim.PodInput{Pod: pod, Script: script, Actions: actions})
	}
	tl, err := sim.Simulate(s.cfg, s.inputs)
	if err != nil {
		fmt.Fprintf(e.stderr, "kubeletlogic %s: %v\n", cmd, err)
		return nil, exitBadInput
	}
	s.tl = tl
	return s, -1
}

// simPod is the pod as the simulation receives it: a pod just created
// through the API (or a static pod, when its config.source annotation says
// so), with no status of its own.
func simPod(p *v1.Pod) (*v1.Pod, []string) {
	pod := p.DeepCopy()
	var notes []string
	var dropped []string
	if len(pod.Status.ContainerStatuses)+len(pod.Status.InitContainerStatuses) > 0 {
		dropped = append(dropped, "status")
	}
	if pod.DeletionTimestamp != nil {
		dropped = append(dropped, "deletionTimestamp")
		pod.DeletionTimestamp, pod.DeletionGracePeriodSeconds = nil, nil
	}
	if len(dropped) > 0 {
		notes = append(notes, fmt.Sprintf("pod %s: the manifest's %s not replayed: the simulated pod starts afresh, created at 0s",
			pod.Name, strings.Join(dropped, " and ")+map[bool]string{true: " are", false: " is"}[len(dropped) > 1]))
	}
	pod.Status = v1.PodStatus{}
	pod.CreationTimestamp = metav1.Time{}
	if _, ok := pod.Annotations["kubernetes.io/config.source"]; !ok {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations["kubernetes.io/config.source"] = "api"
	}
	return pod, notes
}

func runSimulate(e *env) int {
	fs := newFlagSet(e, "simulate", "-f FILE|- [--script FILE] [--for 10m] [--delete-at 60s [--grace N]] [--remove-at 90s] [--resize [c:]cpu=500m,memory=256Mi] [--resize-pod cpu=300m] [--resize-at 30s] [--seed N] [--gate Name=bool]... [--events] [-o text|json]")
	f := addSimFlags(fs)
	events := fs.Bool("events", false, "print every entry of the timeline (syncs, PLEG events, probe results, exits, statuses), not only the CRI calls")
	out := fs.String("o", "text", "output: text (kubectl get pod -w, then the CRI calls) or json (the inputs and the whole timeline)")
	if code := parseFlags(e, fs); code >= 0 {
		return code
	}
	if *out != "text" && *out != "json" {
		fmt.Fprintf(e.stderr, "kubeletlogic simulate: -o %q: want text or json\n", *out)
		return exitUsage
	}
	s, code := prepareSim(e, "simulate", f)
	if code >= 0 {
		return code
	}
	if *out == "json" {
		doc := sim.NewSimulation(s.cfg, s.inputs, s.tl)
		doc.Assumptions = simAssumptions(s)
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			fmt.Fprintf(e.stderr, "kubeletlogic simulate: %v\n", err)
			return exitBadInput
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
		return exitOK
	}
	writeSimHeader(e.stdout, s)
	fmt.Fprintln(e.stdout)
	fmt.Fprint(e.stdout, s.tl.Watch())
	if *events {
		fmt.Fprintln(e.stdout, "\nEvery entry of the timeline:")
		fmt.Fprint(e.stdout, trimLines(s.tl.Events()))
	} else {
		fmt.Fprintln(e.stdout, "\nCRI calls:")
		fmt.Fprint(e.stdout, s.tl.Calls())
	}
	return exitOK
}

// trimLines drops the spaces at the end of each line.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// writeSimHeader says what was simulated: the node, the pods, the script
// and the actions, and how each pod's life ended.
func writeSimHeader(w io.Writer, s *simulation) {
	gates := "its default feature gates"
	if d := s.gates.Diff(); len(d) > 0 {
		gates = "feature gates changed: " + strings.Join(d, ", ")
	}
	fmt.Fprintf(w, "Simulated node: kubelet %s with %s; seed %d; at most %s\n", s.gates.Version(), gates, s.cfg.Seed, s.cfg.For)
	for _, lp := range s.pods {
		fmt.Fprintf(w, "Pod %s, from %s\n", podName(lp.pod), lp.from)
	}
	for _, n := range s.notes {
		fmt.Fprintf(w, "(%s)\n", n)
	}
	if s.scriptName == "" {
		fmt.Fprintln(w, "script: none given: every container runs until it is stopped, exits 0 at once on SIGTERM,")
		fmt.Fprintln(w, "  and passes every probe; the runtime takes its measured times (RunPodSandbox 289ms, …)")
	} else {
		fmt.Fprintf(w, "script: %s\n", s.scriptName)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		seen := map[string]bool{}
		for _, lp := range s.pods {
			for _, c := range keycheck.Containers(lp.pod) {
				if seen[c.Name] {
					continue
				}
				seen[c.Name] = true
				if b, ok := s.script.Containers[c.Name]; ok {
					fmt.Fprintf(tw, "  %s\t%s\n", c.Name, describeBehaviour(b))
				} else {
					fmt.Fprintf(tw, "  %s\tnot in the script: runs until stopped, exits 0 at once on SIGTERM\n", c.Name)
				}
			}
		}
		tw.Flush()
	}
	if len(s.inputs) > 0 && len(s.inputs[0].Actions) > 0 {
		var as []string
		for _, a := range s.inputs[0].Actions {
			w := actionWords(a, s.inputs[0].Pod)
			if a.At > s.cfg.For {
				w += " [after the end: never happens]"
			}
			as = append(as, w)
		}
		fmt.Fprintf(w, "actions: %s\n", strings.Join(as, "; "))
	} else {
		fmt.Fprintln(w, "actions: none (--delete-at, --remove-at, or the script's actions)")
	}
	writeSimAssumptions(w, s)
	for _, in := range s.inputs {
		fmt.Fprintf(w, "end: %s\n", endWords(s.tl, in.Pod, s.cfg.For.D()))
	}
}

func podName(p *v1.Pod) string {
	if p.Namespace != "" {
		return p.Namespace + "/" + p.Name
	}
	return p.Name
}

// actionWords says what an action does, and when.
func actionWords(a sim.Action, pod *v1.Pod) string {
	at := "at " + a.At.String()
	switch {
	case (a.Delete != nil || a.Remove) && phase.IsStaticPod(pod):
		return "static pod: its manifest removed " + at
	case a.Delete != nil:
		g := *a.Delete
		if g < 0 {
			g = 30
			if pod.Spec.TerminationGracePeriodSeconds != nil {
				g = *pod.Spec.TerminationGracePeriodSeconds
			}
			return fmt.Sprintf("delete %s (grace %ds, the pod's)", at, g)
		}
		return fmt.Sprintf("delete %s (grace %ds)", at, g)
	case a.Remove:
		return "remove " + at + " (the object goes at once; the kubelet still stops the containers with the pod's grace)"
	case a.RemoveFinalizers:
		return "remove the finalizers " + at
	case a.KillContainer != "":
		return fmt.Sprintf("SIGKILL %s's process %s", a.KillContainer, at)
	case a.KillSandbox:
		return "kill the sandbox " + at
	case a.AddEphemeral != nil:
		return fmt.Sprintf("add ephemeral container %s %s", a.AddEphemeral.Name, at)
	}
	// A resize, among others, reads as sim.Action.String says it.
	return a.String() + " " + at
}

// endWords says how the pod's simulated life ended.
func endWords(tl *sim.Timeline, pod *v1.Pod, limit time.Duration) string {
	var deleted, held *sim.Entry
	for i := range tl.Entries {
		e := &tl.Entries[i]
		if e.Pod != pod.Name || e.Kind != sim.KindAPI {
			continue
		}
		if strings.HasPrefix(e.Message, "API object deleted") && deleted == nil {
			deleted = e
		}
		if strings.Contains(e.Message, "finalizers hold it") && held == nil {
			held = e
		}
	}
	at, st := tl.LastStatus(pod.Name)
	ph := "no status"
	if st != nil {
		ph = "phase " + string(st.Phase)
	}
	switch {
	case deleted != nil:
		return fmt.Sprintf("%s: API object deleted at %s (last %s)", pod.Name, fmtSecs(deleted.At), ph)
	case held != nil:
		return fmt.Sprintf("%s: the kubelet deleted the API object at %s, and its finalizers hold it (last %s)", pod.Name, fmtSecs(held.At), ph)
	case phase.IsStaticPod(pod) && removedAt(tl, pod.Name) >= 0 && st != nil:
		return fmt.Sprintf("%s: static pod, its manifest removed at %s; the kubelet's last status at %s (%s: a static pod keeps its phase)", pod.Name, fmtSecs(removedAt(tl, pod.Name)), fmtSecs(at), ph)
	case st != nil && (st.Phase == v1.PodSucceeded || st.Phase == v1.PodFailed):
		return fmt.Sprintf("%s: %s written at %s; the object stays until something deletes it (a controller, or --delete-at)", pod.Name, ph, fmtSecs(at))
	}
	return fmt.Sprintf("%s: %s when the simulation stopped at %s (--for)", pod.Name, ph, limit)
}

// removedAt is when the pod was deleted or removed, or -1.
func removedAt(tl *sim.Timeline, pod string) time.Duration {
	for _, e := range tl.Entries {
		if e.Pod == pod && e.Kind == sim.KindAction && (strings.HasPrefix(e.Message, "delete") || strings.HasPrefix(e.Message, "remove")) && !strings.HasPrefix(e.Message, "remove finalizers") {
			return e.At
		}
	}
	return -1
}

// fmtSecs prints a time of the simulation as the watch view does.
func fmtSecs(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) + "s"
}
