package sim

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podgen"
	"github.com/kubeletlogic/kubeletlogic/podstatus"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

func dur(t *rapid.T, label string, maxSeconds float64) Duration {
	return Duration(rapid.Float64Range(0, maxSeconds).Draw(t, label) * float64(time.Second))
}

func drawSteps(t *rapid.T, label string) []ProbeStep {
	n := rapid.IntRange(0, 2).Draw(t, label+" steps")
	var out []ProbeStep
	for i := 0; i < n; i++ {
		r := vocab.ProbeSuccess
		if rapid.Bool().Draw(t, fmt.Sprintf("%s fails %d", label, i)) {
			r = vocab.ProbeFailure
		}
		// Steps are listed in increasing order of age (Simulate refuses
		// others): each one a drawn time after the one before.
		at := dur(t, fmt.Sprintf("%s at %d", label, i), 60)
		if i > 0 {
			at += out[i-1].At + Duration(time.Millisecond)
		}
		// How long the probe takes: mostly nothing, sometimes more than
		// a drawn timeoutSeconds (0 to 3 s) or a period.
		var takes Duration
		if rapid.Bool().Draw(t, fmt.Sprintf("%s slow %d", label, i)) {
			takes = dur(t, fmt.Sprintf("%s takes %d", label, i), 12)
		}
		out = append(out, ProbeStep{At: at, Result: r, Takes: takes})
	}
	return out
}

func drawRun(t *rapid.T, label string) Run {
	var r Run
	if rapid.Bool().Draw(t, label+" exits") {
		r.ExitAfter = dur(t, label+" exitAfter", 120) + Duration(time.Millisecond)
		r.ExitCode = rapid.SampledFrom([]int32{0, 1, 2, 42, 137}).Draw(t, label+" code")
	}
	r.IgnoreSIGTERM = rapid.Bool().Draw(t, label+" ignores SIGTERM")
	r.TermAfter = dur(t, label+" termAfter", 40)
	r.TermSpread = dur(t, label+" termSpread", 2)
	if rapid.Bool().Draw(t, label+" works in steps") {
		r.TermStep = dur(t, label+" termStep", 2)
	}
	r.TermExitCode = rapid.SampledFrom([]int32{0, 1, 143}).Draw(t, label+" term code")
	r.PreStop = dur(t, label+" preStop", 10)
	if rapid.Bool().Draw(t, label+" OOM") {
		r.OOMAfter = dur(t, label+" oomAfter", 60) + Duration(time.Millisecond)
	}
	r.Liveness = drawSteps(t, label+" liveness")
	r.Readiness = drawSteps(t, label+" readiness")
	r.Startup = drawSteps(t, label+" startup")
	return r
}

func allNames(pod *v1.Pod) []string {
	var names []string
	for _, c := range pod.Spec.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		names = append(names, c.Name)
	}
	return names
}

