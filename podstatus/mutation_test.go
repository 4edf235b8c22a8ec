package podstatus

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// The QoS class of a pod without pod-level resources combines its
// containers' classes (GetPodQOS): Guaranteed when every init and regular
// container has cpu and memory limits equal to non-zero requests,
// BestEffort when none sets any, Burstable in any other mix, including a
// Guaranteed container beside a BestEffort one, or a container with only
// cpu (or only memory) guaranteed.
func TestQOSOfContainerMixes(t *testing.T) {
	rl := func(kv ...string) v1.ResourceList {
		l := v1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	guaranteed := v1.ResourceRequirements{Requests: rl("cpu", "100m", "memory", "64Mi"), Limits: rl("cpu", "100m", "memory", "64Mi")}
	bestEffort := v1.ResourceRequirements{}
	cpuOnly := v1.ResourceRequirements{Requests: rl("cpu", "100m"), Limits: rl("cpu", "100m")}
	memOnly := v1.ResourceRequirements{Requests: rl("memory", "64Mi"), Limits: rl("memory", "64Mi")}
	requestsOnly := v1.ResourceRequirements{Requests: rl("cpu", "100m", "memory", "64Mi")}
	for _, tc := range []struct {
		name         string
		init, normal []v1.ResourceRequirements
		want         v1.PodQOSClass
	}{
		{"one guaranteed", nil, []v1.ResourceRequirements{guaranteed}, v1.PodQOSGuaranteed},
		{"two guaranteed", nil, []v1.ResourceRequirements{guaranteed, guaranteed}, v1.PodQOSGuaranteed},
		{"guaranteed init and container", []v1.ResourceRequirements{guaranteed}, []v1.ResourceRequirements{guaranteed}, v1.PodQOSGuaranteed},
		{"none", nil, []v1.ResourceRequirements{bestEffort, bestEffort}, v1.PodQOSBestEffort},
		{"guaranteed then best effort", nil, []v1.ResourceRequirements{guaranteed, bestEffort}, v1.PodQOSBurstable},
		{"best effort then guaranteed", nil, []v1.ResourceRequirements{bestEffort, guaranteed}, v1.PodQOSBurstable},
		{"guaranteed init, best-effort container", []v1.ResourceRequirements{guaranteed}, []v1.ResourceRequirements{bestEffort}, v1.PodQOSBurstable},
		{"cpu only", nil, []v1.ResourceRequirements{cpuOnly}, v1.PodQOSBurstable},
		{"memory only", nil, []v1.ResourceRequirements{memOnly}, v1.PodQOSBurstable},
		{"requests only", nil, []v1.ResourceRequirements{requestsOnly}, v1.PodQOSBurstable},
		{"guaranteed then requests only", nil, []v1.ResourceRequirements{guaranteed, requestsOnly}, v1.PodQOSBurstable},
	} {
		pod := &v1.Pod{}
		for i, r := range tc.init {
			pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Name: "init-" + string(rune('a'+i)), Image: "i", Resources: r})
		}
		for i, r := range tc.normal {
			pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: "app-" + string(rune('a'+i)), Image: "i", Resources: r})
		}
		if got := Compute(pod, nil, Options{}).Status.QOSClass; got != tc.want {
			t.Errorf("%s: QoS %s, want %s", tc.name, got, tc.want)
		}
	}
}

// A container's state reads "waiting" when its waiting state has no
// reason, and "no state" when it has none, both in Result.String and in
// CheckTransition's refusal.
func TestStateWithoutReasonOrState(t *testing.T) {
	var r Result
	r.Status.ContainerStatuses = []v1.ContainerStatus{
		{Name: "w", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{}}},
		{Name: "n"},
	}
	s := r.String()
	if !strings.Contains(s, "container w: waiting ready=") || !strings.Contains(s, "container n: no state ready=") {
		t.Errorf("Result.String:\n%s\nwant container w waiting and container n in no state", s)
	}
	spec := &v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "app", Image: "i"}}}
	old := &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 1}}}}}
	for _, tc := range []struct {
		state v1.ContainerState
		want  string
	}{
		{v1.ContainerState{Waiting: &v1.ContainerStateWaiting{}}, "it is waiting is refused"},
		{v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "ContainerCreating"}}, "it is waiting (ContainerCreating) is refused"},
		{v1.ContainerState{Running: &v1.ContainerStateRunning{}}, "it is running is refused"},
	} {
		next := &v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "app", State: tc.state}}}
		if err := CheckTransition(spec, old, next, Options{}.Features); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("state %+v: error %v, want one saying %q", tc.state, err, tc.want)
		}
	}
}

