package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The API-server mode: etcd (embedded, ./etcd) and kube-apiserver on
// loopback, the kubelet registered as node kl-capture, pods POSTed with
// spec.nodeName and deleted through the API.

const apiToken = "kl-capture-token"

// gateCondition is the readiness gate's condition type.
const gateCondition = "kubeletlogic.io/gate"

var apiClient = &http.Client{
	Timeout:   10 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
}

func apiDo(method, path, ctype string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, "https://127.0.0.1:6443"+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+apiToken)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	r, err := apiClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, b, nil
}

func apiGetPod(name string) *APIObject {
	code, b, err := apiDo("GET", "/api/v1/namespaces/default/pods/"+name, "", nil)
	if err != nil {
		return nil
	}
	if code == http.StatusNotFound {
		return &APIObject{Gone: true}
	}
	return answeredPod(b)
}

// answeredPod decodes an API answer holding a pod (nil for anything else,
// such as a Status refusing a write).
func answeredPod(b []byte) *APIObject {
	var p v1.Pod
	if json.Unmarshal(b, &p) != nil || p.Kind != "Pod" {
		return nil
	}
	return &APIObject{ResourceVersion: p.ResourceVersion, Generation: p.Generation, DeletionTimestamp: p.DeletionTimestamp,
		DeletionGracePeriodSeconds: p.DeletionGracePeriodSeconds, Finalizers: p.Finalizers, Status: p.Status}
}

// startControlPlane starts etcd and kube-apiserver and returns them, with
// the kubelet's kubeconfig path.
func startControlPlane(work, etcdBin, apiBin string) (etcd, api *proc, kubeconfig string, err error) {
	pki := filepath.Join(work, "pki")
	_ = os.MkdirAll(pki, 0o700)
	for _, c := range [][]string{
		{"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", filepath.Join(pki, "serving.key"), "-out", filepath.Join(pki, "serving.crt"),
			"-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"},
		{"genrsa", "-out", filepath.Join(pki, "sa.key"), "2048"},
		{"rsa", "-in", filepath.Join(pki, "sa.key"), "-pubout", "-out", filepath.Join(pki, "sa.pub")},
	} {
		if o, err := exec.Command("openssl", c...).CombinedOutput(); err != nil {
			return nil, nil, "", fmt.Errorf("openssl %v: %v: %s", c[0], err, o)
		}
	}
	if err := writeFile(filepath.Join(pki, "tokens.csv"), apiToken+",admin,admin,\"system:masters\"\n"); err != nil {
		return nil, nil, "", err
	}
	etcd, err = start("etcd", filepath.Join(work, "logs", "etcd.log"), etcdBin, "-data-dir", filepath.Join(work, "etcd-data"))
	if err != nil {
		return nil, nil, "", err
	}
	time.Sleep(2 * time.Second)
	api, err = start("kube-apiserver", filepath.Join(work, "logs", "kube-apiserver.log"), apiBin,
		"--etcd-servers=http://127.0.0.1:2379", "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=6443", "--tls-cert-file="+filepath.Join(pki, "serving.crt"), "--tls-private-key-file="+filepath.Join(pki, "serving.key"),
		"--token-auth-file="+filepath.Join(pki, "tokens.csv"), "--authorization-mode=AlwaysAllow",
		"--service-account-issuer=https://kubernetes.default.svc", "--service-account-key-file="+filepath.Join(pki, "sa.pub"),
		"--service-account-signing-key-file="+filepath.Join(pki, "sa.key"), "--service-cluster-ip-range=10.96.0.0/24",
		"--endpoint-reconciler-type=none", "--disable-admission-plugins=ServiceAccount")
	if err != nil {
		return etcd, nil, "", err
	}
	if err := waitFor(90*time.Second, func() bool {
		code, _, err := apiDo("GET", "/readyz", "", nil)
		return err == nil && code == 200
	}); err != nil {
		return etcd, api, "", fmt.Errorf("kube-apiserver not ready: %w", err)
	}
	kubeconfig = filepath.Join(work, "kubelet.kubeconfig")
	err = writeFile(kubeconfig, `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}
users:
- name: kubelet
  user: {token: `+apiToken+`}
contexts:
- name: local
  context: {cluster: local, user: kubelet}
current-context: local
`)
	return etcd, api, kubeconfig, err
}

