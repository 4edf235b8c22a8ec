package podgen_test

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// A property a user of kubeletlogic might check: whatever the runtime
// reports, the active instance the kubelet finds for a container lives in
// the active sandbox, and is the newest instance of that name there.
func newestActiveIsInActiveSandbox(t *rapid.T) {
	c := podgen.Cases(podgen.CaseOptions{}).Draw(t, "case")
	for _, ctr := range c.Pod.Spec.Containers {
		in := c.State.NewestActive(ctr.Name)
		if in == nil {
			continue
		}
		if !c.State.IsActive(in) {
			t.Fatalf("%s: newest active instance %s is not in the active sandbox", ctr.Name, in.ID)
		}
		for _, other := range c.State.Instances(ctr.Name) {
			if c.State.IsActive(other) && other.CreatedAt.After(in.CreatedAt) {
				t.Fatalf("%s: %s is newer than %s", ctr.Name, other.ID, in.ID)
			}
		}
	}
}

// The property as a test: rapid.Check draws 100 cases (-rapid.checks
// changes that) and shrinks a failing one.
func TestNewestActiveIsInActiveSandbox(t *testing.T) {
	rapid.Check(t, newestActiveIsInActiveSandbox)
}

// The same with rapid.MakeCheck, as a subtest per state mode.
func TestStatesValidate(t *testing.T) {
	for _, realistic := range []bool{false, true} {
		t.Run(fmt.Sprintf("realistic=%t", realistic), rapid.MakeCheck(func(t *rapid.T) {
			pod := podgen.Pod(podgen.PodOptions{NoEphemeral: true}).Draw(t, "pod")
			st := podgen.RuntimeState(pod, podgen.StateOptions{Realistic: realistic}).Draw(t, "state")
			if err := st.Validate(); err != nil {
				t.Fatal(err)
			}
		}))
	}
}