// The actuated resources RuntimeFromStatus builds hold the size limit of
// every memory-backed emptyDir that has one, and no other volume.
func TestRuntimeFromStatusEmptyDirLimits(t *testing.T) {
	limit := func(s string) *resource.Quantity { q := resource.MustParse(s); return &q }
	pod := &v1.Pod{Spec: v1.PodSpec{
		Containers: []v1.Container{{Name: "app", Image: "i"}},
		Volumes: []v1.Volume{
			{Name: "mem-a", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory, SizeLimit: limit("64Mi")}}},
			{Name: "mem-b", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory, SizeLimit: limit("1Gi")}}},
			{Name: "mem-unlimited", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory}}},
			{Name: "disk", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{SizeLimit: limit("2Gi")}}},
		},
	}}
	pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}
	got := RuntimeFromStatus(pod).Actuated.EmptyDirLimits
	if len(got) != 2 {
		t.Fatalf("EmptyDirLimits %v, want mem-a and mem-b", got)
	}
	for name, want := range map[string]string{"mem-a": "64Mi", "mem-b": "1Gi"} {
		if q, ok := got[name]; !ok || q.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("EmptyDirLimits[%s] = %v, want %s", name, got[name], want)
		}
	}
}

// resourcehelper.PodRequests raises the containers' sum to the init
// containers' peak only where the peak is greater (maxResourceList keeps
// the stored quantity when the two are equal), so an equal init request
// written in another format leaves the containers' quantity, and its
// format, in the result.
func TestMaxListKeepsStoredFormat(t *testing.T) {
	for _, tc := range []struct{ app, init, want string }{
		{"1Gi", "1073741824", "1Gi"},
		{"1073741824", "1Gi", "1073741824"},
		{"1Gi", "2Gi", "2Gi"},
	} {
		pod := &v1.Pod{Spec: v1.PodSpec{
			InitContainers: []v1.Container{{Name: "init", Image: "i", Resources: v1.ResourceRequirements{Requests: rlist("memory", tc.init)}}},
			Containers:     []v1.Container{{Name: "app", Image: "i", Resources: v1.ResourceRequirements{Requests: rlist("memory", tc.app)}}},
		}}
		got := PodRequests(pod, features.V1_37())
		if q := got[v1.ResourceMemory]; q.String() != tc.want {
			t.Errorf("app %s, init %s: memory %s, want %s", tc.app, tc.init, q.String(), tc.want)
		}
	}
}

// Result.String prints the IP line exactly when there is an IP to show:
// pod IPs, a host IP, or both; a status without any has no such line.
func TestResultStringIPLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    v1.PodStatus
		want string // "" for no IP line
	}{
		{"no IPs", v1.PodStatus{}, ""},
		{"pod IPs only", v1.PodStatus{PodIP: "10.244.1.6", PodIPs: []v1.PodIP{{IP: "10.244.1.6"}, {IP: "fd00::6"}}}, "podIPs=10.244.1.6,fd00::6 hostIPs="},
		{"host IP only", v1.PodStatus{HostIP: "192.168.1.2", HostIPs: []v1.HostIP{{IP: "192.168.1.2"}}}, "podIPs= hostIPs=192.168.1.2"},
		{"both", v1.PodStatus{PodIPs: []v1.PodIP{{IP: "10.244.1.6"}}, HostIP: "192.168.1.2", HostIPs: []v1.HostIP{{IP: "192.168.1.2"}}}, "podIPs=10.244.1.6 hostIPs=192.168.1.2"},
	} {
		s := Result{Status: tc.s}.String()
		has := strings.Contains(s, "podIPs=")
		switch {
		case tc.want == "" && has:
			t.Errorf("%s: an IP line without any IP:\n%s", tc.name, s)
		case tc.want != "" && !strings.Contains(s, tc.want):
			t.Errorf("%s:\n%s\nwant a line %q", tc.name, s, tc.want)
		}
	}
}

