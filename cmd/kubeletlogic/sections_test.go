package main

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/termination"
)

// explainCase is one input of explain: a pod, with or without the status
// a kubelet wrote, and a runtime file or none.
type explainCase struct {
	in explainInput
	// st is the runtime state explain reads: the file's, the one read off
	// the status, or nil.
	st *runtimestate.Pod
	// view is the reading of the status (podstatus.RuntimeFromStatus)
	// when explain reads the runtime off it.
	view *podstatus.StatusView
	// steady is true when explain has no runtime at all (its deletion
	// plan then kills the pod once everything runs).
	steady bool
}

func drawExplainCase(t *rapid.T) explainCase {
	gates := podgen.Features(podgen.FeatureOptions{}).Draw(t, "gates")
	pod := podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
	st := podgen.RuntimeState(pod, podgen.StateOptions{AllExited: 30}).Draw(t, "state")
	now := st.Timestamp
	withStatus := rapid.Bool().Draw(t, "pod carries its status")
	if withStatus {
		pod.Status = podstatus.Compute(pod, st, podstatus.Options{Features: gates, Now: now}).Status
	}
	c := explainCase{in: explainInput{pod: pod, from: "drawn", gates: gates}}
	switch {
	case rapid.IntRange(0, 3).Draw(t, "runtime file") > 0:
		c.in.st, c.in.stFrom, c.st = st, "drawn", st
	case podstatus.KubeletWrote(&pod.Status):
		v := podstatus.RuntimeFromStatus(pod)
		c.view, c.st = &v, v.State
	default:
		c.steady = true
	}
	return c
}

