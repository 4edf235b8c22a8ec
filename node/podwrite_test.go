package node

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

func crashPod() *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "11111111-2222-3333-4444-555555555555"},
		Spec: v1.PodSpec{
			InitContainers: []v1.Container{{Name: "proxy", Image: "envoy", RestartPolicy: ptrTo(v1.ContainerRestartPolicyAlways)}},
			Containers:     []v1.Container{{Name: "app", Image: "busybox"}},
		},
	}
}

func ptrTo[T any](v T) *T { return &v }

// runEngine runs pod on an engine from start for d in 1 s Advances, as the
// driver does, and translates each report.
func runEngine(t *testing.T, pod *v1.Pod, script sim.Script, d time.Duration) ([]kubeletEvent, []v1.PodStatus) {
	t.Helper()
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	n := sim.NewNode(sim.Config{Seed: 1, Start: start, KubeletUptime: sim.Duration(time.Nanosecond), Parallelism: 1})
	if err := n.AddPod(start, simPod(pod), script); err != nil {
		t.Fatal(err)
	}
	var evs []kubeletEvent
	var sts []v1.PodStatus
	var tr podTrack
	for at := start; !at.After(start.Add(d)); at = at.Add(time.Second) {
		r := n.Advance(at)
		for _, e := range r.Entries {
			if e.Pod != string(pod.UID) {
				t.Fatalf("entry of pod %q: want the UID %s as the engine's name", e.Pod, pod.UID)
			}
		}
		w := translate(pod, r.Entries, start, &tr)
		evs = append(evs, w.Events...)
		if w.Status != nil {
			sts = append(sts, *w.Status)
		}
	}
	return evs, sts
}

// TestTranslateCrashLoop runs the engine on a crash-looping container and
// checks what the driver would write: Pulled, Created and Started for
// each run with the kubelet's messages and field paths, BackOff events
// naming the pod as format.Pod does, statuses with the restart count and
// CrashLoopBackOff, and starts spaced by the kubelet's back-off (10 s,
// 20 s, 40 s after each exit, within the engine's relist and sync
// delays).
func TestTranslateCrashLoop(t *testing.T) {
	pod := crashPod()
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sim.Duration(time.Second), ExitCode: 1}}}}}
	evs, sts := runEngine(t, pod, script, 100*time.Second)
	var starts []time.Time
	backOffs := 0
	for _, e := range evs {
		switch {
		case e.Reason == reasonStarted && e.FieldPath == "spec.containers{app}":
			if e.Message != "Container started" || e.Type != v1.EventTypeNormal {
				t.Errorf("Started event %+v", e)
			}
			starts = append(starts, e.At)
		case e.Reason == reasonBackOff:
			backOffs++
			want := "Back-off restarting failed container app in pod web_default(11111111-2222-3333-4444-555555555555)"
			if e.Message != want || e.Type != v1.EventTypeWarning || e.FieldPath != "spec.containers{app}" {
				t.Errorf("BackOff event %+v: want %q", e, want)
			}
		case e.Reason == reasonPulled && e.FieldPath == "spec.initContainers{proxy}":
			if e.Message != `Container image "envoy" already present on machine and can be accessed by the pod` {
				t.Errorf("Pulled event %+v", e)
			}
		}
	}
	if backOffs == 0 {
		t.Error("no BackOff event")
	}
	if len(starts) < 5 {
		t.Fatalf("app started %d times in 100 s: want at least 5 (%v)", len(starts), starts)
	}
	// Run k exits 1 s after it starts. The first exit has no back-off
	// yet (the kubelet restarts at once: doBackOff finds no entry), each
	// later one waits the back-off b = 10 s × 2^(k-2) from the exit; the
	// worker's requeue is wait.Jitter(b, 0.5) (pod_workers.go
	// completeWork), so the start comes within [b, 1.5 b], plus up to
	// about 3 s of relist, sync and tick delays.
	for k := 1; k < 5; k++ {
		gap := starts[k].Sub(starts[k-1]) - time.Second
		want := backOffAfter(k)
		if hi := want*3/2 + 3*time.Second; gap < want || gap > hi {
			t.Errorf("start %d came %s after the exit of run %d: want %s to %s", k+1, gap, k, want, hi)
		}
	}
	var maxRestarts int32
	crashLoop := false
	for _, st := range sts {
		for _, cs := range st.ContainerStatuses {
			if cs.RestartCount > maxRestarts {
				maxRestarts = cs.RestartCount
			}
			if cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff" {
				crashLoop = true
				if cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ExitCode != 1 {
					t.Errorf("CrashLoopBackOff status with lastState %+v: want terminated with exit code 1", cs.LastTerminationState)
				}
			}
		}
	}
	if !crashLoop || maxRestarts < 3 {
		t.Errorf("statuses: CrashLoopBackOff %v, restarts up to %d: want CrashLoopBackOff and at least 3", crashLoop, maxRestarts)
	}
}

