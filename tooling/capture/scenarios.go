package main

import (
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Scenario is one static pod, the harness actions on it, and how long it is
// watched before its manifest is removed.
type Scenario struct {
	Name        string
	Description string
	Facts       []string
	Pod         *v1.Pod
	// Actions run at the given offset after the pod's manifest is written.
	Actions []Action
	// RemoveAfter is when the manifest is removed (the kubelet then
	// terminates the pod with its grace period).
	RemoveAfter time.Duration
	// StartAfter delays the whole scenario from the start of the run (so
	// that a kubelet restart comes after the other scenarios of the run
	// ended).
	StartAfter time.Duration
	// MaxRestartPeriod, when set, is the kubelet's
	// crashLoopBackOff.maxContainerRestartPeriod for the whole run (gate
	// KubeletCrashLoopBackOffMax is on by default in v1.37); every fixture
	// of the run records it in its environment.
	MaxRestartPeriod time.Duration
	// Registry: the run starts the loopback registry and its proxies.
	Registry bool
	// API mode: DeleteOnPhase, when set, moves the DELETE (at RemoveAfter
	// otherwise) to the first poll of the API object (every 50 ms) that
	// shows this phase; RemoveAfter is then the latest time of the
	// DELETE. WatchGone records, after the DELETE, the first poll (every
	// 50 ms) that got 404 for the object ("pod gone from the API").
	DeleteOnPhase v1.PodPhase
	WatchGone     bool
}

// Action is something the harness does to the runtime by hand.
type Action struct {
	At   time.Duration
	Kind string // kill-container, kill-sandbox, restart-kubelet; API mode: remove-finalizers, add-ephemeral, set-condition, resize, create-other and delete-other (Name: the other pod, hogPod)
	Name string
	// Value is the action's argument: for set-condition "True" or "False"
	// (Name is the condition type), for resize the JSON patch of the
	// resize subresource.
	Value string
}

func ptr[T any](v T) *T { return &v }

func ctr(name string, script string) v1.Container {
	return v1.Container{
		Name: name, Image: imageName, ImagePullPolicy: v1.PullNever,
		Command:                  []string{"sh", "-c", script},
		TerminationMessagePolicy: v1.TerminationMessageReadFile,
	}
}

func execProbe(cmd string, period, failures int32) *v1.Probe {
	return &v1.Probe{
		ProbeHandler:     v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"sh", "-c", cmd}}},
		PeriodSeconds:    period,
		FailureThreshold: failures,
		SuccessThreshold: 1,
		TimeoutSeconds:   1,
	}
}

func pod(name string, policy v1.RestartPolicy, grace int64, init []v1.Container, cs ...v1.Container) *v1.Pod {
	return &v1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: v1.PodSpec{
			HostNetwork:                   true,
			RestartPolicy:                 policy,
			TerminationGracePeriodSeconds: ptr(grace),
			InitContainers:                init,
			Containers:                    cs,
		},
	}
}

// exitOnTerm is a long-running script that exits 0 on SIGTERM.
const exitOnTerm = "trap 'exit 0' TERM; while true; do sleep 1; done"

func sidecar(name, script string) v1.Container {
	c := ctr(name, script)
	c.RestartPolicy = ptr(v1.ContainerRestartPolicyAlways)
	return c
}