// A terminated state reads "terminated(exit N)" without a reason and
// "terminated(exit N, Reason)" with one, in Result.String.
func TestResultStringTerminated(t *testing.T) {
	var r Result
	r.Status.ContainerStatuses = []v1.ContainerStatus{
		{Name: "done", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}},
		{Name: "bare", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 3}}},
	}
	s := r.String()
	for _, want := range []string{"container done: terminated(exit 0, Completed) ready=", "container bare: terminated(exit 3) ready="} {
		if !strings.Contains(s, want) {
			t.Errorf("Result.String:\n%s\nwant %q", s, want)
		}
	}
}

// The probe manager's UpdatePodStatus gives every init status Started, but
// looks up its spec by position (kubeutil.GetContainerByIndex) and leaves a
// status past the spec's init list, or naming another container, with
// Started only: its Ready is not touched, even for an init container that
// exited 0. Compute never hands it such a list (apistatus writes one status
// per init container of the spec), so the probe step is called directly.
func TestProbeStepInitStatusOutsideSpec(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers: []v1.Container{{Name: "init", Image: "i"}},
		Containers:     []v1.Container{{Name: "app", Image: "i"}},
	}}
	completed := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}
	s := &v1.PodStatus{
		InitContainerStatuses: []v1.ContainerStatus{
			{Name: "init", State: completed},
			{Name: "extra", State: completed},
		},
		ContainerStatuses: []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "PodInitializing"}}}},
	}
	p := prober{pod: pod, opts: &Options{}, runtimeType: "containerd"}
	p.updatePodStatus(s, nil)
	for _, cs := range s.InitContainerStatuses {
		if cs.Started == nil || *cs.Started {
			t.Errorf("init status %s: started %v, want false", cs.Name, derefBool(cs.Started))
		}
	}
	if !s.InitContainerStatuses[0].Ready {
		t.Error("the spec's init container exited 0 and is not ready")
	}
	if s.InitContainerStatuses[1].Ready {
		t.Error("the status past the spec's init list was made ready")
	}
}

func derefBool(b *bool) any {
	if b == nil {
		return "nil"
	}
	return *b
}

// Check accepts the status a kubelet writes while the pod's sandbox is not
// ready but its containers still run: getPhase's podHasInitialized counts
// only the ready sandbox's instances, so it is false, and the sidecar's
// Started carried over from the previous status (false) makes the phase
// Pending, while every other condition is True. PodReadyToStartContainers
// =False alone is what tells Check that podHasInitialized may be false.
func TestCheckAcceptsPendingWithSandboxNotReady(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "u-1"},
		Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways,
			InitContainers: []v1.Container{{Name: "proxy", Image: "envoy", RestartPolicy: &always}},
			Containers:     []v1.Container{{Name: "app", Image: "nginx"}}},
	}
	st := &runtimestate.Pod{
		Sandboxes: []runtimestate.Sandbox{{ID: "s1", Ready: false, IP: "10.244.1.6"}},
		Containers: []runtimestate.Container{
			{ID: "c2", Name: "app", SandboxID: "s1", State: runtimestate.Running},
			{ID: "c1", Name: "proxy", SandboxID: "s1", State: runtimestate.Running},
		},
	}
	notStarted := false
	pod.Status = v1.PodStatus{InitContainerStatuses: []v1.ContainerStatus{{Name: "proxy", Started: &notStarted, State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}}
	pod.Status = Compute(pod, st, Options{}).Status
	if pod.Status.Phase != v1.PodPending {
		t.Fatalf("Compute wrote phase %s, want Pending (the test's premise)", pod.Status.Phase)
	}
	for _, c := range pod.Status.Conditions {
		if want := v1.ConditionTrue; c.Type == v1.PodReadyToStartContainers {
			want = v1.ConditionFalse
			if c.Status != want {
				t.Fatalf("condition %s=%s, want %s (the test's premise)", c.Type, c.Status, want)
			}
		} else if c.Status != want {
			t.Fatalf("condition %s=%s, want %s (the test's premise)", c.Type, c.Status, want)
		}
	}
	for _, m := range Check(pod, RecomputeOptions{}) {
		t.Errorf("Check rejects the kubelet's status:\n%s", m)
	}
}

