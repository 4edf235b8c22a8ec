package podgen

import (
	"flag"
	"fmt"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// This file holds the tests written for the mutants gremlins left alive in
// podgen on 2026-12-04 (issue 24; rows in
// tooling/mutation/gremlins/triage/podgen.md). Each checks a promise of a
// generator's doc comment.

// TestAPIStatusPromises checks APIStatus against its doc comment: a nil
// pod gives strangers only (and no panic: the repeated name is drawn
// only from a list that has one); 0-6
// conditions; a running or terminated status always carries a container
// ID (the kubelet's status of a container it created does), a waiting one
// now and then; terminated exit codes include the codes of the
// container's rules; regular statuses sorted by name whatever the spec
// order.
func TestAPIStatusPromises(t *testing.T) {
	seen := shapeSet{}
	seen.want("0 conditions", "6 conditions",
		"waiting with a container ID", "waiting without a container ID", "exit code 77 of a rule")
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{
		{Name: "c"}, {Name: "b", RestartPolicy: ptr(v1.ContainerRestartPolicyNever), RestartPolicyRules: []v1.ContainerRestartRule{{
			Action:    v1.ContainerRestartRuleActionRestart,
			ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{77}},
		}}}, {Name: "a"},
	}}}
	rapid.Check(t, func(rt *rapid.T) {
		for range 10 {
			s := APIStatus(nil, APIStatusOptions{}).Draw(rt, "status of nil")
			for _, cs := range s.ContainerStatuses {
				if cs.Name != "stranger" {
					rt.Fatalf("nil pod: status of %q", cs.Name)
				}
			}
			if len(s.InitContainerStatuses) != 0 {
				rt.Fatalf("nil pod: %d init statuses", len(s.InitContainerStatuses))
			}
		}
		for range 5 {
			s := APIStatus(pod, APIStatusOptions{NoStrangers: true}).Draw(rt, "status")
			if n := len(s.Conditions); n > 6 {
				rt.Fatalf("%d conditions", n)
			} else {
				seen.mark(fmt.Sprintf("%d conditions", n), true)
			}
			var names []string
			for _, cs := range s.ContainerStatuses {
				names = append(names, cs.Name)
				if (cs.State.Running != nil || cs.State.Terminated != nil) && cs.ContainerID == "" {
					rt.Fatalf("%s: running or terminated without a container ID: %+v", cs.Name, cs.State)
				}
				if cs.State.Waiting != nil {
					seen.mark("waiting with a container ID", cs.ContainerID != "")
					seen.mark("waiting without a container ID", cs.ContainerID == "")
				}
				for _, ts := range []*v1.ContainerStateTerminated{cs.State.Terminated, cs.LastTerminationState.Terminated} {
					if ts != nil && ts.ExitCode == 77 {
						if cs.Name != "b" {
							rt.Fatalf("%s: exit code 77 of another container's rule", cs.Name)
						}
						seen.mark("exit code 77 of a rule", true)
					}
				}
			}
			if !slices.IsSorted(names) {
				rt.Fatalf("statuses not sorted by name: %v", names)
			}
		}
	})
	seen.check(t)
}