// TestTranslateKilling: a StopContainer carries the message of the kill
// the sync decided, even in a later Advance, and "Stopping container"
// otherwise; a failed preStop hook is FailedPreStopHook; the final delete
// is reported whether or not finalizers hold the object; only the last
// status is kept.
func TestTranslateKilling(t *testing.T) {
	pod := crashPod()
	var tr podTrack
	start := time.Unix(1000, 0)
	w := translate(pod, []sim.Entry{
		{At: time.Second, Kind: sim.KindSync, Message: "kill app: Container app failed liveness probe, will be restarted"},
		{At: 2 * time.Second, Kind: sim.KindAPI, API: sim.APIStatus, Status: &sim.StatusEntry{Status: v1.PodStatus{Phase: v1.PodPending}}},
		{At: 3 * time.Second, Kind: sim.KindAPI, API: sim.APIStatus, Status: &sim.StatusEntry{Status: v1.PodStatus{Phase: v1.PodRunning}}},
	}, start, &tr)
	if len(w.Events) != 0 || w.Status == nil || w.Status.Phase != v1.PodRunning || w.Delete {
		t.Fatalf("first advance: %+v", w)
	}
	w = translate(pod, []sim.Entry{
		{At: 5 * time.Second, Kind: sim.KindCRI, Call: &sim.Call{Method: "StopContainer", Name: "app"}},
		{At: 6 * time.Second, Kind: sim.KindCRI, Call: &sim.Call{Method: "ExecSync", Name: "proxy", Hook: "preStop", HookFailed: true}},
		{At: 7 * time.Second, Kind: sim.KindCRI, Call: &sim.Call{Method: "StopContainer", Name: "app"}},
		{At: 8 * time.Second, Kind: sim.KindAPI, API: sim.APIDeleteHeld},
	}, start, &tr)
	want := []kubeletEvent{
		{At: start.Add(5 * time.Second), FieldPath: "spec.containers{app}", Type: "Normal", Reason: "Killing", Message: "Container app failed liveness probe, will be restarted"},
		// killContainer records Killing before it runs the preStop hook.
		{At: start.Add(6 * time.Second), FieldPath: "spec.initContainers{proxy}", Type: "Normal", Reason: "Killing", Message: "Stopping container proxy"},
		{At: start.Add(6 * time.Second), FieldPath: "spec.initContainers{proxy}", Type: "Warning", Reason: "FailedPreStopHook", Message: "PreStopHook failed"},
		{At: start.Add(7 * time.Second), FieldPath: "spec.containers{app}", Type: "Normal", Reason: "Killing", Message: "Stopping container app"},
	}
	if len(w.Events) != len(want) {
		t.Fatalf("events %+v: want %+v", w.Events, want)
	}
	for i := range want {
		if w.Events[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, w.Events[i], want[i])
		}
	}
	if !w.Delete || w.Status != nil {
		t.Errorf("delete %v status %v: want the delete and no status", w.Delete, w.Status)
	}
}

// TestTranslateEngineMessages pins the engine's decision messages the
// driver reads on the engine itself: a liveness failure's kill reaches the
// Killing event with the kubelet's message.
func TestTranslateEngineMessages(t *testing.T) {
	pod := crashPod()
	pod.Spec.Containers[0].LivenessProbe = &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}, PeriodSeconds: 1, FailureThreshold: 1}
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{
		{Liveness: []sim.ProbeStep{{At: sim.Duration(5 * time.Second), Result: "Failure"}}}, {}}}}}
	evs, _ := runEngine(t, pod, script, 30*time.Second)
	var kill, unhealthy bool
	for _, e := range evs {
		if e.Reason == reasonKilling && e.FieldPath == "spec.containers{app}" {
			kill = true
			if e.Message != "Container app failed liveness probe, will be restarted" {
				t.Errorf("Killing message %q", e.Message)
			}
		}
		if e.Reason == reasonUnhealthy && strings.HasPrefix(e.Message, "Liveness probe failed") {
			unhealthy = true
		}
	}
	if !kill || !unhealthy {
		t.Errorf("Killing %v Unhealthy %v: want both (events %+v)", kill, unhealthy, evs)
	}
}