// KubeletWrote: a status holding a container status of any list (init,
// regular or ephemeral) was written by a kubelet; one holding none, or a
// nil one, was not.
func TestKubeletWroteAnyList(t *testing.T) {
	one := []v1.ContainerStatus{{Name: "c"}}
	for _, tc := range []struct {
		name string
		s    *v1.PodStatus
		want bool
	}{
		{"nil", nil, false},
		{"none", &v1.PodStatus{Phase: v1.PodPending}, false},
		{"init only", &v1.PodStatus{InitContainerStatuses: one}, true},
		{"regular only", &v1.PodStatus{ContainerStatuses: one}, true},
		{"ephemeral only", &v1.PodStatus{EphemeralContainerStatuses: one}, true},
		{"init and ephemeral", &v1.PodStatus{InitContainerStatuses: one, EphemeralContainerStatuses: one}, true},
	} {
		if got := KubeletWrote(tc.s); got != tc.want {
			t.Errorf("%s: KubeletWrote %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Check's mismatch on a status list names the containers each side has, as
// JSON lists: the status's names and the spec's, an empty list as [].
func TestCheckListMismatchNamesContainers(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers: []v1.Container{{Name: "init", Image: "i"}},
		Containers:     []v1.Container{{Name: "a", Image: "i"}, {Name: "b", Image: "i"}},
	}}
	pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "a", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "PodInitializing"}}}}
	want := map[string][2]string{
		"status.initContainerStatuses[*].name": {`[]`, `["init"]`},
		"status.containerStatuses[*].name":     {`["a"]`, `["a","b"]`},
	}
	got := map[string][2]string{}
	for _, m := range Check(pod, RecomputeOptions{}) {
		if _, ok := want[m.Field]; ok {
			got[m.Field] = [2]string{m.Status, m.Kubelet}
		}
	}
	for f, w := range want {
		if got[f] != w {
			t.Errorf("%s: status %s, kubelet %s; want %s and %s", f, got[f][0], got[f][1], w[0], w[1])
		}
	}
}

// RuntimeFromStatus: the host IPs are status.hostIPs without empty
// entries; the runtime type is the scheme of the first container ID that
// has a non-empty one, "containerd" when none has.
func TestRuntimeFromStatusHostIPsAndRuntimeType(t *testing.T) {
	running := v1.ContainerState{Running: &v1.ContainerStateRunning{}}
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "a", Image: "i"}, {Name: "b", Image: "i"}}}}
	pod.Status.HostIP = "192.168.1.2"
	pod.Status.HostIPs = []v1.HostIP{{IP: "192.168.1.2"}, {IP: ""}, {IP: "fd00::2"}}
	pod.Status.ContainerStatuses = []v1.ContainerStatus{
		{Name: "a", ContainerID: "://c1", State: running},
		{Name: "b", ContainerID: "cri-o://c2", State: running},
	}
	v := RuntimeFromStatus(pod)
	if want := []string{"192.168.1.2", "fd00::2"}; !equalStrings(v.HostIPs, want) {
		t.Errorf("HostIPs %q, want %q", v.HostIPs, want)
	}
	if v.RuntimeType != "cri-o" {
		t.Errorf("RuntimeType %q, want cri-o (the ID without a scheme says nothing)", v.RuntimeType)
	}
	pod.Status.ContainerStatuses[1].ContainerID = ""
	if v := RuntimeFromStatus(pod); v.RuntimeType != "containerd" {
		t.Errorf("no ID with a scheme: RuntimeType %q, want containerd", v.RuntimeType)
	}
}