// drawInput draws a pod, a script for its containers and what happens to
// it within span.
func drawInput(t *rapid.T, i int, span time.Duration) PodInput {
	pod := podgen.Pod(podgen.PodOptions{NoDeletion: true, MaxContainers: 3, MaxInitContainers: 2, MaxSidecars: 2}).Draw(t, fmt.Sprintf("pod %d", i))
	pod.Name = fmt.Sprintf("%s-%d", pod.Name, i)
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if rapid.Bool().Draw(t, fmt.Sprintf("pod %d static", i)) {
		pod.Annotations["kubernetes.io/config.source"] = "file"
	} else {
		pod.Annotations["kubernetes.io/config.source"] = "api"
		if rapid.Bool().Draw(t, fmt.Sprintf("pod %d finalizer", i)) {
			pod.Finalizers = []string{"example.com/hold"}
		}
	}
	pod.Status = v1.PodStatus{}
	in := PodInput{Pod: pod, At: dur(t, fmt.Sprintf("pod %d at", i), 5)}
	in.Script.Containers = map[string]Behaviour{}
	for _, name := range allNames(pod) {
		n := rapid.IntRange(0, 3).Draw(t, name+" runs")
		var b Behaviour
		for k := 0; k < n; k++ {
			b.Runs = append(b.Runs, drawRun(t, fmt.Sprintf("%s run %d", name, k)))
		}
		in.Script.Containers[name] = b
	}
	// Images: missing or present, pulls failing or not, slow or fast.
	for _, c := range specContainers(pod) {
		if _, ok := in.Script.Images[c.Image]; ok || !rapid.Bool().Draw(t, c.Name+" image scripted") {
			continue
		}
		im := Image{Missing: rapid.Bool().Draw(t, c.Name+" image missing")}
		for k := rapid.IntRange(0, 3).Draw(t, c.Name+" pulls"); k > 0; k-- {
			im.Pulls = append(im.Pulls, Pull{Took: dur(t, c.Name+" pull took", 20), Fails: rapid.Bool().Draw(t, c.Name+" pull fails")})
		}
		if in.Script.Images == nil {
			in.Script.Images = map[string]Image{}
		}
		in.Script.Images[c.Image] = im
		c.ImagePullPolicy = rapid.SampledFrom([]v1.PullPolicy{"", v1.PullAlways, v1.PullIfNotPresent, v1.PullNever}).Draw(t, c.Name+" pull policy")
	}
	nActs := rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("pod %d actions", i))
	for k := 0; k < nActs; k++ {
		label := fmt.Sprintf("pod %d action %d", i, k)
		a := Action{At: in.At + dur(t, label+" at", span.Seconds()/2)}
		switch rapid.IntRange(0, 5).Draw(t, label+" kind") {
		case 0:
			g := rapid.SampledFrom([]int64{-1, 0, 1, 5, 30}).Draw(t, label+" grace")
			a.Delete = &g
		case 1:
			a.Remove = true
		case 2:
			a.RemoveFinalizers = true
		case 3:
			names := allNames(pod)
			a.KillContainer = rapid.SampledFrom(names).Draw(t, label+" container")
		case 4:
			a.KillSandbox = true
		case 5:
			a = drawOutsideAction(t, pod, a, label)
		}
		in.Actions = append(in.Actions, a)
	}
	return in
}

// TestProperties checks, on random pods, scripts and actions:
//   - the simulation never panics; the same seed gives the same timeline,
//     whatever the parallelism; Observe receives the same entries;
//   - every status a sync function generates is one a kubelet v1.37.2
//     writes: podstatus.Check finds nothing wrong with it (the status
//     manager's patches after probe results and TerminatePod's version are
//     not generated, and not checked);
//   - restart counts never decrease;
//   - no stored status takes a container out of a terminated state its
//     restart policy keeps it in (podstatus.CheckTransition);
//   - the PLEG reports every removed container died first;
//   - no probe result comes from a worker on hold;
//   - the start time, once stored, never changes;
//   - no container runs when the worker runs SyncTerminatedPod;
//   - the kubelet deletes the API object only after TerminatePod;
//   - no container is created or started in a sandbox after the kubelet
//     stopped it, and none of its containers runs after that call returns;
//   - a pod deleted through the API (with time to spare) ends deleted, or
//     held by a finalizer with a terminal phase written; a removed pod's
//     worker ends terminated.
func TestProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		span := time.Duration(rapid.IntRange(20, 400).Draw(t, "span seconds")) * time.Second
		nPods := rapid.IntRange(1, 2).Draw(t, "pods")
		var pods []PodInput
		for i := 0; i < nPods; i++ {
			pods = append(pods, drawInput(t, i, span))
		}
		seed := rapid.Uint64().Draw(t, "seed")
		cfg := Config{Seed: seed, For: Duration(span)}
		tl, err := Simulate(cfg, pods)
		if err != nil {
			t.Fatalf("Simulate: %v", err)
		}
		again, _ := Simulate(cfg, pods)
		if !reflect.DeepEqual(tl, again) {
			t.Fatalf("same seed, different timelines")
		}
		one := cfg
		one.Parallelism = 1
		if serial, _ := Simulate(one, pods); !reflect.DeepEqual(tl, serial) {
			t.Fatalf("Parallelism 1 gives another timeline")
		}
		// Observe receives the same entries, each pod's in time order.
		var mu sync.Mutex
		perPod := map[string][]Entry{}
		obs := cfg
		obs.Observe = func(e Entry) {
			mu.Lock()
			perPod[e.Pod] = append(perPod[e.Pod], e)
			mu.Unlock()
		}
		if streamed, _ := Simulate(obs, pods); len(streamed.Entries) != 0 || streamed.Syncs != tl.Syncs {
			t.Fatalf("with Observe: %d entries kept, %d syncs (want 0, %d)", len(streamed.Entries), streamed.Syncs, tl.Syncs)
		}
		for pod, got := range perPod {
			var want []Entry
			for _, e := range tl.Entries {
				if e.Pod == pod {
					want = append(want, e)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Observe: the entries of %s differ from the timeline's", pod)
			}
		}
		for _, in := range pods {
			checkPod(t, tl, in, span)
		}
	})
}