// apiScenarios are the scenarios that need the API server.
func apiScenarios() []Scenario {
	app := ctr("app", exitOnTerm)
	app.Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"sh", "-c", "sleep 4"}}}}
	del := pod("api-delete-grace", v1.RestartPolicyAlways, 20, []v1.Container{sidecar("sidecar", exitOnTerm)}, app)
	fin := pod("api-finalizer", v1.RestartPolicyAlways, 20, nil, ctr("app", exitOnTerm))
	fin.Finalizers = []string{"kubeletlogic.io/hold"}
	eph := pod("api-ephemeral", v1.RestartPolicyAlways, 2, nil, ctr("app", exitOnTerm))
	for _, p := range []*v1.Pod{del, fin, eph} {
		p.Spec.NodeName = nodeName
		p.Spec.AutomountServiceAccountToken = ptr(false)
	}
	gate := pod("api-readiness-gate", v1.RestartPolicyAlways, 2, nil, ctr("app", exitOnTerm))
	gate.Spec.ReadinessGates = []v1.PodReadinessGate{{ConditionType: gateCondition}}
	rs := ctr("app", exitOnTerm)
	rs.Resources = v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("64Mi")},
		Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("64Mi")},
	}
	rs.ResizePolicy = []v1.ContainerResizePolicy{
		{ResourceName: v1.ResourceCPU, RestartPolicy: v1.NotRequired},
		{ResourceName: v1.ResourceMemory, RestartPolicy: v1.RestartContainer},
	}
	rsz := pod("api-resize", v1.RestartPolicyAlways, 2, nil, rs)
	for _, p := range []*v1.Pod{gate, rsz} {
		p.Spec.NodeName = nodeName
		p.Spec.AutomountServiceAccountToken = ptr(false)
	}
	// Issue 26: a terminal pod DELETEd (the API server removes it at
	// once) and a pod with an emptyDir volume DELETEd with a short grace
	// (the kubelet's final delete waits for the volume's unmount).
	done := pod("api-delete-succeeded", v1.RestartPolicyNever, 20, nil, ctr("app", "sleep 2; exit 0"))
	vol := ctr("app", exitOnTerm)
	vol.VolumeMounts = []v1.VolumeMount{{Name: "data", MountPath: "/data"}}
	volPod := pod("api-delete-volume", v1.RestartPolicyAlways, 2, nil, vol)
	volPod.Spec.Volumes = []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
	for _, p := range []*v1.Pod{done, volPod} {
		p.Spec.NodeName = nodeName
		p.Spec.AutomountServiceAccountToken = ptr(false)
	}
	res := func(cpu, mem string) string {
		return fmt.Sprintf(`{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":%q,"memory":%q},"limits":{"cpu":%q,"memory":%q}}}]}}`, cpu, mem, cpu, mem)
	}
	return []Scenario{
		{Name: "api-readiness-gate", Description: "readiness gate " + gateCondition + ": the condition is set True through the status subresource at 10 s, False at 25 s; DELETEd at 35 s",
			Pod: gate, RemoveAfter: 35 * time.Second,
			Actions: []Action{{At: 10 * time.Second, Kind: "set-condition", Name: gateCondition, Value: "True"},
				{At: 25 * time.Second, Kind: "set-condition", Name: gateCondition, Value: "False"}}},
		{Name: "api-resize", Description: "Guaranteed app (cpu 100m, memory 64Mi; resizePolicy cpu NotRequired, memory RestartContainer) resized through the resize subresource: " +
			"cpu 200m at 10 s, memory 96Mi at 25 s, cpu 100m at 40 s, memory 64Mi at 55 s, cpu 1000 (more than the node's allocatable: the API server's PodResizeValidator refuses it) at 65 s; " +
			"a second pod " + hogName + " (cpu 1500m) is created at 68 s, the app resized to cpu 600m at 75 s (it fits the node's allocatable, not next to the other pod: the kubelet defers it), " +
			hogName + " DELETEd at 90 s (the deferred resize can then be admitted); DELETEd at 105 s",
			Pod: rsz, RemoveAfter: 105 * time.Second,
			Actions: []Action{
				{At: 10 * time.Second, Kind: "resize", Value: res("200m", "64Mi")},
				{At: 25 * time.Second, Kind: "resize", Value: res("200m", "96Mi")},
				{At: 40 * time.Second, Kind: "resize", Value: res("100m", "96Mi")},
				{At: 55 * time.Second, Kind: "resize", Value: res("100m", "64Mi")},
				{At: 65 * time.Second, Kind: "resize", Value: res("1000", "64Mi")},
				{At: 68 * time.Second, Kind: "create-other", Name: hogName},
				{At: 75 * time.Second, Kind: "resize", Value: res("600m", "64Mi")},
				{At: 90 * time.Second, Kind: "delete-other", Name: hogName},
			}},
		{Name: "api-delete-grace", Description: "pod with a native sidecar and an app with a 4 s preStop, grace 20 s, DELETEd through the API at 15 s",
			Facts: []string{"10", "11"}, Pod: del, RemoveAfter: 15 * time.Second},
		{Name: "api-finalizer", Description: "pod with a finalizer, grace 20 s, DELETEd at 12 s; the finalizer is removed 30 s later",
			Facts: []string{"12"}, Pod: fin, RemoveAfter: 12 * time.Second,
			Actions: []Action{{At: 42 * time.Second, Kind: "remove-finalizers"}}},
		{Name: "api-ephemeral", Description: "running pod; an ephemeral container debugger (sleep 3600) is added at 10 s; DELETEd at 25 s",
			Pod: eph, RemoveAfter: 25 * time.Second,
			Actions: []Action{{At: 10 * time.Second, Kind: "add-ephemeral", Name: "debugger"}}},
		{Name: "api-delete-succeeded", Description: "restartPolicy Never, app `sleep 2; exit 0` (grace 20 s): DELETEd (default grace) at the first poll (every 50 ms) " +
			"of the API object that shows phase Succeeded; the API server deletes a terminal pod at once (grace 0); the first 404 after the DELETE is recorded",
			Pod: done, RemoveAfter: 30 * time.Second, DeleteOnPhase: v1.PodSucceeded, WatchGone: true},
		{Name: "api-delete-volume", Description: "app runs the trap loop with an emptyDir volume mounted at /data, grace 2 s, DELETEd at 12 s: the kubelet's final delete " +
			"waits for the volume's unmount (SyncTerminatedPod); the first 404 after the DELETE is recorded",
			Pod: volPod, RemoveAfter: 12 * time.Second, WatchGone: true},
	}
}