// TestDescribeText checks the description of a container's resources and
// how text quotes an image.
func TestDescribeText(t *testing.T) {
	desc := func(c v1.Container) string {
		var b strings.Builder
		writeContainer(&b, &c, kindRegular)
		return b.String()
	}
	for _, tc := range []struct {
		rr   v1.ResourceRequirements
		want string
	}{
		{v1.ResourceRequirements{}, ""},
		{v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: mustQuantity("100m")}}, " resources=cpu:100m"},
		{v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceMemory: mustQuantity("64Mi")}}, " resources=memory:-/64Mi"},
	} {
		got := desc(v1.Container{Name: "app-0", Image: "busybox:1.36", Resources: tc.rr})
		rest := strings.TrimLeft(got[strings.Index(got, " hash=")+len(" hash="):], "0123456789")
		if rest != tc.want+"\n" {
			t.Errorf("resources %+v described as %q, want %q", tc.rr, rest, tc.want+"\n")
		}
	}
	for in, want := range map[string]string{
		"busybox:1.36": "busybox:1.36",
		"a~b!#":        "a~b!#",
		"":             "",
		"a b":          `"a b"`,
		"a\x7fb":       `"a\x7fb"`,
		`a"b`:          `"a\"b"`,
		`a\b`:          `"a\\b"`,
		"é":            `"é"`,
		"\x1f":         `"\x1f"`,
	} {
		if got := text(in); got != want {
			t.Errorf("text(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestOddTextHasAnEscapedCharacter: every odd text carries a character
// the container hash escapes or that is not printable ASCII, also when
// the drawn pieces are plain ones and spaces.
func TestOddTextHasAnEscapedCharacter(t *testing.T) {
	seen := shapeSet{}
	seen.want("a text of a plain piece and a space")
	rapid.Check(t, func(rt *rapid.T) {
		for range 20 {
			s := oddText(rt, "text")
			odd := strings.IndexFunc(s, func(r rune) bool {
				return r < 0x20 || r > 0x7e || strings.ContainsRune(`<>&"\`, r)
			}) >= 0
			if !odd {
				rt.Fatalf("odd text %q has nothing the hash escapes", s)
			}
			seen.mark("a text of a plain piece and a space", strings.Contains(s, " ") && strings.HasSuffix(s, "<") &&
				strings.Trim(s[:len(s)-1], "a-/:. ") == "")
		}
	})
	seen.check(t)
}

// TestRuleFrequency: restartPolicyRules go on about 60 % of the regular
// and regular init containers that have a restartPolicy, and on about
// 25 % of sidecars.
func TestRuleFrequency(t *testing.T) {
	var plain, plainRules, sidecars, sidecarRules int
	rapid.Check(t, func(rt *rapid.T) {
		for range 5 {
			pod := Pod(PodOptions{}).Draw(rt, "pod")
			for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
				for _, c := range list {
					if c.RestartPolicy == nil {
						continue
					}
					if *c.RestartPolicy == v1.ContainerRestartPolicyAlways && slices.ContainsFunc(pod.Spec.InitContainers, func(i v1.Container) bool { return i.Name == c.Name }) {
						sidecars++
						if c.RestartPolicyRules != nil {
							sidecarRules++
						}
						continue
					}
					plain++
					if c.RestartPolicyRules != nil {
						plainRules++
					}
				}
			}
		}
	})
	if plain < 100 || sidecars < 100 {
		t.Fatalf("only %d containers with a restartPolicy, %d sidecars", plain, sidecars)
	}
	p, s := 100*plainRules/plain, 100*sidecarRules/sidecars
	t.Logf("rules on %d %% of %d containers with a restartPolicy, %d %% of %d sidecars", p, plain, s, sidecars)
	if p < 48 || p > 72 || s < 13 || s > 37 {
		t.Errorf("rules on %d %% of containers with a restartPolicy (want about 60), %d %% of sidecars (want about 25)", p, s)
	}
}

// TestPodLevelResources: pod-level resources are absent or name at least
// one value; requests alone and requests with limits both appear.
func TestPodLevelResources(t *testing.T) {
	seen := shapeSet{}
	seen.want("pod-level requests only", "pod-level requests and limits")
	rapid.Check(t, func(rt *rapid.T) {
		for range 5 {
			pod := Pod(PodOptions{}).Draw(rt, "pod")
			rr := pod.Spec.Resources
			if rr == nil {
				continue
			}
			if len(rr.Requests) == 0 && len(rr.Limits) == 0 {
				rt.Fatalf("empty pod-level resources %+v", rr)
			}
			seen.mark("pod-level requests only", len(rr.Requests) > 0 && len(rr.Limits) == 0)
			seen.mark("pod-level requests and limits", len(rr.Requests) > 0 && len(rr.Limits) > 0)
		}
	})
	seen.check(t)
}

// TestActuatedPodLevelFrequency: for a pod without pod-level resources,
// Actuated records some "now and then" (the code asks for 17 % of draws:
// 20 % drawn, 85 % of those recorded; 11-16 % measured over 40 runs),
// not most of the time.
func TestActuatedPodLevelFrequency(t *testing.T) {
	var pods, recorded int
	rapid.Check(t, func(rt *rapid.T) {
		pod := Pod(PodOptions{NoPodResources: true}).Draw(rt, "pod")
		for range 10 {
			pods++
			if Actuated(pod).Draw(rt, "actuated").Pod != nil {
				recorded++
			}
		}
	})
	p := 100 * recorded / pods
	t.Logf("pod-level resources recorded for %d %% of %d pods without them", p, pods)
	if p < 6 || p > 35 {
		t.Errorf("pod-level resources recorded for %d %% of pods without them, want about 17", p)
	}
}

// TestTinyReportedReplacesValues: psTinyReported lowers the cpu values an
// instance reports; it never adds one the runtime did not report.
func TestTinyReportedReplacesValues(t *testing.T) {
	seen := shapeSet{}
	seen.want("tiny cpu request", "tiny cpu limit")
	rapid.Check(t, func(rt *rapid.T) {
		st := &runtimestate.Pod{Containers: []runtimestate.Container{
			{ID: "c1", Resources: &runtimestate.Resources{CPURequest: ptr(mustQuantity("500m"))}},
			{ID: "c2", Resources: &runtimestate.Resources{CPULimit: ptr(mustQuantity("1"))}},
			{ID: "c3", Resources: &runtimestate.Resources{MemoryRequest: ptr(mustQuantity("64Mi"))}},
		}}
		for range 10 {
			psTinyReported(rt, st)
		}
		r1, r2, r3 := st.Containers[0].Resources, st.Containers[1].Resources, st.Containers[2].Resources
		if r1.CPULimit != nil || r2.CPURequest != nil || r3.CPURequest != nil || r3.CPULimit != nil {
			rt.Fatalf("a cpu value added: %+v %+v %+v", r1, r2, r3)
		}
		seen.mark("tiny cpu request", r1.CPURequest.MilliValue() < 5)
		seen.mark("tiny cpu limit", r2.CPULimit.MilliValue() < 20)
	})
	seen.check(t)
}

// TestRuntimeStateOddities: without Realistic, each of the negative exit
// codes, a sandbox attempt that skips one and a network mode other than
// the pod's (not only "") appear; with Realistic every sandbox IP parses.
func TestRuntimeStateOddities(t *testing.T) {
	seen := shapeSet{}
	seen.want("exit code -1", "exit code -2", "exit code -137", "an attempt that skips one", "another network mode")
	rapid.Check(t, func(rt *rapid.T) {
		for range 3 {
			pod := Pod(PodOptions{}).Draw(rt, "pod")
			st := RuntimeState(pod, StateOptions{AllExited: 50}).Draw(rt, "state")
			for _, in := range st.Containers {
				if in.State == runtimestate.Exited && in.ExitCode < 0 {
					seen.mark(fmt.Sprintf("exit code %d", in.ExitCode), true)
				}
			}
			want := runtimestate.NamespacePod
			if pod.Spec.HostNetwork {
				want = runtimestate.NamespaceNode
			}
			for k, sb := range st.Sandboxes {
				seen.mark("another network mode", sb.NetworkMode != want && sb.NetworkMode != "")
				if k > 0 {
					// Newest first: the sandbox before is the newer one.
					seen.mark("an attempt that skips one", st.Sandboxes[k-1].Attempt == sb.Attempt+2)
				}
			}
			real := RuntimeState(pod, StateOptions{Realistic: true}).Draw(rt, "realistic state")
			for _, sb := range real.Sandboxes {
				for _, ip := range append([]string{sb.IP}, sb.AdditionalIPs...) {
					if _, err := netip.ParseAddr(ip); ip != "" && err != nil {
						rt.Fatalf("realistic sandbox %s: IP %q: %v", sb.ID, ip, err)
					}
				}
			}
		}
	})
	seen.check(t)
}

// failTB is a rapid.TB that records a failure instead of failing the test,
// so that a test can look at the value rapid shrinks a failure to.
type failTB struct {
	name   string
	failed bool
}

func (f *failTB) Helper()               {}
func (f *failTB) Name() string          { return f.name }
func (f *failTB) Logf(string, ...any)   {}
func (f *failTB) Log(...any)            {}
func (f *failTB) Skipf(string, ...any)  { runtime.Goexit() }
func (f *failTB) Skip(...any)           { runtime.Goexit() }
func (f *failTB) SkipNow()              { runtime.Goexit() }
func (f *failTB) Errorf(string, ...any) { f.failed = true }
func (f *failTB) Error(...any)          { f.failed = true }
func (f *failTB) Fatalf(string, ...any) { f.failed = true; runtime.Goexit() }
func (f *failTB) Fatal(...any)          { f.failed = true; runtime.Goexit() }
func (f *failTB) FailNow()              { f.failed = true; runtime.Goexit() }
func (f *failTB) Fail()                 { f.failed = true }
func (f *failTB) Failed() bool          { return f.failed }

// shrunk returns the value rapid shrinks gen's draws to under a property
// that fails on each value for which fails is true (rapid's fail file
// left unwritten).
func shrunk[V any](t *testing.T, gen *rapid.Generator[V], fails func(V) bool) V {
	t.Helper()
	f := flag.Lookup("rapid.nofailfile")
	old := f.Value.String()
	if err := f.Value.Set("true"); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Value.Set(old) }()
	var last V
	tb := &failTB{name: t.Name()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rapid.Check(tb, func(rt *rapid.T) {
			v := gen.Draw(rt, "value")
			if fails(v) {
				last = v
				rt.Fatal("fails")
			}
		})
	}()
	<-done
	if !tb.failed {
		t.Fatal("no draw failed")
	}
	return last
}

// TestShrinksTowardsPlain: the plainest choice is the one a minimized
// failure keeps (doc.go: optional parts shrink towards absent; weighted
// lists the plainest choice first): a failure that needs pod-level
// requests shrinks to a pod without pod-level limits.
func TestShrinksTowardsPlain(t *testing.T) {
	pod := shrunk(t, Pod(PodOptions{}), func(p *v1.Pod) bool {
		return p.Spec.Resources != nil && len(p.Spec.Resources.Requests) > 0
	})
	if rr := pod.Spec.Resources; len(rr.Limits) != 0 {
		t.Errorf("a failure needing pod-level requests shrank to pod-level resources %+v", rr)
	}

}