// RuntimeFromStatus implies a startup Success for a running container that
// has a startup probe and shows started=true, and no startup result for
// one without a startup probe or not started.
func TestRuntimeFromStatusImpliedStartup(t *testing.T) {
	probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}
	yes, no := true, false
	running := v1.ContainerState{Running: &v1.ContainerStateRunning{}}
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{
		{Name: "probed", Image: "i", StartupProbe: probe},
		{Name: "probed-not-started", Image: "i", StartupProbe: probe},
		{Name: "probed-unset", Image: "i", StartupProbe: probe},
		{Name: "plain", Image: "i"},
	}}}
	pod.Status.ContainerStatuses = []v1.ContainerStatus{
		{Name: "plain", State: running, Started: &yes},
		{Name: "probed", State: running, Started: &yes},
		{Name: "probed-not-started", State: running, Started: &no},
		{Name: "probed-unset", State: running},
	}
	v := RuntimeFromStatus(pod)
	for name, want := range map[string]vocab.ProbeResult{"probed": vocab.ProbeSuccess, "probed-not-started": vocab.ProbeNoResult, "probed-unset": vocab.ProbeNoResult, "plain": vocab.ProbeNoResult} {
		c := runningInstance(v.State, name)
		if c == nil {
			t.Fatalf("no running instance of %s", name)
		}
		if got := v.Probes[c.ID].Startup; got != want {
			t.Errorf("%s: startup %q, want %q", name, got, want)
		}
	}
}

// RuntimeFromStatus says which running containers it took to have started
// with the spec's resources: those whose status shows no resources and
// whose spec asks for some; it says nothing when there is none such.
func TestRuntimeFromStatusAssumedSpecResources(t *testing.T) {
	running := v1.ContainerState{Running: &v1.ContainerStateRunning{}}
	guaranteed := v1.ResourceRequirements{Requests: rlist("cpu", "1", "memory", "1Gi"), Limits: rlist("cpu", "1", "memory", "1Gi")}
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{
		{Name: "sized", Image: "i", Resources: guaranteed},
		{Name: "bare", Image: "i"},
		{Name: "shown", Image: "i", Resources: guaranteed},
	}}}
	pod.Status.ContainerStatuses = []v1.ContainerStatus{
		{Name: "bare", State: running},
		{Name: "shown", State: running, Resources: guaranteed.DeepCopy()},
		{Name: "sized", State: running},
	}
	const says = "started with the resources the spec asks for now"
	assumed := func(v StatusView) string {
		for _, a := range v.Assumed {
			if strings.Contains(a, says) {
				return a
			}
		}
		return ""
	}
	if got, want := assumed(RuntimeFromStatus(pod)), "sized "+says; !strings.HasPrefix(got, want) {
		t.Errorf("Assumed says %q, want %q", got, want)
	}
	pod.Status.ContainerStatuses[2].Resources = guaranteed.DeepCopy()
	if got := assumed(RuntimeFromStatus(pod)); got != "" {
		t.Errorf("every container with resources shows them, yet Assumed says %q", got)
	}
}

// The pod-level record of the actuated resources: the kubelet records the
// spec's pod-level resources when they set requests or limits
// (UpdateActuatedPodLevelResources), nothing for an empty one; the
// status's pod-level resources replace them when they show a request or a
// limit.
func TestRuntimeFromStatusPodLevelRecord(t *testing.T) {
	running := []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}
	for _, tc := range []struct {
		name         string
		spec, status *v1.ResourceRequirements
		want         *v1.ResourceRequirements
	}{
		{"spec requests only", &v1.ResourceRequirements{Requests: rlist("cpu", "1")}, nil, &v1.ResourceRequirements{Requests: rlist("cpu", "1")}},
		{"spec limits only", &v1.ResourceRequirements{Limits: rlist("cpu", "2")}, nil, &v1.ResourceRequirements{Limits: rlist("cpu", "2")}},
		{"empty spec resources", &v1.ResourceRequirements{}, nil, nil},
		{"status requests only", &v1.ResourceRequirements{Requests: rlist("cpu", "2")}, &v1.ResourceRequirements{Requests: rlist("cpu", "1")}, &v1.ResourceRequirements{Requests: rlist("cpu", "1")}},
		{"empty status resources", &v1.ResourceRequirements{Requests: rlist("cpu", "2")}, &v1.ResourceRequirements{}, &v1.ResourceRequirements{Requests: rlist("cpu", "2")}},
	} {
		pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "i"}}, Resources: tc.spec}}
		pod.Status.ContainerStatuses = running
		pod.Status.Resources = tc.status
		got := RuntimeFromStatus(pod).Actuated.Pod
		if !equality.Semantic.DeepEqual(got, tc.want) {
			t.Errorf("%s: pod-level record %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The kubelet's requirementsQOS: a container with a limit and no request
// (a pod the API server did not default) is Burstable, not BestEffort,
// since its request (zero) differs from its limit; one with neither is
// BestEffort.
func TestQOSLimitsWithoutRequests(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    v1.ResourceRequirements
		want v1.PodQOSClass
	}{
		{"limits only", v1.ResourceRequirements{Limits: rlist("cpu", "1", "memory", "1Gi")}, v1.PodQOSBurstable},
		{"nothing", v1.ResourceRequirements{}, v1.PodQOSBestEffort},
	} {
		pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "i", Resources: tc.r}}}}
		if got := Compute(pod, nil, Options{}).Status.QOSClass; got != tc.want {
			t.Errorf("%s: QoS %s, want %s", tc.name, got, tc.want)
		}
	}
}