// checkSections checks that no two sections of explain's answer
// contradict each other or the library:
//
//   - NEXT is the front-door next (sim.Next on the same pod, runtime state,
//     time and gates): the same kubelet function, the same containers
//     started, stopped and removed, computePodActions' decision word for
//     word, the containers held in back-off;
//   - RESTARTS agrees with package restart: each container's kind and the
//     rules the kubelet reads (restart.EffectivePolicy, and a native
//     sidecar's RestartAllContainers rules); "not restarted" exactly when
//     restart.RestartsAfterExit says so, unless a RestartAllContainers
//     reset, a deletion or a terminal phase decides;
//   - RESTARTS agrees with NEXT: a container "restarted now" is started,
//     one "not restarted" or held by back-off is not, one the pod-wide
//     reset stops and removes is removed; while the pod is deleted or
//     terminal nothing "restarts now";
//   - STATUS agrees with NEXT: the phase is the one the sync stores, and a
//     terminal phase starts nothing;
//   - the deletion plan is termination.Plan's.
func checkSections(c explainCase) error {
	x := explain(c.in)
	pod, f := c.in.pod, c.in.gates
	var now time.Time
	if x.Now != nil {
		now = *x.Now
	}
	opts := sim.NextOptions{Now: now, Kubelet: sim.Kubelet{Features: f}}
	if c.view != nil {
		opts.Probes, opts.Actuated = c.view.Probes, &c.view.Actuated
	}
	r := sim.Next(pod, c.st, opts)

	// NEXT is the front-door next.
	if x.Next.Function != workFuncs[r.Work] {
		return fmt.Errorf("NEXT runs %s, sim.Next %s", x.Next.Function, workFuncs[r.Work])
	}
	for _, p := range []struct {
		what      string
		got, want []string
	}{{"starts", x.Next.Starts, r.Started()}, {"stops", x.Next.Stops, r.Stopped()}, {"removes", x.Next.Removes, r.Removed()}} {
		if !slices.Equal(p.got, p.want) {
			return fmt.Errorf("NEXT %s %v, sim.Next %v", p.what, p.got, p.want)
		}
	}
	say := strings.Join(x.Next.Say, "\n")
	if r.Work == termination.SyncPod && !r.Result.Terminal && !strings.Contains(say, strings.TrimRight(r.Decision, "\n")) {
		return fmt.Errorf("NEXT says %q, sim.Next decided %q", say, r.Decision)
	}
	for _, m := range r.Messages {
		name, msg, _ := strings.Cut(m, ": ")
		if strings.HasPrefix(msg, "back-off ") && !slices.Contains(x.Next.Held, name) {
			return fmt.Errorf("sim.Next holds %s in back-off, NEXT does not say so: %q", name, say)
		}
	}

	// STATUS agrees with NEXT.
	if r.Work == termination.SyncPod && len(r.Statuses) > 0 && r.Statuses[0].Status.Phase != x.Phase.Phase {
		return fmt.Errorf("STATUS phase %s, the status SyncPod stores has %s", x.Phase.Phase, r.Statuses[0].Status.Phase)
	}
	if (x.Phase.Phase == v1.PodSucceeded || x.Phase.Phase == v1.PodFailed) && len(x.Next.Starts) > 0 {
		return fmt.Errorf("STATUS phase %s, but NEXT starts %v", x.Phase.Phase, x.Next.Starts)
	}

	// RESTARTS agrees with restart and with NEXT.
	resetting := false
	if r.Work == termination.SyncPod && r.Memory.Status != nil {
		for _, cd := range r.Memory.Status.Conditions {
			resetting = resetting || cd.Type == v1.AllContainersRestarting && cd.Status == v1.ConditionTrue
		}
	}
	over := pod.DeletionTimestamp != nil || r.Work != termination.SyncPod || r.Result.Terminal
	for _, o := range x.Containers {
		eff, ok := restart.EffectivePolicy(pod, o.Name, f)
		if !ok {
			return fmt.Errorf("RESTARTS lists %s, which the spec does not have", o.Name)
		}
		if o.Kind != kindWords(eff.Kind) {
			return fmt.Errorf("RESTARTS: %s is a %s, restart says %s", o.Name, o.Kind, kindWords(eff.Kind))
		}
		spec := containerSpec(pod, o.Name)
		rules := eff.Rules
		if eff.Kind == restart.Sidecar && f.Enabled(features.RestartAllContainersOnContainerExits) {
			rules = spec.RestartPolicyRules
		}
		var want []string
		for _, rl := range rules {
			want = append(want, ruleWords(rl))
		}
		if !slices.Equal(o.Rules, want) {
			return fmt.Errorf("RESTARTS: %s's rules %q, the kubelet reads %q", o.Name, o.Rules, want)
		}
		started := slices.Contains(x.Next.Starts, o.Name)
		switch {
		case strings.Contains(o.Now, "restarted now") && !started:
			return fmt.Errorf("RESTARTS: %s %q, but NEXT does not start it: %v", o.Name, o.Now, x.Next.Say)
		case strings.Contains(o.Now, "this sync starts it again") && !started:
			return fmt.Errorf("RESTARTS: %s %q, but NEXT does not start it", o.Name, o.Now)
		case strings.Contains(o.Now, "not restarted") && !strings.Contains(o.Now, "this sync starts it again") && started:
			return fmt.Errorf("RESTARTS: %s %q, but NEXT starts it", o.Name, o.Now)
		case strings.Contains(o.Now, "at the earliest") && started:
			return fmt.Errorf("RESTARTS: %s %q, but NEXT starts it now", o.Name, o.Now)
		case strings.Contains(o.Now, "this sync removes it") || strings.Contains(o.Now, "this sync stops it"):
			if !slices.Contains(x.Next.Removes, o.Name) {
				return fmt.Errorf("RESTARTS: %s %q, but NEXT does not remove it: %v", o.Name, o.Now, x.Next.Say)
			}
		}
		if over && strings.Contains(o.Now, "restarted now") {
			return fmt.Errorf("RESTARTS: %s %q, but the pod is deleted or terminal", o.Name, o.Now)
		}
		newest := c.st.Newest(o.Name)
		if newest == nil {
			continue
		}
		rule, matched := restart.MatchRule(spec, int32(newest.ExitCode))
		fires := newest.State == runtimestate.Exited && matched && len(rules) > 0 && rule.Action == v1.ContainerRestartRuleActionRestartAllContainers && f.Enabled(features.RestartAllContainersOnContainerExits)
		switch {
		case over && newest.State == runtimestate.Exited && !fires && !strings.Contains(o.Now, "not restarted"):
			return fmt.Errorf("RESTARTS: %s %q, but the pod is deleted or terminal: nothing restarts", o.Name, o.Now)
		case resetting && eff.Kind != restart.Ephemeral && !fires && !strings.Contains(o.Now, "restarting all its containers"):
			return fmt.Errorf("RESTARTS: %s %q, but NEXT restarts all containers: %v", o.Name, o.Now, x.Next.Say)
		}
		if newest.State != runtimestate.Exited || resetting || over || fires {
			continue
		}
		again, _, _ := restart.RestartsAfterExit(pod, o.Name, int32(newest.ExitCode), newest.Reason, f)
		if again == strings.Contains(o.Now, "not restarted") {
			return fmt.Errorf("RESTARTS: %s %q, restart.RestartsAfterExit says %v", o.Name, o.Now, again)
		}
	}

	// The deletion plan is termination.Plan's.
	grace, _ := termination.EffectiveGracePeriod(0, pod, nil, f)
	basis := c.st
	if c.steady {
		// Every sidecar, container and ephemeral container runs; the
		// runtime lists the newest first, and ephemeral containers are
		// created last.
		basis = steadyState(pod)
		var eph []runtimestate.Container
		for i := len(pod.Spec.EphemeralContainers) - 1; i >= 0; i-- {
			eph = append(eph, runtimestate.Container{ID: fmt.Sprintf("e%d", i+1), Name: pod.Spec.EphemeralContainers[i].Name, SandboxID: "s1", State: runtimestate.Running})
		}
		basis.Containers = append(eph, basis.Containers...)
	}
	tl := termination.Plan(pod, basis, termination.Options{Features: f, GracePeriodOverride: &grace})
	steps := strings.Split(strings.TrimRight(tl.String(), "\n"), "\n")
	if len(tl.Containers) == 0 {
		steps = append([]string{"no container runs: nothing to stop"}, steps...)
	}
	if x.Deletion.Grace != grace || !slices.Equal(x.Deletion.Steps, steps) || x.Deletion.SandboxStop != tl.SandboxStop.String() || x.Deletion.Ordered != tl.Ordered {
		return fmt.Errorf("deletion plan differs from termination.Plan:\n%q\n%q", x.Deletion.Steps, steps)
	}
	var ids []string
	for _, k := range tl.Containers {
		ids = append(ids, k.Name+"/"+k.ID)
	}
	var got []string
	for _, k := range x.Deletion.Containers {
		got = append(got, k.Name+"/"+k.ID)
	}
	if !reflect.DeepEqual(got, ids) {
		return fmt.Errorf("deletion plan stops %v, termination.Plan %v", got, ids)
	}
	return nil
}

