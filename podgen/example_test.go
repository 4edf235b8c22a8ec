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
		fmt.Fprintf(&b, "  %-10s %s", c.Name, c.Image)
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
	//   init-0     busybox:1.36
	//   sidecar-1  busybox:1.37 restartPolicy=Always
	//   sidecar-2  registry.k8s.io/pause:3.10 restartPolicy=Always
	//   init-3     busybox:1.36
	//   app-0      busybox:1.37 restartPolicy=Always [RestartAllContainers if In [143]] [Restart if In [0 137]] [RestartAllContainers if In [0]]
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
	// sandbox s2 attempt=2 ready=true ip="10.244.2.7"
	// sandbox s1 attempt=1 ready=false ip="10.244.1.125"
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
	// pod kube-system/pod-29 restartPolicy=OnFailure hostNetwork grace=30 deleted=T+1h0m49s(grace 30)
	//   sidecar-0 (sidecar) busybox:1.36 hash=4225841052 livenessProbe readinessProbe resources=cpu:250m/250m,memory:256Mi
	//   app-0 (container) registry.k8s.io/pause:3.10 hash=2810420700 resources=cpu:100m,memory:64Mi
	// sandbox s0 attempt=0 ready=true mode="" created=T+51m5s
	//   c04 sidecar-0 in s0 running restarts=2 created=T+53m21s started=T+53m25s
	//   c03 app-0 in s0 running restarts=10 hash=2533644761(image nginx:1.27) created=T+52m13s started=T+52m13s
	//   c02 sidecar-0 in s0 exited restarts=1 exit=255(Error) created=T+51m47s started=T+51m49s finished=T+52m8s
	//   c01 sidecar-0 in s0 exited restarts=0 exit=137(Error) hash=95709163(image nginx:1.27) created=T+51m41s started=T+51m44s finished=T+51m45s
	// probes c01: liveness=Unknown
	// probes c04: liveness=Success readiness=Failure
}
