package sim_test

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

func sec(s float64) sim.Duration { return sim.Seconds(s) }

// apiPod is a pod that came from the API server.
func apiPod(name string, spec v1.PodSpec) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"kubernetes.io/config.source": "api"}},
		Spec:       spec,
	}
}

// "This Job's sidecar crashes at 30 s: when does the pod finish, and in
// which phase?" The Job's pod (restartPolicy Never) has a native sidecar
// that exits with code 1 after 30 s and a worker that finishes after 60 s.
// The kubelet restarts the sidecar (sidecars always restart), the pod
// succeeds when the worker exits, and the kubelet then stops the sidecar.
func Example_jobSidecarCrash() {
	always := v1.ContainerRestartPolicyAlways
	pod := apiPod("job-x7k2p", v1.PodSpec{
		RestartPolicy:  v1.RestartPolicyNever,
		InitContainers: []v1.Container{{Name: "proxy", Image: "envoy", RestartPolicy: &always}},
		Containers:     []v1.Container{{Name: "worker", Image: "batch"}},
	})
	tl, err := sim.Simulate(sim.Config{Seed: 1, For: sec(120)}, []sim.PodInput{{
		Pod: pod,
		Script: sim.Script{Containers: map[string]sim.Behaviour{
			"proxy":  {Runs: []sim.Run{{ExitAfter: sec(30), ExitCode: 1}, {TermAfter: sec(0.2)}}},
			"worker": {Runs: []sim.Run{{ExitAfter: sec(60)}}},
		}},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(tl.Watch())
	if e, ok := tl.First("job-x7k2p", func(e sim.Entry) bool {
		return e.Kind == sim.KindAPI && e.Status != nil && e.Status.Status.Phase == v1.PodSucceeded
	}); ok {
		fmt.Printf("phase Succeeded written at %s\n", e.At.Round(time.Millisecond))
	}
	// Output:
	// AT        NAME        READY   STATUS            RESTARTS      AGE
	// 0.000s    job-x7k2p   0/2     Pending           0             0s
	// 0.000s    job-x7k2p   0/2     Init:0/1          0             0s
	// 0.289s    job-x7k2p   0/2     Init:0/1          0             0s
	// 0.368s    job-x7k2p   1/2     PodInitializing   0             0s
	// 0.447s    job-x7k2p   2/2     Running           0             0s
	// 30.373s   job-x7k2p   1/2     Init:Error        0             30s
	// 30.452s   job-x7k2p   2/2     Running           1 (0s ago)    30s
	// 60.508s   job-x7k2p   1/2     Completed         1 (30s ago)   60s
	// 60.764s   job-x7k2p   0/2     Completed         1 (30s ago)   60s
	// 61.539s   job-x7k2p   0/2     Completed         1 (31s ago)   61s
	// phase Succeeded written at 1m1.539s
}

// "How long until a crash-looping container is restarted for the 8th
// time, and what does kubectl get pod -w show meanwhile?"
func Example_crashLoop() {
	pod := apiPod("web", v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "web:1.2"}}})
	tl, err := sim.Simulate(sim.Config{Seed: 1, For: 20 * sim.Minute}, []sim.PodInput{{
		Pod:    pod,
		Script: sim.Script{Containers: map[string]sim.Behaviour{"app": {Runs: []sim.Run{{ExitAfter: sec(2), ExitCode: 1}}}}},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(tl.Watch())
	if e, ok := tl.First("web", func(e sim.Entry) bool {
		return e.Kind == sim.KindCRI && e.Call.Method == "StartContainer" && e.Call.ID == "web-app-8"
	}); ok {
		fmt.Printf("8th restart: StartContainer at %s\n", e.At.Round(time.Second))
	}
	// Output:
	// AT          NAME   READY   STATUS              RESTARTS        AGE
	// 0.000s      web    0/1     Pending             0               0s
	// 0.000s      web    0/1     ContainerCreating   0               0s
	// 0.289s      web    0/1     ContainerCreating   0               0s
	// 0.368s      web    1/1     Running             0               0s
	// 3.252s      web    0/1     Error               0               3s
	// 3.331s      web    1/1     Running             1 (1s ago)      3s
	// 6.265s      web    0/1     Error               1 (4s ago)      6s
	// 16.972s     web    0/1     CrashLoopBackOff    1 (11s ago)     16s
	// 17.051s     web    1/1     Running             2 (12s ago)     17s
	// 19.324s     web    0/1     Error               2 (14s ago)     19s
	// 48.972s     web    0/1     CrashLoopBackOff    2 (29s ago)     48s
	// 49.051s     web    1/1     Running             3 (30s ago)     49s
	// 51.468s     web    0/1     Error               3 (32s ago)     51s
	// 94.972s     web    0/1     CrashLoopBackOff    3 (43s ago)     94s
	// 95.051s     web    1/1     Running             4 (44s ago)     95s
	// 97.675s     web    0/1     Error               4 (46s ago)     97s
	// 176.972s    web    0/1     CrashLoopBackOff    4 (79s ago)     2m56s
	// 178.051s    web    1/1     Running             5 (81s ago)     2m58s
	// 181.048s    web    0/1     Error               5 (84s ago)     3m1s
	// 255.972s    web    0/1     CrashLoopBackOff    5 (75s ago)     4m15s
	// 347.051s    web    1/1     Running             6 (2m47s ago)   5m47s
	// 349.804s    web    0/1     Error               6 (2m49s ago)   5m49s
	// 439.972s    web    0/1     CrashLoopBackOff    6 (90s ago)     7m19s
	// 669.051s    web    1/1     Running             7 (5m20s ago)   11m
	// 671.244s    web    0/1     Error               7 (5m22s ago)   11m
	// 733.972s    web    0/1     CrashLoopBackOff    7 (62s ago)     12m
	// 989.051s    web    1/1     Running             8 (5m18s ago)   16m
	// 991.680s    web    0/1     Error               8 (5m20s ago)   16m
	// 1076.972s   web    0/1     CrashLoopBackOff    8 (85s ago)     17m
	// 8th restart: StartContainer at 16m29s
}

// "We delete the pod at 60 s: which StopContainer calls, when, and when
// does the API object go?" Grace 20 s; the app's preStop hook runs 4 s;
// the sidecar has its own preStop sleep of 3 s and exits at once on
// SIGTERM; the app ignores SIGTERM.
func Example_deleteWithSidecar() {
	always := v1.ContainerRestartPolicyAlways
	grace := int64(20)
	pod := apiPod("api", v1.PodSpec{
		TerminationGracePeriodSeconds: &grace,
		InitContainers: []v1.Container{{Name: "sidecar", Image: "log-shipper", RestartPolicy: &always,
			Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 3}}}}},
		Containers: []v1.Container{{Name: "app", Image: "api:3",
			Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}}}},
	})
	del := int64(-1)
	tl, err := sim.Simulate(sim.Config{Seed: 1, For: sec(120)}, []sim.PodInput{{
		Pod: pod,
		Script: sim.Script{Containers: map[string]sim.Behaviour{
			"app":     {Runs: []sim.Run{{IgnoreSIGTERM: true, PreStop: sec(4)}}},
			"sidecar": {Runs: []sim.Run{{TermAfter: sec(0.1)}}},
		}},
		Actions: []sim.Action{{At: sec(60), Delete: &del}},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(tl.String())
	// Output:
	// AT        NAME   READY   STATUS            RESTARTS   AGE
	// 0.000s    api    0/2     Pending           0          0s
	// 0.000s    api    0/2     Init:0/1          0          0s
	// 0.289s    api    0/2     Init:0/1          0          0s
	// 0.368s    api    1/2     PodInitializing   0          0s
	// 0.447s    api    2/2     Running           0          0s
	// 60.000s   api    2/2     Terminating       0          60s
	// 80.156s   api    0/2     Error             0          80s
	// 80.598s   api            (deleted)                    80s
	//
	// CRI calls:
	//    0.000s  api  RunPodSandbox attempt 0 -> api-sandbox-0
	//    0.289s  api  CreateContainer sidecar (restart 0) -> api-sidecar-0
	//    0.300s  api  StartContainer sidecar api-sidecar-0
	//    0.368s  api  CreateContainer app (restart 0) -> api-app-0
	//    0.379s  api  StartContainer app api-app-0
	//   60.000s  api  ExecSync app api-app-0 (preStop hook, 4s)
	//   64.000s  api  StopContainer app api-app-0 timeout 16s (SIGKILL)
	//   80.000s  api  StopContainer sidecar api-sidecar-0 timeout 2s
	//   80.130s  api  StopPodSandbox api-sandbox-0
	//   80.598s  api  RemoveContainer app api-app-0 (container clean-up)
	//   80.598s  api  RemoveContainer sidecar api-sidecar-0 (container clean-up)
	//   91.779s  api  StopPodSandbox api-sandbox-0 (container GC)
	//   91.804s  api  RemovePodSandbox api-sandbox-0 (container GC)
}