func scenarios() []Scenario {
	var out []Scenario

	// (1) init + native sidecar + app start order; deletion with grace 20 s
	// and a 4 s preStop on the app (facts 1, 10, 11:
	// docs/real-cluster-facts.md#fact-1, #fact-10, #fact-11).
	app := ctr("app", exitOnTerm)
	app.Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"sh", "-c", "sleep 4"}}}}
	out = append(out, Scenario{
		Name:        "startorder",
		Description: "init container prepare, native sidecar, app; manifest removed after 25 s (grace 20 s, app preStop sleeps 4 s)",
		Facts:       []string{"1", "10", "11"},
		Pod: pod("startorder", v1.RestartPolicyAlways, 20,
			[]v1.Container{ctr("prepare", "sleep 1"), sidecar("sidecar", exitOnTerm)}, app),
		RemoveAfter: 25 * time.Second,
	})

	// (2) crash loop with back-off (fact 16, docs/real-cluster-facts.md#fact-16).
	out = append(out, Scenario{
		Name:        "crashloop",
		Description: "app runs `sleep 1; exit 1` under restartPolicy Always, watched 115 s",
		Facts:       []string{"16"},
		Pod:         pod("crashloop", v1.RestartPolicyAlways, 2, nil, ctr("app", "sleep 1; exit 1")),
		RemoveAfter: 115 * time.Second,
	})

	// (3) Never with exit 0 and exit 7 (fact 9, docs/real-cluster-facts.md#fact-9).
	out = append(out, Scenario{
		Name: "never-exit0", Description: "restartPolicy Never, app exits 0 after 2 s", Facts: []string{"9"},
		Pod:         pod("never-exit0", v1.RestartPolicyNever, 2, nil, ctr("app", "sleep 2; exit 0")),
		RemoveAfter: 20 * time.Second,
	})
	out = append(out, Scenario{
		Name: "never-exit7", Description: "restartPolicy Never, app exits 7 after 2 s", Facts: []string{"9"},
		Pod:         pod("never-exit7", v1.RestartPolicyNever, 2, nil, ctr("app", "sleep 2; exit 7")),
		RemoveAfter: 20 * time.Second,
	})

	// (4) liveness failure (fact 5, docs/real-cluster-facts.md#fact-5).
	live := ctr("app", "touch /tmp/alive; sleep 6; rm /tmp/alive; "+exitOnTerm)
	live.LivenessProbe = execProbe("cat /tmp/alive", 2, 1)
	out = append(out, Scenario{
		Name: "liveness", Description: "liveness probe (exec cat /tmp/alive, period 2 s, threshold 1) fails 6 s after each start",
		Facts:       []string{"5"},
		Pod:         pod("liveness", v1.RestartPolicyAlways, 2, nil, live),
		RemoveAfter: 50 * time.Second,
	})

	// (5) exit 42 with a RestartAllContainers rule (fact 7, docs/real-cluster-facts.md#fact-7).
	ra := ctr("app", "if [ -f /data/done ]; then "+exitOnTerm+"; else touch /data/done; sleep 5; exit 42; fi")
	ra.RestartPolicy = ptr(v1.ContainerRestartPolicyAlways)
	ra.RestartPolicyRules = []v1.ContainerRestartRule{{
		Action:    v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}},
	}}
	ra.VolumeMounts = []v1.VolumeMount{{Name: "data", MountPath: "/data"}}
	rp := pod("restartall", v1.RestartPolicyAlways, 2,
		[]v1.Container{ctr("prepare", "sleep 1"), sidecar("sidecar", exitOnTerm)}, ra)
	rp.Spec.Volumes = []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
	out = append(out, Scenario{
		Name: "restartall", Description: "app exits 42 once (marker in an emptyDir); rule RestartAllContainers on exit code 42",
		Facts: []string{"7"}, Pod: rp, RemoveAfter: 40 * time.Second,
	})

	// App killed by hand (fact 3, docs/real-cluster-facts.md#fact-3).
	out = append(out, Scenario{
		Name: "appkilled", Description: "app and native sidecar running; the app's task is SIGKILLed by hand at 10 s",
		Facts:       []string{"3"},
		Pod:         pod("appkilled", v1.RestartPolicyAlways, 2, []v1.Container{sidecar("sidecar", exitOnTerm)}, ctr("app", exitOnTerm)),
		Actions:     []Action{{At: 10 * time.Second, Kind: "kill-container", Name: "app"}},
		RemoveAfter: 30 * time.Second,
	})

	// Readiness flip (fact 6, docs/real-cluster-facts.md#fact-6).
	rd := ctr("app", "touch /tmp/ready; sleep 10; rm /tmp/ready; sleep 10; touch /tmp/ready; "+exitOnTerm)
	rd.ReadinessProbe = execProbe("cat /tmp/ready", 1, 1)
	out = append(out, Scenario{
		Name: "readiness", Description: "readiness marker present 10 s, absent 10 s, present again",
		Facts: []string{"6"}, Pod: pod("readiness", v1.RestartPolicyAlways, 2, nil, rd), RemoveAfter: 35 * time.Second,
	})

	// Sandbox stopped by hand (fact 8, docs/real-cluster-facts.md#fact-8).
	out = append(out, Scenario{
		Name: "sandboxkill", Description: "the sandbox's pause task is SIGKILLed by hand at 10 s",
		Facts:       []string{"8"},
		Pod:         pod("sandboxkill", v1.RestartPolicyAlways, 2, []v1.Container{ctr("prepare", "sleep 1")}, ctr("app", exitOnTerm)),
		Actions:     []Action{{At: 10 * time.Second, Kind: "kill-sandbox"}},
		RemoveAfter: 35 * time.Second,
	})

	// OnFailure with a failing init container.
	out = append(out, Scenario{
		Name: "onfailure-init", Description: "restartPolicy OnFailure, init container exits 3 every time",
		Pod:         pod("onfailure-init", v1.RestartPolicyOnFailure, 2, []v1.Container{ctr("prepare", "sleep 1; exit 3")}, ctr("app", exitOnTerm)),
		RemoveAfter: 60 * time.Second,
	})

	// Crashing native sidecar.
	out = append(out, Scenario{
		Name: "sidecar-crash", Description: "native sidecar exits 1 after 3 s every time; app keeps running",
		Pod:         pod("sidecar-crash", v1.RestartPolicyAlways, 2, []v1.Container{sidecar("sidecar", "sleep 3; exit 1")}, ctr("app", exitOnTerm)),
		RemoveAfter: 60 * time.Second,
	})

	// Startup-probe failure.
	st := ctr("app", exitOnTerm)
	st.StartupProbe = execProbe("cat /tmp/never", 2, 2)
	out = append(out, Scenario{
		Name: "startup", Description: "startup probe never succeeds (period 2 s, threshold 2): the app is restarted",
		Pod: pod("startup", v1.RestartPolicyAlways, 2, nil, st), RemoveAfter: 50 * time.Second,
	})
	out = append(out, round2()...)
	return append(out, round3()...)
}