// written names, for an event, the object version the API server answered
// a write with: " (resourceVersion N, generation G)", or "" when the answer
// is not an object. The replay uses it to tell a status last written by the
// harness (a condition set, a resize, a DELETE) from one the kubelet wrote.
func written(out []byte) string {
	var m struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
			Generation      int64  `json:"generation"`
		} `json:"metadata"`
	}
	if json.Unmarshal(out, &m) != nil || m.Metadata.ResourceVersion == "" {
		return ""
	}
	return fmt.Sprintf(" (resourceVersion %s, generation %d)", m.Metadata.ResourceVersion, m.Metadata.Generation)
}

// hogName is the pod api-resize creates to hold most of the node's cpu
// (not observed, no fixture of its own).
const hogName = "api-resize-hog"

// hogPod requests cpu 1500m of the node's 2 (the node's allocatable on the
// 2-core capture machine is 2000m; nothing is reserved), so that a later
// resize of api-resize to cpu 600m fits the node but not next to it.
func hogPod() *v1.Pod {
	c := ctr("hog", exitOnTerm)
	c.Resources = v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1500m"), v1.ResourceMemory: resource.MustParse("16Mi")},
		Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("1500m"), v1.ResourceMemory: resource.MustParse("16Mi")},
	}
	p := pod(hogName, v1.RestartPolicyAlways, 2, nil, c)
	p.Spec.NodeName = nodeName
	p.Spec.AutomountServiceAccountToken = ptr(false)
	return p
}