// Recompute's podHasInitialized estimate is true when a regular container
// has a status showing an instance existed (running, terminated, or a last
// termination) and false when every regular container only waits to start
// for the first time.
func TestRecomputePodHasInitialized(t *testing.T) {
	waiting := v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	crashed := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 1}}
	back := v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
	for _, tc := range []struct {
		name     string
		statuses []v1.ContainerStatus
		want     bool
	}{
		{"waiting for the first start", []v1.ContainerStatus{{Name: "app", State: waiting}}, false},
		{"waiting after a crash", []v1.ContainerStatus{{Name: "app", State: back, LastTerminationState: crashed}}, true},
		{"running", []v1.ContainerStatus{{Name: "app", State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}}, true},
	} {
		pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "i"}}}}
		pod.Status.ContainerStatuses = tc.statuses
		if got := Recompute(pod, RecomputeOptions{}).PodHasInitialized; got != tc.want {
			t.Errorf("%s: PodHasInitialized %v, want %v", tc.name, got, tc.want)
		}
	}
}

// checkContainerStateTransition refuses every status when the previous one
// has an init container status past the spec's init list ("mismatch
// between pod spec and status").
func TestCheckTransitionInitStatusPastSpec(t *testing.T) {
	spec := &v1.PodSpec{RestartPolicy: v1.RestartPolicyNever,
		InitContainers: []v1.Container{{Name: "init", Image: "i"}},
		Containers:     []v1.Container{{Name: "app", Image: "i"}}}
	completed := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0}}
	old := &v1.PodStatus{InitContainerStatuses: []v1.ContainerStatus{{Name: "init", State: completed}, {Name: "gone", State: completed}}}
	err := CheckTransition(spec, old, old.DeepCopy(), features.V1_37())
	if err == nil || !strings.Contains(err.Error(), "init container status 1 (gone) is not the spec's") {
		t.Errorf("error %v, want one naming init container status 1 (gone)", err)
	}
}