// memHog allocates about 64 MB in the shell (a command substitution holds
// the whole output of head|tr in memory).
const memHog = "sleep 2; x=$(head -c 67108864 /dev/zero | tr '\\0' a); echo allocated ${#x}"

func withMemLimit(c v1.Container, mem string) v1.Container {
	q := resource.MustParse(mem)
	cpu := resource.MustParse("100m")
	c.Resources = v1.ResourceRequirements{
		Limits:   v1.ResourceList{v1.ResourceMemory: q, v1.ResourceCPU: cpu},
		Requests: v1.ResourceList{v1.ResourceMemory: q, v1.ResourceCPU: cpu},
	}
	return c
}

// round2 are the static-pod scenarios of issue 14 (OOM, image pulls, pod
// network, long crash loop, active deadline, kubelet restart).
func round2() []Scenario {
	var out []Scenario
	out = append(out, Scenario{
		Name:        "crashloop-long",
		Description: "app runs `sleep 1; exit 1` under restartPolicy Always, watched 12 min 30 s so the 5-minute back-off cap shows",
		Facts:       []string{"16"},
		Pod:         pod("crashloop-long", v1.RestartPolicyAlways, 2, nil, ctr("app", "sleep 1; exit 1")),
		RemoveAfter: 12*time.Minute + 30*time.Second,
	})
	for _, pol := range []v1.RestartPolicy{v1.RestartPolicyOnFailure, v1.RestartPolicyAlways} {
		name := "oom-" + strings.ToLower(string(pol))
		out = append(out, Scenario{
			Name:        name,
			Description: "memory limit 32Mi; the app allocates about 64 MB 2 s after each start; restartPolicy " + string(pol),
			Facts:       []string{"4"},
			Pod:         pod(name, pol, 2, nil, withMemLimit(ctr("app", memHog), "32Mi")),
			RemoveAfter: 90 * time.Second,
		})
	}
	pull := ctr("app", exitOnTerm)
	pull.Image, pull.ImagePullPolicy = missingRegistryImage, v1.PullIfNotPresent
	out = append(out, Scenario{
		Name:        "image-pull-fail",
		Description: "image " + missingRegistryImage + " (nothing listens on that loopback port), imagePullPolicy IfNotPresent: ErrImagePull and ImagePullBackOff",
		Pod:         pod("image-pull-fail", v1.RestartPolicyAlways, 2, nil, pull),
		RemoveAfter: 120 * time.Second,
	})
	never := ctr("app", exitOnTerm)
	never.Image = "localhost/kl-missing:1"
	out = append(out, Scenario{
		Name:        "image-never-missing",
		Description: "image localhost/kl-missing:1 is not present, imagePullPolicy Never: ErrImageNeverPull",
		Pod:         pod("image-never-missing", v1.RestartPolicyAlways, 2, nil, never),
		RemoveAfter: 40 * time.Second,
	})
	dl := pod("deadline", v1.RestartPolicyAlways, 2, nil, ctr("app", exitOnTerm))
	dl.Spec.ActiveDeadlineSeconds = ptr(int64(10))
	out = append(out, Scenario{
		Name:        "deadline",
		Description: "activeDeadlineSeconds 10, app runs the trap loop: the kubelet kills it and the pod fails with DeadlineExceeded",
		Pod:         dl,
		RemoveAfter: 35 * time.Second,
	})
	np := pod("podnet", v1.RestartPolicyAlways, 2, []v1.Container{ctr("prepare", "sleep 1")}, ctr("app", exitOnTerm))
	np.Spec.HostNetwork = false
	out = append(out, Scenario{
		Name:        "podnet",
		Description: "pod network (bridge " + cniBridge + " + host-local " + cniSubnet + "); the sandbox's pause task is SIGKILLed at 12 s: new sandbox, new IP",
		Facts:       []string{"8"},
		Pod:         np,
		Actions:     []Action{{At: 12 * time.Second, Kind: "kill-sandbox"}},
		RemoveAfter: 35 * time.Second,
	})
	slow := ctr("app", exitOnTerm)
	slow.Image, slow.ImagePullPolicy = slowImage, v1.PullIfNotPresent
	out = append(out, Scenario{
		Name: "image-pull-slow",
		Description: fmt.Sprintf("image %s from Debian's docker-registry behind the harness's proxy that sends every response at %d KiB/s, "+
			"imagePullPolicy IfNotPresent: a pull of about 15 s", slowImage, slowRate>>10),
		Pod:         pod("image-pull-slow", v1.RestartPolicyAlways, 2, nil, slow),
		RemoveAfter: 50 * time.Second,
		Registry:    true,
	})
	flk := ctr("app", exitOnTerm)
	flk.Image, flk.ImagePullPolicy = flakyImage, v1.PullIfNotPresent
	out = append(out, Scenario{
		Name: "image-pull-flaky",
		Description: fmt.Sprintf("image %s from Debian's docker-registry behind the harness's proxy that answers 500 to every manifest request "+
			"for %s from the first one: the first pull fails, a later one succeeds; starts 45 s into the run (the kubelet pulls one image at a time)",
			flakyImage, flakyWindow),
		Pod:         pod("image-pull-flaky", v1.RestartPolicyAlways, 2, nil, flk),
		RemoveAfter: 60 * time.Second,
		StartAfter:  45 * time.Second,
		Registry:    true,
	})
	return out
}