func checkPod(t *rapid.T, tl *Timeline, in PodInput, span time.Duration) {
	name := in.Pod.Name
	// statusEqual agrees with equality.Semantic on consecutive statuses.
	var prev *v1.PodStatus
	for _, e := range tl.Entries {
		if e.Pod != name || e.Status == nil {
			continue
		}
		st := &e.Status.Status
		if prev != nil && statusEqual(prev, st) != equality.Semantic.DeepEqual(*prev, *st) {
			t.Fatalf("statusEqual says %v, equality.Semantic %v:\n%+v\n%+v", statusEqual(prev, st), !statusEqual(prev, st), *prev, *st)
		}
		if !statusEqual(st, st.DeepCopy()) {
			t.Fatalf("statusEqual: a status differs from its copy: %+v", *st)
		}
		prev = st
	}
	restarts := map[string]int32{}
	stopped := map[string]time.Duration{}
	died := map[string]bool{}
	held := map[string]bool{}
	var startTime *metav1.Time
	var stored *v1.PodStatus
	finished := false
	for _, e := range tl.Entries {
		if e.Pod != name {
			continue
		}
		switch e.Kind {
		case KindSync:
			// A new kubelet process has new probe workers, none on hold,
			// and a new status manager: a static pod (no API status to
			// read) gets a new start time and its status is checked
			// against nothing (kubeletrestart.go). Its restart counts too
			// start again from the runtime: a container with no instance
			// left (a restart of all containers removed them) counts from
			// the old status, which a static pod no longer has
			// (kubelet_pods.go convertToAPIContainerStatuses; seed
			// 18310679977200619616 went from 1 to 0 that way).
			if e.Work == "kubelet started" {
				clear(held)
				if in.Pod.Annotations["kubernetes.io/config.source"] != "api" {
					startTime, stored, finished = nil, nil, false
					clear(restarts)
				}
			}
		case KindStatus:
			st := e.Status.Status
			// The status manager sets the start time once and keeps it
			// (status_manager.go updateStatusInternal).
			if st.StartTime == nil || (startTime != nil && !st.StartTime.Equal(startTime)) {
				t.Fatalf("%s at %s: start time %v, earlier %v: it is set once and kept\n%s", name, e.At, st.StartTime, startTime, tl.Events())
			}
			startTime = st.StartTime
			// The status manager stores no status that takes a container
			// out of a terminated state its restart policy keeps it in
			// (status_manager.go checkContainerStateTransition).
			if err := podstatus.CheckTransition(&in.Pod.Spec, stored, &st, features.V1_37()); err != nil {
				t.Fatalf("%s at %s (%s): the status manager refuses this status: %v\n%s", name, e.At, e.Status.By, err, tl.Events())
			}
			stored = &e.Status.Status
			if e.Status.By == "TerminatePod" {
				finished = true
			}
			switch e.Status.By {
			case "SyncPod", "SyncTerminatingPod", "SyncTerminatedPod":
				pod := in.Pod.DeepCopy()
				pod.Status = *st.DeepCopy()
				pod.Generation = e.Status.Generation
				now := tl.Start.Add(e.At)
				m := podstatus.Check(pod, podstatus.RecomputeOptions{Now: now})
				if len(m) > 0 {
					if m2 := podstatus.Check(pod, podstatus.RecomputeOptions{Now: now, PodIsTerminal: true}); len(m2) == 0 {
						m = nil
					}
				}
				if len(m) > 0 && e.Status.By == "SyncTerminatingPod" && st.Reason == EvictedReason {
					// An eviction's status function set the phase, reason,
					// message and DisruptionTarget on a generated status
					// (kubelet.go SyncTerminatingPod): what was generated
					// had another phase and neither.
					for _, ph := range []v1.PodPhase{v1.PodPending, v1.PodRunning, v1.PodSucceeded, v1.PodFailed} {
						g := pod.DeepCopy()
						g.Status.Phase, g.Status.Reason, g.Status.Message = ph, "", ""
						var kept []v1.PodCondition
						for _, c := range g.Status.Conditions {
							if c.Type != v1.DisruptionTarget {
								kept = append(kept, c)
							}
						}
						g.Status.Conditions = kept
						if len(podstatus.Check(g, podstatus.RecomputeOptions{Now: now})) == 0 {
							m = nil
							break
						}
					}
				}
				if len(m) > 0 {
					t.Fatalf("%s at %s: a kubelet does not write this status: %v\n%+v\n%s", name, e.At, m, st.InitContainerStatuses, tl.Events())
				}
			}
			for _, l := range [][]v1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.EphemeralContainerStatuses} {
				for _, cs := range l {
					if cs.RestartCount < restarts[cs.Name] {
						t.Fatalf("%s at %s: restart count of %s went from %d to %d", name, e.At, cs.Name, restarts[cs.Name], cs.RestartCount)
					}
					restarts[cs.Name] = cs.RestartCount
				}
			}
		case KindProbe:
			// A liveness worker that reported a failure, and a startup
			// worker that reported anything, are on hold until the
			// container has a new ID (prober/worker.go onHold).
			k := e.Probe.Probe + " " + e.Probe.ID
			if held[k] {
				t.Fatalf("%s at %s: %s probe result %s for %s, whose worker is on hold\n%s", name, e.At, e.Probe.Probe, e.Probe.Result, e.Probe.ID, tl.Events())
			}
			if (e.Probe.Probe == "liveness" && e.Probe.Result == vocab.ProbeFailure) ||
				(e.Probe.Probe == "startup" && (e.Probe.Result == vocab.ProbeFailure || e.Probe.Result == vocab.ProbeSuccess)) {
				held[k] = true
			}
		case KindAPI:
			// The status manager deletes the API object only once
			// TerminatePod stored the final status (canBeDeleted reads
			// podIsFinished).
			if strings.HasPrefix(e.Message, "kubelet deleted the API object") && !finished {
				t.Fatalf("%s at %s: the kubelet deleted the API object before TerminatePod\n%s", name, e.At, tl.Events())
			}
			// A terminal phase reaches the API only once no container
			// can run (mergePodStatus): podstatus.Check with FromAPI
			// finds no running container beside it.
			if e.Status != nil && e.API == APIStatus {
				pod := in.Pod.DeepCopy()
				pod.Status = *e.Status.Status.DeepCopy()
				for _, m := range podstatus.Check(pod, podstatus.RecomputeOptions{Now: tl.Start.Add(e.At), FromAPI: true, PodIsTerminal: true}) {
					if strings.HasSuffix(m.Field, "].state") && m.Kubelet == "terminated" {
						t.Fatalf("%s at %s: the API status shows phase %s beside a running container: %v\n%s", name, e.At, pod.Status.Phase, m, tl.Events())
					}
				}
			}
		case KindPLEG:
			// The PLEG reports a container it last saw running (or in an
			// unknown state) and now cannot find as ContainerDied and
			// ContainerRemoved (pleg/generic.go generateEvents): every
			// removal follows a death.
			f := strings.Fields(e.Message)
			if len(f) == 2 && f[0] == "ContainerDied" {
				died[f[1]] = true
			}
			if len(f) == 2 && f[0] == "ContainerRemoved" && !died[f[1]] {
				t.Fatalf("%s at %s: PLEG ContainerRemoved %s with no ContainerDied before it\n%s", name, e.At, f[1], tl.Events())
			}
		case KindCRI:
			c := e.Call
			switch c.Method {
			case "StopPodSandbox":
				if _, ok := stopped[c.ID]; !ok {
					stopped[c.ID] = e.At + (c.Done - c.At)
				}
			case "CreateContainer":
				if at, ok := stopped[c.Sandbox]; ok && e.At > at && c.Error == "" {
					t.Fatalf("%s at %s: %s created in sandbox %s stopped at %s\n%s", name, e.At, c.Name, c.Sandbox, at, tl.Events())
				}
			}
		}
	}
	// No container of a stopped sandbox runs after the stop returned: every
	// container started in it has exited by then.
	for sb, at := range stopped {
		for _, e := range tl.Entries {
			if e.Pod != name || e.Kind != KindCRI || e.Call.Method != "CreateContainer" || e.Call.Sandbox != sb || e.At > at {
				continue
			}
			id := e.Call.ID
			if _, ok := tl.First(name, func(x Entry) bool {
				return x.Kind == KindExit && strings.Contains(x.Message, " "+id+" ") && x.At <= at
			}); !ok {
				if _, started := tl.First(name, func(x Entry) bool {
					return x.Kind == KindCRI && x.Call.Method == "StartContainer" && x.Call.ID == id && x.At <= at && x.Call.Error == ""
				}); started {
					t.Fatalf("%s: container %s of sandbox %s still runs after StopPodSandbox at %s\n%s", name, id, sb, at, tl.Events())
				}
			}
		}
	}
	checkGC(t, tl, name, span)
	// SyncTerminatedPod runs only once SyncTerminatingPod stopped every
	// container: no container the kubelet started still runs then.
	if done, ok := tl.First(name, func(x Entry) bool { return x.Kind == KindSync && x.Message == "terminated" }); ok {
		for _, e := range tl.Entries {
			if e.Pod != name || e.Kind != KindCRI || e.Call.Method != "StartContainer" || e.At > done.At || e.Call.Error != "" {
				continue
			}
			id := e.Call.ID
			if _, exited := tl.First(name, func(x Entry) bool {
				return x.Kind == KindExit && strings.Contains(x.Message, " "+id+" ") && x.At <= done.At
			}); !exited {
				t.Fatalf("%s: container %s still runs when the worker runs SyncTerminatedPod at %s\n%s", name, id, done.At, tl.Events())
			}
		}
	}
	// Deletion ends.
	for _, a := range in.Actions {
		gone := func() bool {
			_, ok := tl.First(name, func(x Entry) bool { return x.Kind == KindAPI && x.Message == "API object deleted" })
			return ok
		}
		switch {
		case a.Delete != nil && in.Pod.Annotations["kubernetes.io/config.source"] == "api":
			grace := 30 * time.Second
			if *a.Delete >= 0 {
				grace = time.Duration(*a.Delete) * time.Second
			}
			if a.At.D()+grace+3*time.Minute > span {
				continue
			}
			if gone() {
				continue
			}
			_, last := tl.LastStatus(name)
			held := len(in.Pod.Finalizers) > 0 && !removedFinalizers(in)
			if !held || last == nil || (last.Phase != v1.PodSucceeded && last.Phase != v1.PodFailed) {
				t.Fatalf("%s deleted at %s: neither gone nor held by a finalizer in a terminal phase by %s\n%s", name, a.At, span, tl.Events())
			}
		case a.Remove || a.Delete != nil:
			if a.At.D()+3*time.Minute > span {
				continue
			}
			// Terminated, or forgotten: an orphan of a restarted kubelet
			// ends with no SyncTerminatedPod (kubelet.go
			// SyncTerminatingRuntimePod), and one with nothing running
			// is never synced at all.
			if _, ok := tl.First(name, func(x Entry) bool {
				return x.Kind == KindSync && (x.Message == "terminated" || x.Work == "forgotten")
			}); !ok {
				t.Fatalf("%s removed at %s: the kubelet never finished with it\n%s", name, a.At, tl.Events())
			}
		}
	}
}

