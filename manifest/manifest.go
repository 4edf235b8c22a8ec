// Package manifest reads pods from what users hold: the output of
// `kubectl get pod -o yaml` (or -o json), a List of pods, or a workload
// manifest (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
// ReplicationController, PodTemplate), whose pod template becomes a pod.
// Several YAML documents in one input are fine; ReadSkipping also takes the
// objects that hold no pod beside them (a Service, a ConfigMap), as kubectl
// apply -f does.
//
// Decoding is strict: a field the Kubernetes API does not have (a typo such
// as `restartPolicey`) is an error that names the document and the field,
// since a silently dropped field would give a silently wrong answer.
//
// Pods read from a workload's template get the workload's namespace, the
// workload's name as their name (kubectl would add a generated suffix) and
// the template's labels and annotations. A Job's or CronJob's template keeps
// its restartPolicy. Nothing is defaulted here: a hand-written manifest may
// lack fields the API server fills in (see package apidefaults).
package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/kubeletlogic/kubeletlogic/internal/yamljson"
)

// Source says where a pod was read from.
type Source struct {
	// Document is the document's index in the input, from 0.
	Document int
	// Kind and Name are the kind and name of the object the pod came
	// from: "Pod" for a pod, or the workload whose template it is.
	Kind, Name string
	// Item is the index within a List, or -1.
	Item int
}

func (s Source) String() string {
	out := fmt.Sprintf("document %d", s.Document)
	if s.Item >= 0 {
		out += fmt.Sprintf(", item %d", s.Item)
	}
	if s.Kind != "" {
		out += ": " + s.Kind
		if s.Name != "" {
			out += "/" + s.Name
		}
	}
	return out
}

// Item is one pod read from the input.
type Item struct {
	Pod    *v1.Pod
	Source Source
}

// Read returns every pod in r, in input order. Empty documents are skipped;
// an input holding no pod at all is an error, and so is an object of a kind
// that holds no pod (see ReadSkipping). Each error names the document (and
// List item) it comes from.
func Read(r io.Reader) ([]Item, error) {
	items, _, err := read(r, false)
	return items, err
}

// ReadSkipping is Read for what kubectl apply -f takes: an object of a kind
// that holds no pod (a Service, a ConfigMap, a ServiceAccount beside a
// Deployment) is skipped and returned in skipped, a document or a List
// item each, in input order. An input with no pod at all is still the
// error Read gives for its first such object; every other error is Read's.
func ReadSkipping(r io.Reader) (items []Item, skipped []Source, err error) {
	return read(r, true)
}

// noPodError is the error for an object of a kind that holds no pod.
type noPodError struct {
	src  Source
	kind string
}

func (e *noPodError) Error() string {
	return fmt.Sprintf("manifest: %s: kind %q holds no pod (want Pod, List, PodList, PodTemplate, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob or ReplicationController)", e.src, e.kind)
}

// read is Read, and with skip ReadSkipping.
func read(r io.Reader, skip bool) ([]Item, []Source, error) {
	var skipped []Source
	var firstNoPod error
	d := decoder{skip: func(e *noPodError) {
		skipped = append(skipped, e.src)
		if firstNoPod == nil {
			firstNoPod = e
		}
	}}
	if !skip {
		d.skip = nil
	}
	yr := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var out []Item
	for doc := 0; ; doc++ {
		raw, err := yr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("manifest: document %d: %w", doc, err)
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		js, err := yamljson.ToJSON(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("manifest: document %d: %w", doc, err)
		}
		if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
			continue
		}
		items, err := d.decodeObject(js, Source{Document: doc, Item: -1})
		if err != nil {
			return nil, nil, err
		}
		out = append(out, items...)
	}
	if len(out) == 0 {
		if firstNoPod != nil {
			return nil, nil, firstNoPod
		}
		return nil, nil, errors.New("manifest: no pod found (expected a Pod, a List of pods, or a workload with a pod template)")
	}
	return out, skipped, nil
}

// decoder decodes objects; skip, when set, takes the objects of a kind
// that holds no pod instead of failing on them.
type decoder struct {
	skip func(*noPodError)
}

// Pods is Read without the sources.
func Pods(r io.Reader) ([]*v1.Pod, error) {
	items, err := Read(r)
	if err != nil {
		return nil, err
	}
	out := make([]*v1.Pod, len(items))
	for i, it := range items {
		out[i] = it.Pod
	}
	return out, nil
}