// apiScenarioRun creates the pod through the API, runs the actions in time
// order (the DELETE at RemoveAfter among them) and returns when all ran.
func apiScenarioRun(st *state, s Scenario) {
	b, _ := json.Marshal(s.Pod)
	t0 := time.Now()
	code, out, err := apiDo("POST", "/api/v1/namespaces/default/pods", "application/json", b)
	st.eventObj(s.Name, fmt.Sprintf("pod created (POST: %d %v%s %.200s)", code, err, written(out), out), answeredPod(out))
	acts := append([]Action{{At: s.RemoveAfter, Kind: "delete"}}, s.Actions...)
	for len(acts) > 0 {
		k := 0
		for i := range acts {
			if acts[i].At < acts[k].At {
				k = i
			}
		}
		a := acts[k]
		acts = append(acts[:k], acts[k+1:]...)
		if a.Kind == "delete" && s.DeleteOnPhase != "" {
			waitPhase(st, s, t0.Add(a.At))
		} else {
			time.Sleep(time.Until(t0.Add(a.At)))
		}
		path := "/api/v1/namespaces/default/pods/" + s.Pod.Name
		switch a.Kind {
		case "delete":
			st.event(s.Name, "pod deleted")
			code, out, err = apiDo("DELETE", path, "", nil)
			st.eventObj(s.Name, fmt.Sprintf("DELETE answered %d %v%s %.200s", code, err, written(out), out), answeredPod(out))
			if s.WatchGone {
				go watchGone(st, s.Name, path)
			}
		case "remove-finalizers":
			code, out, err = apiDo("PATCH", path, "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`))
			st.eventObj(s.Name, fmt.Sprintf("finalizers removed: PATCH %d %v%s %.200s", code, err, written(out), out), answeredPod(out))
		case "set-condition":
			patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []map[string]any{{
				"type": a.Name, "status": a.Value, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}}}})
			code, out, err = apiDo("PATCH", path+"/status", "application/strategic-merge-patch+json", patch)
			st.eventObj(s.Name, fmt.Sprintf("condition %s set %s: PATCH status %d %v%s %.200s", a.Name, a.Value, code, err, written(out), out), answeredPod(out))
		case "resize":
			code, out, err = apiDo("PATCH", path+"/resize", "application/strategic-merge-patch+json", []byte(a.Value))
			st.eventObj(s.Name, fmt.Sprintf("resize %s: PATCH resize %d %v%s %.500s", a.Value, code, err, written(out), out), answeredPod(out))
		case "create-other":
			b, _ := json.Marshal(hogPod())
			code, out, err = apiDo("POST", "/api/v1/namespaces/default/pods", "application/json", b)
			st.event(s.Name, fmt.Sprintf("other pod %s created (POST: %d %v%s %.200s)", a.Name, code, err, written(out), out))
		case "delete-other":
			code, out, err = apiDo("DELETE", "/api/v1/namespaces/default/pods/"+a.Name, "", nil)
			st.event(s.Name, fmt.Sprintf("other pod %s deleted (DELETE: %d %v%s %.200s)", a.Name, code, err, written(out), out))
		case "add-ephemeral":
			ec := v1.EphemeralContainer{EphemeralContainerCommon: v1.EphemeralContainerCommon{
				Name: a.Name, Image: imageName, ImagePullPolicy: v1.PullNever,
				Command: []string{"sh", "-c", "sleep 3600"}, TerminationMessagePolicy: v1.TerminationMessageReadFile}}
			patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"ephemeralContainers": []v1.EphemeralContainer{ec}}})
			code, out, err = apiDo("PATCH", path+"/ephemeralcontainers", "application/strategic-merge-patch+json", patch)
			st.eventObj(s.Name, fmt.Sprintf("ephemeral container %s added: PATCH %d %v%s %.200s", a.Name, code, err, written(out), out), answeredPod(out))
		}
	}
}

// watchGone polls the pod every 50 ms after its DELETE (for 90 s at most)
// and records the first 404.
func watchGone(st *state, name, path string) {
	end := time.Now().Add(90 * time.Second)
	for time.Now().Before(end) {
		code, _, err := apiDo("GET", path, "", nil)
		if err == nil && code == http.StatusNotFound {
			st.event(name, "pod gone from the API (GET 404)")
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	st.event(name, "pod still in the API 90 s after the DELETE")
}

// waitPhase polls s's pod every 50 ms until the API object shows phase
// s.DeleteOnPhase (recorded as an event with the object: the 250 ms
// observation poll may miss a phase the DELETE then ends) or until
// deadline.
func waitPhase(st *state, s Scenario, deadline time.Time) {
	for time.Now().Before(deadline) {
		if o := apiGetPod(s.Pod.Name); o != nil && !o.Gone && o.Status.Phase == s.DeleteOnPhase {
			st.eventObj(s.Name, "phase "+string(s.DeleteOnPhase)+" seen in the API object (resourceVersion "+o.ResourceVersion+")", o)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