func removedFinalizers(in PodInput) bool {
	for _, a := range in.Actions {
		if a.RemoveFinalizers {
			return true
		}
	}
	return false
}

func condKey(conds []v1.PodCondition) string {
	var b strings.Builder
	for _, c := range conds {
		fmt.Fprintf(&b, "%s=%s ", c.Type, c.Status)
	}
	return b.String()
}

// TestStatusEqualFields fails when k8s.io/api gains a field statusEqual
// does not know: the list below is the fields it compares.
func TestStatusEqualFields(t *testing.T) {
	want := map[reflect.Type]string{
		reflect.TypeOf(v1.PodStatus{}):                "ObservedGeneration Phase Conditions Message Reason NominatedNodeName HostIP HostIPs PodIP PodIPs StartTime InitContainerStatuses ContainerStatuses QOSClass EphemeralContainerStatuses Resize ResourceClaimStatuses ExtendedResourceClaimStatus AllocatedResources Resources NodeAllocatableResourceClaimStatuses VolumeHealth",
		reflect.TypeOf(v1.ContainerStatus{}):          "Name State LastTerminationState Ready RestartCount Image ImageID ContainerID Started AllocatedResources Resources VolumeMounts User AllocatedResourcesStatus StopSignal",
		reflect.TypeOf(v1.PodCondition{}):             "Type ObservedGeneration Status LastProbeTime LastTransitionTime Reason Message",
		reflect.TypeOf(v1.ContainerStateTerminated{}): "ExitCode Signal Reason Message StartedAt FinishedAt ContainerID",
	}
	for typ, fields := range want {
		var got []string
		for i := 0; i < typ.NumField(); i++ {
			got = append(got, typ.Field(i).Name)
		}
		if strings.Join(got, " ") != fields {
			t.Errorf("%s has fields\n  %s\nstatusEqual knows\n  %s", typ, strings.Join(got, " "), fields)
		}
	}
}