// Pod reads exactly one pod from data (YAML or JSON); more than one is an
// error.
func Pod(data []byte) (*v1.Pod, error) {
	items, err := Read(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if len(items) != 1 {
		return nil, fmt.Errorf("manifest: %d pods found, want exactly one (use Read for several)", len(items))
	}
	return items[0].Pod, nil
}

// stripComments drops YAML comment lines, so a document of comments only
// counts as empty.
func stripComments(raw []byte) []byte {
	var b bytes.Buffer
	for _, l := range strings.Split(string(raw), "\n") {
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") || t == "---" {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

type typeOnly struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

func (d decoder) decodeObject(js []byte, src Source) ([]Item, error) {
	var tm typeOnly
	if err := json.Unmarshal(js, &tm); err != nil {
		return nil, fmt.Errorf("manifest: %s: %w", src, err)
	}
	src.Kind = tm.Kind
	switch tm.Kind {
	case "Pod":
		var pod v1.Pod
		if err := strict(js, &pod, src); err != nil {
			return nil, err
		}
		src.Name = pod.Name
		return []Item{{Pod: &pod, Source: src}}, nil
	case "List", "PodList":
		var list struct {
			APIVersion string            `json:"apiVersion"`
			Kind       string            `json:"kind"`
			Metadata   metav1.ListMeta   `json:"metadata"`
			Items      []json.RawMessage `json:"items"`
		}
		if err := strict(js, &list, src); err != nil {
			return nil, err
		}
		var out []Item
		for i, it := range list.Items {
			s := src
			s.Kind, s.Item = "", i
			items, err := d.decodeObject(it, s)
			if err != nil {
				return nil, err
			}
			out = append(out, items...)
		}
		return out, nil
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicationController", "PodTemplate":
		meta, t, err := workloadTemplate(js, tm.Kind, src)
		if err != nil {
			return nil, err
		}
		src.Name = meta.Name
		if t == nil || len(t.Spec.Containers) == 0 {
			return nil, fmt.Errorf("manifest: %s: no pod template (its template has no containers)", src)
		}
		return []Item{{Pod: fromTemplate(meta, t), Source: src}}, nil
	case "":
		return nil, fmt.Errorf("manifest: %s: no kind (is this a Kubernetes object?)", src)
	}
	e := &noPodError{src: src, kind: tm.Kind}
	if d.skip == nil {
		return nil, e
	}
	if n, ok := objectName(js); ok {
		e.src.Name = n
	}
	d.skip(e)
	return nil, nil
}

// objectName is the metadata.name of an object, when it has one.
func objectName(js []byte) (string, bool) {
	var o struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(js, &o) != nil || o.Metadata.Name == "" {
		return "", false
	}
	return o.Metadata.Name, true
}

func fromTemplate(owner metav1.ObjectMeta, t *v1.PodTemplateSpec) *v1.Pod {
	pod := &v1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: *t.ObjectMeta.DeepCopy(),
		Spec:       *t.Spec.DeepCopy(),
	}
	if pod.Name == "" {
		pod.Name = owner.Name
	}
	if pod.Namespace == "" {
		pod.Namespace = owner.Namespace
	}
	return pod
}

// strict decodes js into v, rejecting fields v's type lacks.
func strict(js []byte, v any, src Source) error {
	d := json.NewDecoder(bytes.NewReader(js))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("manifest: %s: %w", src, err)
	}
	return nil
}

// workloadTemplate decodes a workload of the given kind strictly and
// returns its metadata and pod template (nil when it has none).
func workloadTemplate(js []byte, kind string, src Source) (metav1.ObjectMeta, *v1.PodTemplateSpec, error) {
	switch kind {
	case "Deployment":
		var o appsv1.Deployment
		err := strict(js, &o, src)
		return o.ObjectMeta, &o.Spec.Template, err
	case "ReplicaSet":
		var o appsv1.ReplicaSet
		err := strict(js, &o, src)
		return o.ObjectMeta, &o.Spec.Template, err
	case "StatefulSet":
		var o appsv1.StatefulSet
		err := strict(js, &o, src)
		return o.ObjectMeta, &o.Spec.Template, err
	case "DaemonSet":
		var o appsv1.DaemonSet
		err := strict(js, &o, src)
		return o.ObjectMeta, &o.Spec.Template, err
	case "Job":
		var o batchv1.Job
		err := strict(js, &o, src)
		return o.ObjectMeta, &o.Spec.Template, err
	case "CronJob":
		var o batchv1.CronJob
		err := strict(js, &o, src)
		return o.ObjectMeta, &o.Spec.JobTemplate.Spec.Template, err
	case "ReplicationController":
		var o v1.ReplicationController
		err := strict(js, &o, src)
		return o.ObjectMeta, o.Spec.Template, err
	case "PodTemplate":
		var o v1.PodTemplate
		err := strict(js, &o, src)
		return o.ObjectMeta, &o.Template, err
	}
	return metav1.ObjectMeta{}, nil, fmt.Errorf("manifest: %s: unsupported kind %q", src, kind)
}