func describePod(pod *v1.Pod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s restartPolicy=%s deleted=%t\n", pod.Namespace, pod.Name, pod.Spec.RestartPolicy, pod.DeletionTimestamp != nil)
	line := func(c *v1.Container) {
		fmt.Fprintf(&b, "  %-10s %q", c.Name, c.Image)
		if c.RestartPolicy != nil {
			fmt.Fprintf(&b, " restartPolicy=%s", *c.RestartPolicy)
		}
		for _, r := range c.RestartPolicyRules {
			fmt.Fprintf(&b, " [%s if %s %v]", r.Action, r.ExitCodes.Operator, r.ExitCodes.Values)
		}
		b.WriteString("\n")
	}
	for i := range pod.Spec.InitContainers {
		line(&pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		line(&pod.Spec.Containers[i])
	}
	return b.String()
}

func describeState(st *runtimestate.Pod) string {
	var b strings.Builder
	for _, s := range st.Sandboxes {
		fmt.Fprintf(&b, "sandbox %s attempt=%d ready=%t ip=%q\n", s.ID, s.Attempt, s.Ready, s.IP)
	}
	for _, c := range st.Containers {
		fmt.Fprintf(&b, "  %s %-10s in %s %-8s restarts=%d", c.ID, c.Name, c.SandboxID, c.State, c.RestartCount)
		if c.State == runtimestate.Exited {
			fmt.Fprintf(&b, " exit=%d %s", c.ExitCode, c.Reason)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Pod draws whole pods; Example(seed) shows one, as rapid's own examples do.
// In a property test use Draw.
func ExamplePod() {
	pod := podgen.Pod(podgen.PodOptions{NoEphemeral: true, MaxContainers: 2}).Example(5)
	fmt.Print(describePod(pod))
	// Output:
	// default/pod-345 restartPolicy=OnFailure deleted=true
	//   init-0     "nginx:1.27"
	//   sidecar-1  "busybox:1.36" restartPolicy=Always [RestartAllContainers if In [137 0 42]] [Restart if In [42 0 137]]
	//   sidecar-2  "busybox:1.37" restartPolicy=Always [Restart if In [255]]
	//   init-3     "busybox:1.37"
	//   app-0      "nginx:1.27" restartPolicy=Always [RestartAllContainers if In [137]] [RestartAllContainers if In [0]] [Restart if In [137]]
	//   app-1      "registry.example/odd-\u2029:1"
}

// RuntimeState draws what the runtime reports about a given pod, here a
// hand-written one with a regular init container, a sidecar and an app.
func ExampleRuntimeState() {
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{Spec: v1.PodSpec{
		RestartPolicy: v1.RestartPolicyAlways,
		InitContainers: []v1.Container{
			{Name: "setup", Image: "busybox:1.37"},
			{Name: "proxy", Image: "nginx:1.27", RestartPolicy: &always},
		},
		Containers: []v1.Container{{Name: "app", Image: "busybox:1.37"}},
	}}
	pod.Name, pod.Namespace, pod.UID = "web", "default", "uid-1"
	st := podgen.RuntimeState(pod, podgen.StateOptions{Realistic: true}).Example(6)
	fmt.Print(describeState(st))
	// Output:
	// sandbox s2 attempt=2 ready=true ip="fd00::2:43"
	// sandbox s1 attempt=1 ready=false ip="fd00::1:145"
	// sandbox s0 attempt=0 ready=false ip=""
	//   c09 app        in s2 running  restarts=2
	//   c08 proxy      in s2 exited   restarts=6 exit=137 OOMKilled
	//   c07 app        in s2 exited   restarts=1 exit=42 Error
	//   c06 proxy      in s2 exited   restarts=5 exit=137 Error
	//   c05 app        in s2 exited   restarts=0 exit=2 Error
	//   c04 setup      in s2 exited   restarts=9 exit=1 Error
	//   c03 setup      in s2 exited   restarts=8 exit=128 Error
	//   c02 proxy      in s2 exited   restarts=4 exit=255 Error
	//   c01 setup      in s0 exited   restarts=7 exit=128 ContainerCannotRun
}

// Features draws gate sets around the v1.37.2 defaults.
func ExampleFeatures() {
	g := podgen.Features(podgen.FeatureOptions{})
	for seed := range 4 {
		fmt.Println(g.Example(seed))
	}
	// Output:
	// KubeletCrashLoopBackOffMax=false,RestartAllContainersOnContainerExits=false
	// InPlacePodLevelResourcesVerticalScaling=false,InPlacePodVerticalScalingMemoryBackedVolumes=true,PodLevelResources=false
	// ChangeContainerStatusOnKubeletRestart=true
	// InPlacePodLevelResourcesVerticalScaling=false,InPlacePodVerticalScalingMemoryBackedVolumes=true
}

// Cases bundles a pod, its state, probe results and gates. A Case prints as
// compact text, which is also what rapid logs when a property fails; times
// are offsets from podgen.Epoch.
func ExampleCases() {
	opts := podgen.CaseOptions{
		Pod:   podgen.PodOptions{MaxContainers: 2, MaxInitContainers: 1, MaxSidecars: 1, NoEphemeral: true},
		State: podgen.StateOptions{MaxSandboxes: 1},
	}
	c := podgen.Cases(opts).Example(7)
	fmt.Print(c) // the same text rapid logs for a drawn Case
	// Output:
	// gates: KubeletCrashLoopBackOffMax=false
	// pod kube-system/pod-29 restartPolicy=OnFailure hostNetwork grace=30 emptyDir:shm(memory)(limit 128Mi)
	//   sidecar-0 (sidecar) busybox:1.37 hash=1391380941 startupProbe readinessProbe resources=memory:256Mi
	//   app-0 (container) registry.example/odd-.<:1 hash=44210671 restartPolicy=Never [Restart if NotIn [2 1]] [RestartAllContainers if In [137 2]] livenessProbe startupProbe readinessProbe resources=cpu:250m/1,memory:512Mi
	//   c05 sidecar-0 in s-removed running restarts=2 created=T+8m48s started=T+8m51s reported=mem:256Mi,
	//   c04 app-0 in s-removed exited restarts=1 exit=2(Error) created=T+7m16s started=T+7m19s finished=T+7m24s
	//   c03 sidecar-0 in s-removed exited restarts=1 exit=128(Error) created=T+6m54s started=T+6m58s finished=T+6m58s
	//   c02 app-0 in s-removed exited restarts=0 exit=1(OOMKilled) created=T+6m45s started=T+6m48s finished=T+6m55s
	//   c01 sidecar-0 in s-removed exited restarts=0 exit=2(Error) created=T+6m1s started=T+6m4s finished=T+6m5s
	// probes c01: startup=Success readiness=Success
	// probes c02: liveness=Success startup=Success readiness=Success
	// probes c03: startup=Failure readiness=Success
	// probes c04: liveness=Success readiness=Success
	// probes c05: readiness=Success
}