// TestExplainSectionsAgree: over random pods (podgen), with or without
// their status, and random runtime states, no two sections of explain
// contradict each other or the library (see checkSections). .ci/run runs
// it at -rapid.checks=300 besides go test ./...'s default 100.
func TestExplainSectionsAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawExplainCase(t)
		if err := checkSections(c); err != nil {
			var b strings.Builder
			writeText(&b, explain(c.in))
			t.Fatalf("%v\nexplain says:\n%s", err, b.String())
		}
	})
}

// TestExplainSidecarRules: a native sidecar's RestartAllContainers rule
// shows in RESTARTS, and after it fired RESTARTS says what NEXT does (the
// pod restarts in place), for every container.
func TestExplainSidecarRules(t *testing.T) {
	pod := `apiVersion: v1
kind: Pod
metadata: {name: web, uid: 0b5e1a9c-0000-4000-8000-000000000002}
spec:
  initContainers:
  - name: proxy
    image: envoy:1
    restartPolicy: Always
    restartPolicyRules:
    - action: RestartAllContainers
      exitCodes: {operator: In, values: [7]}
  containers:
  - name: app
    image: app:1
`
	rt := `sandboxes:
- {id: s1, ready: true, ip: 10.244.2.9, createdAt: "2026-12-01T10:00:00Z"}
containers:
- {id: c2, name: app, sandboxID: s1, state: running, createdAt: "2026-12-01T10:00:10Z", startedAt: "2026-12-01T10:00:10Z"}
- {id: c1, name: proxy, sandboxID: s1, state: exited, exitCode: 7, reason: Error, createdAt: "2026-12-01T10:00:01Z", startedAt: "2026-12-01T10:00:01Z", finishedAt: "2026-12-01T10:02:09Z"}
`
	pods, err := readPods([]byte(pod), "pod.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st, err := readRuntime([]byte(rt), "rt.yaml", pods[0].pod)
	if err != nil {
		t.Fatal(err)
	}
	c := explainCase{in: explainInput{pod: pods[0].pod, from: "pod.yaml", st: st, stFrom: "rt.yaml"}, st: st}
	x := explain(c.in)
	var out strings.Builder
	writeText(&out, x)
	for _, want := range []string{
		"rule: exit code in [7] → RestartAllContainers",
		`rule "exit code in [7] → RestartAllContainers" matches; the whole pod restarts in place`,
		"unless its exit code matches a RestartAllContainers rule",
		"running since +10s; the pod is restarting all its containers (AllContainersRestarting): this sync stops it",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("explain does not say %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "restarted now") {
		t.Errorf("explain says a container restarts now, but NEXT removes them all:\n%s", out.String())
	}
	if err := checkSections(c); err != nil {
		t.Error(err)
	}
}

// The RESTARTS section's crash-loop back-off schedule is for pods where a
// container can start again after it exits. For the Job of the Kubernetes
// documentation's "Handling retriable and non-retriable pod failures with
// Pod failure policy" (job-pod-failure-policy-example.yaml: restartPolicy
// Never, one container, no rule) no container ever restarts
// (ShouldContainerBeRestarted is false for every exit code), and the
// schedule "a container that exits at once every time restarts at +0s,
// +10s, ..." contradicted the line above it. A Never pod with a native
// sidecar, a restart rule, or a RestartAllContainers rule keeps the schedule.
func TestExplainBackOffOnlyWhereRestarts(t *testing.T) {
	const never = `apiVersion: batch/v1
kind: Job
metadata: {name: job-pod-failure-policy-example}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: docker.io/library/bash:5
`
	for _, tc := range []struct {
		name, pod string
		schedule  bool
	}{
		{"Never, no sidecar, no rule", never, false},
		{"Never with a native sidecar", never + "      initContainers:\n      - {name: proxy, image: envoy, restartPolicy: Always}\n", true},
		{"Never with a restart rule", strings.Replace(never, "image: docker.io/library/bash:5\n", "image: docker.io/library/bash:5\n        restartPolicy: Never\n        restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]\n", 1), true},
		{"OnFailure", strings.Replace(never, "restartPolicy: Never", "restartPolicy: OnFailure", 1), true},
		// 255, the last exit code there is: a restart on it alone still
		// makes the back-off apply.
		{"Never with a restart rule on exit code 255", strings.Replace(never, "image: docker.io/library/bash:5\n", "image: docker.io/library/bash:5\n        restartPolicy: Never\n        restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [255]}}]\n", 1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods, err := readPods([]byte(tc.pod), "pod.yaml")
			if err != nil {
				t.Fatal(err)
			}
			x := explain(explainInput{pod: pods[0].pod, from: "pod.yaml"})
			var out strings.Builder
			writeText(&out, x)
			has := strings.Contains(out.String(), "A container that exits at once every time")
			if has != tc.schedule {
				t.Errorf("back-off schedule shown %v, want %v:\n%s", has, tc.schedule, out.String())
			}
			if !tc.schedule && !strings.Contains(out.String(), "crash-loop back-off: does not apply: no container of this pod starts again after it exits") {
				t.Errorf("no note that the back-off does not apply:\n%s", out.String())
			}
		})
	}
}

// A time before the pod's start (a container that finished before the
// status's startTime) reads as a negative offset, -8s, in RESTARTS; the
// start itself as +0s.
func TestExplainTimeBeforeStart(t *testing.T) {
	b, err := os.ReadFile(ex + "crashloop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ start, want string }{
		{"10:01:30", "now: exited 1 (Error) at -8s (restart count 4)"},
		{"10:01:22", "now: exited 1 (Error) at +0s (restart count 4)"},
	} {
		pod := strings.Replace(string(b), `startTime: "2026-12-01T10:00:00Z"`, `startTime: "2026-12-01T`+tc.start+`Z"`, 1)
		out, errOut, code := runCmd([]string{"explain", "-f", "-"}, pod)
		if code != exitOK {
			t.Fatalf("exit %d; stderr: %s", code, errOut)
		}
		if !strings.Contains(out, tc.want) {
			t.Errorf("startTime %s: explain lacks %q:\n%s", tc.start, tc.want, out)
		}
	}
}

// With ContainerRestartRules off the kubelet ignores a container's
// restartPolicyRules, so an exit matching a RestartAllContainers rule does
// not restart the pod in place, though RestartAllContainersOnContainerExits
// is on: RESTARTS says the failed pod's container is not restarted.
func TestExplainRestartAllNeedsContainerRestartRules(t *testing.T) {
	out, errOut, code := runCmd([]string{"explain", "-f", ex + "restartall-42.yaml", "--runtime", ex + "runtime/restartall-exit42.yaml", "--gate", "ContainerRestartRules=false"}, "")
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, errOut)
	}
	if want := "now: exited 42 (Error) at +2m10s; the pod's phase is Failed: not restarted"; !strings.Contains(out, want) {
		t.Errorf("explain lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "restarts in place") {
		t.Errorf("explain restarts the pod in place by a rule the kubelet ignores:\n%s", out)
	}
}

// A regular container with restartPolicy Never and a Restart rule (the
// Kubernetes blog's "restart-on-exit-codes" pod) restarts when its exit
// code matches: ContainerShouldRestart (pkg/api/v1/pod/util.go:419) reads
// the rules before the restartPolicy. RESTARTS said "never restarted (its
// own restartPolicy Never)" above the rule line, a contradiction; it now
// says the rules come first. With gate RestartAllContainersOnContainerExits
// off a RestartAllContainers rule is not read, and the line stays as it was.
func TestExplainRulesBeforePolicy(t *testing.T) {
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: restart-on-exit-codes}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox
    restartPolicy: Never
    restartPolicyRules:
    - action: %s
      exitCodes: {operator: In, values: [42]}
`
	for _, c := range []struct {
		action, gate, want string
	}{
		{"Restart", "", "restarted as the first rule below that matches its exit code says; otherwise never restarted (its own restartPolicy Never)"},
		{"RestartAllContainers", "", "restarted as the first rule below that matches its exit code says; otherwise never restarted (its own restartPolicy Never)"},
		{"RestartAllContainers", "RestartAllContainersOnContainerExits=false", "app  container  never restarted (its own restartPolicy Never)"},
	} {
		f := t.TempDir() + "/pod.yaml"
		if err := os.WriteFile(f, []byte(fmt.Sprintf(pod, c.action)), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"explain", "-f", f}
		if c.gate != "" {
			args = append(args, "--gate", c.gate)
		}
		out, errOut, code := runCmd(args, "")
		if code != 0 {
			t.Fatalf("%s %s: exit %d: %s", c.action, c.gate, code, errOut)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%s %s: RESTARTS does not say %q:\n%s", c.action, c.gate, c.want, out)
		}
	}
}

// A static pod (config source file) is stopped by removing its manifest:
// explain's deletion section says so, and that its API object, the mirror
// pod, is deleted by housekeeping (kubelet_pods.go:1339) and recreated if
// deleted through the API (tryReconcileMirrorPods); an API pod keeps "IF
// DELETED NOW".
func TestExplainStaticPodManifestRemoved(t *testing.T) {
	const manifest = `apiVersion: v1
kind: Pod
metadata:
  name: static-web
  annotations:
    kubernetes.io/config.source: %s
spec:
  containers:
  - name: web
    image: nginx
`
	out, errOut, code := runCmd([]string{"explain", "-f", "-"}, fmt.Sprintf(manifest, "file"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"\nIF ITS MANIFEST IS REMOVED NOW: grace 30s",
		"deleting its mirror pod through the API stops nothing",
		"status to its mirror pod: phase Running",
		"housekeeping deletes the mirror pod",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("static pod: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "IF DELETED NOW") || strings.Contains(out, "deletes the API object (grace 0)") {
		t.Errorf("static pod explained as an API pod:\n%s", out)
	}
	js, _, _ := runCmd([]string{"explain", "-f", "-", "-o", "json"}, fmt.Sprintf(manifest, "file"))
	if !strings.Contains(js, `"staticPod": true`) {
		t.Errorf("JSON without staticPod true:\n%s", js)
	}
	out, _, _ = runCmd([]string{"explain", "-f", "-"}, fmt.Sprintf(manifest, "api"))
	if !strings.Contains(out, "\nIF DELETED NOW: grace 30s") || strings.Contains(out, "mirror pod") {
		t.Errorf("API pod:\n%s", out)
	}
}