// TestStatusToWrite: the node's IP as hostIP, the pod's IP once its
// sandbox is up and from then on, a host-network pod's IP the node's, the
// conditions the kubelet does not own kept from the API's status, and the
// scheduler's PodScheduled time kept.
func TestStatusToWrite(t *testing.T) {
	t0 := metav1.NewTime(time.Unix(1000, 0))
	t1 := metav1.NewTime(time.Unix(2000, 0))
	old := v1.PodStatus{Phase: v1.PodPending, Conditions: []v1.PodCondition{
		{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: t0},
		{Type: "example.com/gate", Status: v1.ConditionTrue},
		{Type: v1.PodReady, Status: v1.ConditionTrue},
	}, ResourceClaimStatuses: []v1.PodResourceClaimStatus{{Name: "gpu"}}}
	st := v1.PodStatus{Phase: v1.PodPending, Conditions: []v1.PodCondition{
		{Type: v1.PodReadyToStartContainers, Status: v1.ConditionFalse, LastTransitionTime: t1},
		{Type: v1.PodReady, Status: v1.ConditionFalse, LastTransitionTime: t1},
		{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: t1},
	}}
	got := statusToWrite(st, old, false, "10.88.0.1", "10.244.0.2", false)
	if got.HostIP != "10.88.0.1" || len(got.HostIPs) != 1 || got.PodIP != "" || len(got.PodIPs) != 0 {
		t.Errorf("before the sandbox: hostIP %q %v podIP %q %v", got.HostIP, got.HostIPs, got.PodIP, got.PodIPs)
	}
	var types []string
	for _, c := range got.Conditions {
		types = append(types, string(c.Type))
		if c.Type == v1.PodScheduled && !c.LastTransitionTime.Equal(&t0) {
			t.Errorf("PodScheduled transition %v: want the API's %v", c.LastTransitionTime, t0)
		}
		if c.Type == v1.PodReady && c.Status != v1.ConditionFalse {
			t.Errorf("Ready %s: want the kubelet's False", c.Status)
		}
	}
	if strings.Join(types, ",") != "example.com/gate,PodReadyToStartContainers,Ready,PodScheduled" {
		t.Errorf("conditions %v", types)
	}
	if len(got.ResourceClaimStatuses) != 1 {
		t.Errorf("resource claim statuses %v: want the API's", got.ResourceClaimStatuses)
	}
	if got := statusToWrite(st, old, false, "10.88.0.1", "10.244.0.2", true); got.PodIP != "10.244.0.2" || len(got.PodIPs) != 1 {
		t.Errorf("sandbox up: podIP %q %v", got.PodIP, got.PodIPs)
	}
	old.PodIP = "10.244.0.2"
	if got := statusToWrite(st, old, false, "10.88.0.1", "10.244.0.2", false); got.PodIP != "10.244.0.2" {
		t.Errorf("written before: podIP %q: want it kept", got.PodIP)
	}
	if got := statusToWrite(st, v1.PodStatus{}, true, "10.88.0.1", "", false); got.PodIP != "10.88.0.1" || got.PodIPs[0].IP != "10.88.0.1" {
		t.Errorf("host network: podIP %q", got.PodIP)
	}
}

// TestStatusPatch: the patch carries the UID as a precondition and only
// what changed; equal statuses are unchanged.
func TestStatusPatch(t *testing.T) {
	old := v1.PodStatus{Phase: v1.PodPending, HostIP: "10.0.0.1"}
	next := v1.PodStatus{Phase: v1.PodRunning, HostIP: "10.0.0.1"}
	p, unchanged, err := statusPatch("u1", old, next)
	if err != nil || unchanged || string(p) != `{"metadata":{"uid":"u1"},"status":{"phase":"Running"}}` {
		t.Errorf("patch %s unchanged %v err %v", p, unchanged, err)
	}
	if _, unchanged, _ := statusPatch("u1", old, old); !unchanged {
		t.Error("equal statuses: want unchanged")
	}
}