// backoffResetScript counts its runs in an emptyDir: runs 1 to 3 and 6 on
// exit 1 after 2 s, run 4 after 45 s (more than twice the 20 s cap, less
// than 600 s), run 5 after 610 s (more than 600 s).
const backoffResetScript = `n=$(cat /data/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > /data/n; echo run $n; ` +
	`case $n in 4) sleep 45;; 5) sleep 610;; *) sleep 2;; esac; exit 1`

// backoffReset runs only when named: it sets the kubelet's
// crashLoopBackOff.maxContainerRestartPeriod to 20 s for the whole run.
func backoffReset() Scenario {
	app := ctr("app", backoffResetScript)
	app.VolumeMounts = []v1.VolumeMount{{Name: "data", MountPath: "/data"}}
	p := pod("backoff-reset", v1.RestartPolicyAlways, 2, nil, app)
	p.Spec.Volumes = []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
	return Scenario{
		Name: "backoff-reset",
		Description: "kubelet crashLoopBackOff.maxContainerRestartPeriod 20s; app exits 1 after 2 s, except run 4 (after 45 s: more than " +
			"twice the cap) and run 5 (after 610 s: more than the kubelet's fixed 600 s back-off expiry); watched 13 min 10 s",
		Facts:            []string{"16"},
		Pod:              p,
		RemoveAfter:      13*time.Minute + 10*time.Second,
		MaxRestartPeriod: 20 * time.Second,
	}
}

