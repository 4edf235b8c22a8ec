package sim

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// mixedPods is the benchmark's node: n pods, a quarter of each kind:
//   - a crash loop (exits 1 after 5 s, restartPolicy Always);
//   - a web server with liveness and readiness probes (period 10 s) whose
//     readiness fails for a minute every run and whose liveness fails after
//     20 minutes;
//   - a Job pod (restartPolicy Never) with a native sidecar that crashes
//     after 2 minutes and a worker that finishes after 10 minutes;
//   - a pod with a preStop hook and a sidecar, deleted after 15 minutes
//     (grace 30 s; the app ignores SIGTERM).
func mixedPods(n int) []PodInput {
	always := v1.ContainerRestartPolicyAlways
	api := map[string]string{"kubernetes.io/config.source": "api"}
	probeSpec := func() *v1.Probe {
		return &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"check"}}}, PeriodSeconds: 10}
	}
	var out []PodInput
	for i := 0; i < n; i++ {
		meta := metav1.ObjectMeta{Name: fmt.Sprintf("pod-%05d", i), Annotations: api}
		in := PodInput{At: Duration(time.Duration(i%600) * 100 * time.Millisecond)}
		switch i % 4 {
		case 0:
			in.Pod = &v1.Pod{ObjectMeta: meta, Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "crash:1"}}}}
			in.Script.Containers = map[string]Behaviour{"app": {Runs: []Run{{ExitAfter: Duration(5 * time.Second), ExitCode: 1}}}}
		case 1:
			in.Pod = &v1.Pod{ObjectMeta: meta, Spec: v1.PodSpec{Containers: []v1.Container{{Name: "web", Image: "web:1",
				LivenessProbe: probeSpec(), ReadinessProbe: probeSpec()}}}}
			in.Script.Containers = map[string]Behaviour{"web": {Runs: []Run{{
				TermAfter: Duration(time.Second),
				Readiness: []ProbeStep{{At: Duration(time.Minute), Result: vocab.ProbeFailure}, {At: Duration(2 * time.Minute), Result: vocab.ProbeSuccess}},
				Liveness:  []ProbeStep{{At: Duration(20 * time.Minute), Result: vocab.ProbeFailure}},
			}}}}
		case 2:
			in.Pod = &v1.Pod{ObjectMeta: meta, Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyNever,
				InitContainers: []v1.Container{{Name: "proxy", Image: "proxy:1", RestartPolicy: &always}},
				Containers:     []v1.Container{{Name: "worker", Image: "job:1"}}}}
			in.Script.Containers = map[string]Behaviour{
				"proxy":  {Runs: []Run{{ExitAfter: Duration(2 * time.Minute), ExitCode: 1}, {}}},
				"worker": {Runs: []Run{{ExitAfter: Duration(10 * time.Minute)}}},
			}
		case 3:
			grace := int64(-1)
			in.Pod = &v1.Pod{ObjectMeta: meta, Spec: v1.PodSpec{
				InitContainers: []v1.Container{{Name: "sidecar", Image: "log:1", RestartPolicy: &always}},
				Containers: []v1.Container{{Name: "app", Image: "api:1",
					Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}}}}}}
			in.Script.Containers = map[string]Behaviour{
				"app":     {Runs: []Run{{IgnoreSIGTERM: true, PreStop: Duration(5 * time.Second)}}},
				"sidecar": {Runs: []Run{{TermAfter: Duration(100 * time.Millisecond)}}},
			}
			in.Actions = []Action{{At: in.At + Duration(15*time.Minute), Delete: &grace}}
		}
		out = append(out, in)
	}
	return out
}

// BenchmarkNode simulates the mixed node for an hour of virtual time, on
// one core and on all of them. It reports pod syncs per second of real
// time (per core for the one-core run), and the bytes allocated per pod.
// Entries are counted through Config.Observe, not kept.
//
//	go test ./sim -run '^$' -bench Node -benchtime 1x
//
// syncs/s/core divides by wall time: on a shared machine it measures the
// load as much as the engine; the process's CPU time (/usr/bin/time) and
// allocs/op do not.
func BenchmarkNode(b *testing.B) {
	for _, size := range []int{1000, 10000} {
		pods := mixedPods(size)
		for _, par := range []int{1, runtime.GOMAXPROCS(0), 0} {
			// par 0: the default node, whose pods share the runtime
			// (RuntimeContention) and run one at a time in time order; the
			// others the independent engine (RuntimeContention -1), the
			// one issue 25's figures measure, on 1 and on every core.
			name := fmt.Sprintf("pods=%d/cores=%d", size, par)
			contention := Duration(-1)
			if par == 0 {
				name, par, contention = fmt.Sprintf("pods=%d/shared-runtime", size), 1, 0
			}
			b.Run(name, func(b *testing.B) {
				var entries atomic.Int64
				cfg := Config{Seed: 1, For: Duration(time.Hour), Parallelism: par, RuntimeContention: contention, Observe: func(Entry) { entries.Add(1) }}
				b.ReportAllocs()
				syncs := 0
				start := time.Now()
				for i := 0; i < b.N; i++ {
					tl, err := Simulate(cfg, pods)
					if err != nil {
						b.Fatal(err)
					}
					syncs += tl.Syncs
				}
				elapsed := time.Since(start).Seconds()
				b.ReportMetric(float64(syncs)/elapsed/float64(par), "syncs/s/core")
				b.ReportMetric(float64(syncs)/float64(b.N)/float64(size), "syncs/pod")
				b.ReportMetric(float64(entries.Load())/float64(b.N)/float64(size), "entries/pod")
			})
		}
	}
}

// BenchmarkNodeMemory reports the peak live heap while 1,000 mixed pods
// are simulated for 10 minutes and for an hour (entries streamed through
// Observe, so only the simulation's own state lives): the figure per pod
// should not grow with the length of the run. The heap is sampled every
// millisecond after a forced collection, so it is an estimate.
//
//	go test ./sim -run '^$' -bench NodeMemory -benchtime 1x
func BenchmarkNodeMemory(b *testing.B) {
	pods := mixedPods(1000)
	for _, length := range []time.Duration{10 * time.Minute, time.Hour} {
		b.Run(fmt.Sprintf("for=%s", length), func(b *testing.B) {
			cfg := Config{Seed: 1, For: Duration(length), Parallelism: 1, Observe: func(Entry) {}}
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			var peak atomic.Uint64
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				var ms runtime.MemStats
				for {
					select {
					case <-stop:
						return
					case <-time.After(time.Millisecond):
					}
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
				}
			}()
			for i := 0; i < b.N; i++ {
				if _, err := Simulate(cfg, pods); err != nil {
					b.Fatal(err)
				}
			}
			close(stop)
			<-done
			grown := int64(peak.Load()) - int64(base.HeapInuse)
			b.ReportMetric(float64(grown)/1000, "peak-heap-B/pod")
		})
	}
}