// TestCheckRunningInTerminalFromAPI: with FromAPI, a terminal phase beside
// a running init or regular container is reported, one mismatch per
// container, but not beside a running ephemeral container (TerminatePod
// leaves those as they are when every status of SyncTerminatingPod was
// refused); without FromAPI (the status manager's cache) nothing is, and
// a terminal status whose containers all stopped is not either.
func TestCheckRunningInTerminalFromAPI(t *testing.T) {
	run := v1.ContainerState{Running: &v1.ContainerStateRunning{}}
	done := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers:      []v1.Container{{Name: "i"}},
		Containers:          []v1.Container{{Name: "a"}, {Name: "b"}},
		EphemeralContainers: []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "e"}}},
	}}
	pod.Status = v1.PodStatus{Phase: v1.PodFailed,
		InitContainerStatuses:      []v1.ContainerStatus{{Name: "i", State: run}},
		ContainerStatuses:          []v1.ContainerStatus{{Name: "a", State: run}, {Name: "b", State: done}},
		EphemeralContainerStatuses: []v1.ContainerStatus{{Name: "e", State: run}},
	}
	fields := func(opts RecomputeOptions) []string {
		var out []string
		for _, m := range Check(pod, opts) {
			if strings.HasSuffix(m.Field, "].state") && m.Kubelet == "terminated" {
				out = append(out, m.Field)
			}
		}
		return out
	}
	want := []string{"status.initContainerStatuses[i].state", "status.containerStatuses[a].state"}
	if got := fields(RecomputeOptions{FromAPI: true, PodIsTerminal: true}); !equalStrings(got, want) {
		t.Errorf("FromAPI: reported %q, want %q", got, want)
	}
	if got := fields(RecomputeOptions{PodIsTerminal: true}); len(got) != 0 {
		t.Errorf("the cache (FromAPI false): reported %q, want none", got)
	}
	pod.Status.Phase = v1.PodSucceeded
	if got := fields(RecomputeOptions{FromAPI: true, PodIsTerminal: true}); !equalStrings(got, want) {
		t.Errorf("Succeeded, FromAPI: reported %q, want %q", got, want)
	}
	pod.Status.Phase = v1.PodRunning
	if got := fields(RecomputeOptions{FromAPI: true}); len(got) != 0 {
		t.Errorf("Running: reported %q, want none", got)
	}
	pod.Status.Phase = v1.PodFailed
	pod.Status.InitContainerStatuses[0].State = done
	pod.Status.ContainerStatuses[0].State = done
	pod.Status.EphemeralContainerStatuses[0].State = done
	if got := fields(RecomputeOptions{FromAPI: true, PodIsTerminal: true}); len(got) != 0 {
		t.Errorf("every container stopped: reported %q, want none", got)
	}
}

// TestCheckHeldBackFromAPI: every container of a restartPolicy Never pod
// exited 0 and the conditions are the ones for Succeeded, but the API
// phase is still Running (the status manager holds a terminal phase back
// until SyncTerminatingPod stopped the sandbox, mergePodStatus): with
// FromAPI, Check accepts the phase, its reason and message; the cache
// (FromAPI false) does not hold phases back, and Check reports it there.
func TestCheckHeldBackFromAPI(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, Containers: []v1.Container{{Name: "a"}}}}
	pod.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "a", Started: ptrTo(false),
		State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}}}
	r := Recompute(pod, RecomputeOptions{})
	if r.Phase.Phase != v1.PodSucceeded {
		t.Fatalf("Recompute gives %s, want Succeeded", r.Phase.Phase)
	}
	pod.Status.Conditions = r.Conditions
	pod.Status.Phase = v1.PodRunning
	if !HeldBack(pod, r) {
		t.Errorf("HeldBack: false for phase Running where the kubelet computes Succeeded")
	}
	phaseFields := func(opts RecomputeOptions) []string {
		var out []string
		for _, m := range Check(pod, opts) {
			if m.Field == "status.phase" || m.Field == "status.reason" || m.Field == "status.message" {
				out = append(out, m.Field)
			}
		}
		return out
	}
	if got := phaseFields(RecomputeOptions{FromAPI: true}); len(got) != 0 {
		t.Errorf("FromAPI: %q reported for a phase the status manager holds back", got)
	}
	pod.Status.Reason, pod.Status.Message = "Old", "held with the phase"
	if got := phaseFields(RecomputeOptions{FromAPI: true}); len(got) != 0 {
		t.Errorf("FromAPI: %q reported for the reason and message held with the phase", got)
	}
	if got := phaseFields(RecomputeOptions{}); len(got) == 0 {
		t.Errorf("the cache: no phase mismatch reported for Running where the kubelet computes Succeeded")
	}
	// A terminal phase other than the kubelet's is not held back.
	pod.Status.Phase = v1.PodFailed
	if HeldBack(pod, r) {
		t.Errorf("HeldBack: true for phase Failed")
	}
	if got := phaseFields(RecomputeOptions{FromAPI: true}); len(got) == 0 {
		t.Errorf("FromAPI: Failed where the kubelet computes Succeeded is not reported")
	}
}