// TestPodScript: a Job's containers exit 0 after JobRunTime, other pods'
// run until stopped; the annotation overrides per container; a script
// that does not read leaves the defaults with a problem; actions done
// through the API are reported as ignored, kills are kept with their time.
func TestPodScript(t *testing.T) {
	job := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "j", Controller: ptrTo(true)}}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "b"}, {Name: "side", Image: "b"}}}}
	at := time.Unix(5000, 0)
	s, acts, probs := podScript(job, PodOptions{JobRunTime: 7 * time.Second}, at)
	if len(probs) != 0 || len(acts) != 0 || s.Containers["app"].Runs[0].ExitAfter.D() != 7*time.Second || s.Containers["side"].Runs[0].ExitCode != 0 {
		t.Errorf("job defaults: %+v %v %v", s, acts, probs)
	}
	plain := job.DeepCopy()
	plain.OwnerReferences[0].Kind = "ReplicaSet"
	if s, _, _ := podScript(plain, PodOptions{}, at); len(s.Containers) != 0 {
		t.Errorf("ReplicaSet pod: %+v: want no behaviour (run until stopped)", s)
	}
	job.Annotations = map[string]string{ScriptAnnotation: "containers:\n  app:\n    runs:\n    - exitAfter: 3s\n      exitCode: 2\nactions:\n- {at: 20s, killContainer: side}\n- {at: 30s, delete: true}\n"}
	s, acts, probs = podScript(job, PodOptions{}, at)
	if r := s.Containers["app"].Runs[0]; r.ExitAfter.D() != 3*time.Second || r.ExitCode != 2 {
		t.Errorf("annotated app: %+v", r)
	}
	if s.Containers["side"].Runs[0].ExitAfter.D() != DefaultJobRunTime {
		t.Errorf("unannotated side: %+v: want the Job default", s.Containers["side"])
	}
	if len(acts) != 1 || !acts[0].at.Equal(at.Add(20*time.Second)) || acts[0].action.KillContainer != "side" {
		t.Errorf("actions %+v", acts)
	}
	if len(probs) != 1 || !strings.Contains(probs[0], "ignored") {
		t.Errorf("problems %v: want the delete reported as ignored", probs)
	}
	job.Annotations[ScriptAnnotation] = "containers:\n  nosuch:\n    runs: []\n"
	s, _, probs = podScript(job, PodOptions{}, at)
	if len(probs) != 1 || !strings.Contains(probs[0], "nosuch") || s.Containers["app"].Runs[0].ExitAfter.D() != DefaultJobRunTime {
		t.Errorf("bad script: %+v %v", s, probs)
	}
	job.Annotations[ScriptAnnotation] = "containers:\n  app:\n    runs: [{exitAfter: soon}]\n"
	if _, _, probs = podScript(job, PodOptions{}, at); len(probs) != 1 || !strings.Contains(probs[0], "exitAfter") {
		t.Errorf("bad duration: %v", probs)
	}
}

// TestAllocIP: addresses from .2 of the node's range, none given twice,
// a freed one given again once the others are used.
func TestAllocIP(t *testing.T) {
	d := &podDriver{cidr: nodePodCIDR(257), ips: map[string]bool{}}
	if d.cidr.String() != "10.245.1.0/24" {
		t.Errorf("node 257's range %s", d.cidr)
	}
	seen := map[string]bool{}
	for i := 0; i < 253; i++ {
		ip := d.allocIP()
		if ip == "" || seen[ip] {
			t.Fatalf("allocation %d: %q (seen %v)", i, ip, seen[ip])
		}
		seen[ip] = true
	}
	if ip := d.allocIP(); ip != "" {
		t.Errorf("full range gave %q", ip)
	}
	delete(d.ips, "10.245.1.7")
	if ip := d.allocIP(); ip != "10.245.1.7" {
		t.Errorf("after freeing .7: %q", ip)
	}
}

// backOffAfter is the kubelet's crash-loop back-off after the k-th exit
// (pkg/kubelet/kubelet.go: initial 10 s, doubling, 300 s cap; none
// before the first restart).
func backOffAfter(k int) time.Duration {
	if k <= 1 {
		return 0
	}
	d := 10 * time.Second << (k - 2)
	if d > 300*time.Second {
		d = 300 * time.Second
	}
	return d
}