// restartScenarios run only when named (-only ...,restart-running,
// restart-crashloop): restarting the kubelet touches every pod of the run,
// so they start 12 min 45 s into the run, after crashloop-long's removal.
func restartScenarios() []Scenario {
	out := restartScenarioList()
	for i := range out {
		out[i].StartAfter = 12*time.Minute + 45*time.Second
	}
	return out
}

func restartScenarioList() []Scenario {
	return []Scenario{
		{
			Name:        "restart-running",
			Description: "app runs the trap loop; the kubelet is stopped (SIGTERM) at 50 s and started again 5 s later; manifest removed at 80 s",
			Pod:         pod("restart-running", v1.RestartPolicyAlways, 2, nil, ctr("app", exitOnTerm)),
			Actions:     []Action{{At: 50 * time.Second, Kind: "restart-kubelet"}},
			RemoveAfter: 80 * time.Second,
		},
		{
			Name:        "restart-crashloop",
			Description: "app runs `sleep 1; exit 1` under Always; the kubelet is stopped at 50 s (in a 40 s back-off) and started again 5 s later; manifest removed at 110 s",
			Pod:         pod("restart-crashloop", v1.RestartPolicyAlways, 2, nil, ctr("app", "sleep 1; exit 1")),
			Actions:     []Action{{At: 50 * time.Second, Kind: "restart-kubelet"}},
			RemoveAfter: 110 * time.Second,
		},
	}
}

// round3 are the static-pod scenarios of issue 26 that run with the
// others: a probe that outlives its timeout and a slow postStart hook.
func round3() []Scenario {
	var out []Scenario
	// An exec liveness probe whose command outlives timeoutSeconds: the
	// kubelet's ExecSync carries timeout 1 s, the probe fails on the
	// timeout; after two failures (period 2 s) the app is killed and
	// restarted.
	pt := ctr("app", exitOnTerm)
	pt.LivenessProbe = execProbe("sleep 3", 2, 2)
	out = append(out, Scenario{
		Name: "probe-timeout",
		Description: "app runs the trap loop; its exec liveness probe `sleep 3` outlives timeoutSeconds 1 (period 2 s, threshold 2): " +
			"every probe times out, the app is killed and restarted; watched 40 s",
		Pod:         pod("probe-timeout", v1.RestartPolicyAlways, 2, nil, pt),
		RemoveAfter: 40 * time.Second,
	})
	// A postStart hook of 3 s on the first of two regular containers: the
	// kubelet runs the hook inside startContainer and starts the next
	// container only after it returned.
	first := ctr("first", exitOnTerm)
	first.Lifecycle = &v1.Lifecycle{PostStart: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"sh", "-c", "sleep 3"}}}}
	out = append(out, Scenario{
		Name:        "poststart-slow",
		Description: "two regular containers running the trap loop; the first has an exec postStart hook `sleep 3`: the second is created after the hook returned; manifest removed at 20 s",
		Pod:         pod("poststart-slow", v1.RestartPolicyAlways, 2, nil, first, ctr("second", exitOnTerm)),
		RemoveAfter: 20 * time.Second,
	})
	return out
}

// burstPods is how many pods the burst scenarios write at once.
const burstPods = 13

// burstScenarios run only when named (-only burst, or -only burst-01,...):
// thirteen identical trap-loop pods burst-01 ... burst-13 whose manifests
// are written at the same instant (every scenario of a run starts at the
// run's start), to measure the runtime's call durations under overlap. One
// fixture per pod (the fixture format holds one pod).
func burstScenarios() []Scenario {
	var out []Scenario
	for i := 1; i <= burstPods; i++ {
		name := fmt.Sprintf("burst-%02d", i)
		out = append(out, Scenario{
			Name: name,
			Description: fmt.Sprintf("one of %d identical pods (burst-01 to burst-%02d) running the trap loop, whose manifests are written at the same instant: "+
				"the runtime's calls overlap; manifest removed at 30 s", burstPods, burstPods),
			Pod:         pod(name, v1.RestartPolicyAlways, 2, nil, ctr("app", exitOnTerm)),
			RemoveAfter: 30 * time.Second,
		})
	}
	return out
}