// TestSimPodAdmitted: a pod as the API server stores it (the
// ServiceAccount admission's projected token volume and mount, the
// DefaultTolerationSeconds tolerations, a generated name, managed fields
// and a status) is accepted by the engine under its UID.
func TestSimPodAdmitted(t *testing.T) {
	exp := int64(3607)
	tol := int64(300)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "crashy-5d8f7c9b4-x2x7k", GenerateName: "crashy-5d8f7c9b4-", Namespace: "default",
			UID: "0f4e2d1c-9a8b-4c7d-8e6f-123456789abc", ResourceVersion: "123",
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager"}}},
		Spec: v1.PodSpec{
			NodeName: "kp-0",
			Containers: []v1.Container{{Name: "app", Image: "busybox",
				VolumeMounts: []v1.VolumeMount{{Name: "kube-api-access-abcde", ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}}}},
			Volumes: []v1.Volume{{Name: "kube-api-access-abcde", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{
				DefaultMode: ptrTo(int32(420)),
				Sources: []v1.VolumeProjection{
					{ServiceAccountToken: &v1.ServiceAccountTokenProjection{ExpirationSeconds: &exp, Path: "token"}},
					{ConfigMap: &v1.ConfigMapProjection{LocalObjectReference: v1.LocalObjectReference{Name: "kube-root-ca.crt"},
						Items: []v1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
					{DownwardAPI: &v1.DownwardAPIProjection{Items: []v1.DownwardAPIVolumeFile{{Path: "namespace",
						FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
				}}}}},
			ServiceAccountName: "default",
			Tolerations: []v1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &tol},
				{Key: "node.kubernetes.io/unreachable", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &tol},
			},
		},
		Status: v1.PodStatus{Phase: v1.PodPending, Conditions: []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionTrue}}},
	}
	n := sim.NewNode(sim.Config{Start: time.Unix(0, 0)})
	if err := n.AddPod(time.Unix(0, 0), simPod(pod), sim.Script{}); err != nil {
		t.Fatal(err)
	}
	if got := n.Pods(); len(got) != 1 || got[0] != "default/"+string(pod.UID) {
		t.Errorf("engine pods %v", got)
	}
}

// TestStatusScheduled: the driver gives Options.StatusScheduled each
// status its engine's kubelet writes, with the time the engine wrote it
// (the node's start plus the APIStatus entry's At, the last of the
// Advance's: the one the status writer gets), not the time of the
// Advance; the status is the one the status writer is given.
func TestStatusScheduled(t *testing.T) {
	pod := crashPod()
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	n := sim.NewNode(sim.Config{Seed: 1, Start: start, KubeletUptime: sim.Duration(time.Nanosecond), Parallelism: 1})
	script := sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sim.Duration(time.Second), ExitCode: 1}}}}}
	if err := n.AddPod(start, simPod(pod), script); err != nil {
		t.Fatal(err)
	}
	type call struct {
		status v1.PodStatus
		at     time.Time
	}
	var calls []call
	s := &Standalone{o: Options{StatusScheduled: func(p *v1.Pod, st v1.PodStatus, at time.Time) {
		if p.UID != pod.UID {
			t.Errorf("pod %s: want %s", p.UID, pod.UID)
		}
		calls = append(calls, call{st, at})
	}}}
	d := &podDriver{s: s, start: start, recorder: record.NewFakeRecorder(10000),
		pods: map[types.UID]*drivenPod{pod.UID: {pod: pod, simulated: true}},
		sq:   newStatusQueue(nil, clock.RealClock{}, -1, 0, "10.0.0.1", t.Logf)}
	offGrid, restarts := 0, int32(0)
	for at := start; !at.After(start.Add(60 * time.Second)); at = at.Add(time.Second) {
		r := n.Advance(at)
		var want time.Time
		for _, e := range r.Entries {
			if e.Kind == sim.KindAPI && e.API == sim.APIStatus && e.Status != nil {
				want = start.Add(e.At)
			}
		}
		before := len(calls)
		d.write(context.Background(), r)
		if want.IsZero() {
			if len(calls) != before {
				t.Fatalf("%s: %d calls with no status written", at, len(calls)-before)
			}
			continue
		}
		if len(calls) != before+1 {
			t.Fatalf("%s: %d calls: want 1", at, len(calls)-before)
		}
		c := calls[len(calls)-1]
		if !c.at.Equal(want) {
			t.Errorf("Advance to %s: status scheduled at %s: want the engine's %s", at, c.at, want)
		}
		if !c.at.Equal(at) {
			offGrid++
		}
		cached, ok := d.sq.cached(pod.UID)
		if !ok || !apiequality.Semantic.DeepEqual(cached, c.status) {
			t.Errorf("%s: the hook's status differs from the status writer's", at)
		}
		for _, cs := range c.status.ContainerStatuses {
			restarts = max(restarts, cs.RestartCount)
		}
	}
	if offGrid == 0 || restarts < 2 {
		t.Errorf("%d statuses, %d of them between Advances, restarts up to %d: want some between, 2 restarts", len(calls), offGrid, restarts)
	}
}
