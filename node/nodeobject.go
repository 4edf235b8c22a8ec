package node

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// NodeSpec describes one node that [Standalone] registers.
type NodeSpec struct {
	// Name is the node's name (a DNS subdomain, unique among the nodes of
	// one Standalone). Required.
	Name string
	// InternalIP is the node's InternalIP address (IPv4 or IPv6). Required:
	// a real node always reports one; Numbered assigns them from a range.
	InternalIP string
	// Labels are added to the kubelet's default labels (hostname, os,
	// arch); a label given here overrides a default one, as the kubelet's
	// --node-labels do.
	Labels map[string]string
	// Taints are the node's taints at registration, as the kubelet's
	// --register-with-taints.
	Taints []v1.Taint
	// Capacity is the node's capacity; nil means DefaultCapacity. It must
	// hold cpu, memory and pods (the kubelet reports the node NotReady
	// without them, and so does Standalone refuse it).
	Capacity v1.ResourceList
	// Allocatable is the node's allocatable; nil means Capacity minus the
	// kubelet's default hard-eviction reservation (memory.available<100Mi,
	// nodefs.available<10% of ephemeral-storage), which is what a kubelet
	// with no kube-reserved or system-reserved reports.
	Allocatable v1.ResourceList
	// OS and Arch are the node's kubernetes.io/os and kubernetes.io/arch;
	// empty means linux and amd64. The kubelet writes its own build's
	// values, a simulated node has none, so they are an input.
	OS, Arch string
}

// DefaultCapacity is the capacity of a node whose NodeSpec.Capacity is
// nil: 4 CPUs, 16 GiB of memory, 110 pods (the kubelet's default maxPods),
// 100 GiB of ephemeral storage and no huge pages.
func DefaultCapacity() v1.ResourceList {
	return v1.ResourceList{
		v1.ResourceCPU:              resource.MustParse("4"),
		v1.ResourceMemory:           resource.MustParse("16Gi"),
		v1.ResourcePods:             resource.MustParse("110"),
		v1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
		"hugepages-1Gi":             resource.MustParse("0"),
		"hugepages-2Mi":             resource.MustParse("0"),
	}
}

// Numbered returns n node specs named prefix-0 … prefix-(n-1) with
// InternalIPs 10.88.0.1, 10.88.0.2, … (10.88.0.0/16, at most 65,534 nodes)
// and the default capacity.
func Numbered(prefix string, n int) ([]NodeSpec, error) {
	if n < 0 || n > 65534 {
		return nil, fmt.Errorf("node: Numbered: %d nodes: want 0 to 65534", n)
	}
	out := make([]NodeSpec, n)
	for i := range out {
		out[i] = NodeSpec{Name: fmt.Sprintf("%s-%d", prefix, i), InternalIP: fmt.Sprintf("10.88.%d.%d", (i+1)/256, (i+1)%256)}
	}
	return out, nil
}

// The kubelet's labels and annotation (k8s.io/api/core/v1 well-known
// labels; pkg/kubelet/apis: the beta OS and arch labels; the volume
// util's controller-managed attach-detach annotation).
const (
	labelBetaOS          = "beta.kubernetes.io/os"
	labelBetaArch        = "beta.kubernetes.io/arch"
	annotationManagedCAD = "volumes.kubernetes.io/controller-managed-attach-detach"
	kubeletPort          = 10250
)

// validate checks one spec and fills its defaults; it returns a copy.
func (s NodeSpec) validate() (NodeSpec, error) {
	if errs := validation.IsDNS1123Subdomain(s.Name); len(errs) > 0 {
		return s, fmt.Errorf("node: name %q: %s", s.Name, strings.Join(errs, "; "))
	}
	ip, err := netip.ParseAddr(s.InternalIP)
	if err != nil {
		return s, fmt.Errorf("node %s: InternalIP %q: %v", s.Name, s.InternalIP, err)
	}
	s.InternalIP = ip.String()
	for k, v := range s.Labels {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return s, fmt.Errorf("node %s: label key %q: %s", s.Name, k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return s, fmt.Errorf("node %s: label %s value %q: %s", s.Name, k, v, strings.Join(errs, "; "))
		}
	}
	for _, t := range s.Taints {
		if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
			return s, fmt.Errorf("node %s: taint key %q: %s", s.Name, t.Key, strings.Join(errs, "; "))
		}
		switch t.Effect {
		case v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute:
		default:
			return s, fmt.Errorf("node %s: taint %s: effect %q: want NoSchedule, PreferNoSchedule or NoExecute", s.Name, t.Key, t.Effect)
		}
	}
	if s.Capacity == nil {
		s.Capacity = DefaultCapacity()
	}
	for _, r := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods} {
		if _, ok := s.Capacity[r]; !ok {
			return s, fmt.Errorf("node %s: capacity has no %s (the kubelet reports such a node NotReady)", s.Name, r)
		}
	}
	if s.Allocatable == nil {
		s.Allocatable = allocatableOf(s.Capacity)
	}
	for r, q := range s.Allocatable {
		c, ok := s.Capacity[r]
		if !ok {
			return s, fmt.Errorf("node %s: allocatable %s is not in capacity", s.Name, r)
		}
		if q.Cmp(c) > 0 {
			return s, fmt.Errorf("node %s: allocatable %s %s exceeds capacity %s", s.Name, r, q.String(), c.String())
		}
	}
	if s.OS == "" {
		s.OS = "linux"
	}
	if s.Arch == "" {
		s.Arch = "amd64"
	}
	return s, nil
}

// allocatableOf is capacity minus the kubelet's default hard-eviction
// reservation (pkg/kubelet/cm/helpers.go: hardEvictionReservation with
// pkg/kubelet/eviction/defaults_linux.go: DefaultEvictionHard), each value
// floored at zero, and memory further reduced by the huge pages' capacity,
// as pkg/kubelet/nodestatus/setters.go: MachineInfo computes it.
func allocatableOf(capacity v1.ResourceList) v1.ResourceList {
	out := v1.ResourceList{}
	for r, q := range capacity {
		q = q.DeepCopy()
		switch r {
		case v1.ResourceMemory:
			q.Sub(resource.MustParse("100Mi"))
		case v1.ResourceEphemeralStorage:
			q.Sub(*resource.NewQuantity(int64(float64(q.Value())*0.1), resource.BinarySI))
		}
		if q.Sign() < 0 {
			q.Set(0)
		}
		out[r] = q
	}
	for r, q := range capacity {
		if !strings.HasPrefix(string(r), v1.ResourceHugePagesPrefix) {
			continue
		}
		if m, ok := out[v1.ResourceMemory]; ok {
			m.Sub(q)
			if m.Sign() < 0 {
				m.Set(0)
			}
			out[v1.ResourceMemory] = m
		}
	}
	return out
}

// initialNode is the node the kubelet creates at registration
// (pkg/kubelet/kubelet_node_status.go: initialNode, then setNodeStatus).
func initialNode(s NodeSpec, f features.Set, now time.Time) *v1.Node {
	n := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: s.Name,
			Labels: map[string]string{
				v1.LabelHostname:   s.Name,
				v1.LabelOSStable:   s.OS,
				v1.LabelArchStable: s.Arch,
				labelBetaOS:        s.OS,
				labelBetaArch:      s.Arch,
			},
			Annotations: map[string]string{annotationManagedCAD: "true"},
		},
	}
	for k, v := range s.Labels {
		n.Labels[k] = v
	}
	if len(s.Taints) > 0 {
		n.Spec.Taints = append([]v1.Taint(nil), s.Taints...)
	}
	setNodeStatus(n, s, f, now)
	return n
}

// machineID is a stable identifier derived from the node's name, standing
// in for the machine ID, system UUID and boot ID cadvisor reads on a real
// node.
func machineID(name string) string {
	h := sha256.Sum256([]byte("kubeletlogic-node/" + name))
	return hex.EncodeToString(h[:16])
}

// setNodeStatus runs the kubelet's status setters that a simulated node
// has (pkg/kubelet/kubelet_node_status.go: defaultNodeStatusFuncs, in its
// order): NodeAddress, MachineInfo, VersionInfo, DaemonEndpoints, Images
// (none), GoRuntime, then the MemoryPressure, DiskPressure, PIDPressure
// and Ready conditions (pkg/kubelet/nodestatus/setters.go). There is no
// eviction manager, runtime or network to fail, so the pressures are False
// and Ready is True.
func setNodeStatus(n *v1.Node, s NodeSpec, f features.Set, now time.Time) {
	n.Status.Addresses = []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: s.InternalIP}, {Type: v1.NodeHostName, Address: s.Name}}
	n.Status.Capacity = s.Capacity.DeepCopy()
	n.Status.Allocatable = s.Allocatable.DeepCopy()
	id := machineID(s.Name)
	n.Status.NodeInfo = v1.NodeSystemInfo{
		MachineID:               id,
		SystemUUID:              id,
		BootID:                  id,
		KernelVersion:           "kubeletlogic",
		OSImage:                 "kubeletlogic simulated node",
		ContainerRuntimeVersion: "kubeletlogic://" + f.Version().String(),
		KubeletVersion:          f.Version().String(),
		// DisableNodeKubeProxyVersion is on in every modelled version: the
		// kubelet clears kubeProxyVersion.
		KubeProxyVersion: "",
		OperatingSystem:  s.OS,
		Architecture:     s.Arch,
	}
	n.Status.DaemonEndpoints = v1.NodeDaemonEndpoints{KubeletEndpoint: v1.DaemonEndpoint{Port: kubeletPort}}
	t := metav1.NewTime(now)
	pressure := func(typ v1.NodeConditionType, reason, message string) {
		for i := range n.Status.Conditions {
			c := &n.Status.Conditions[i]
			if c.Type != typ {
				continue
			}
			c.LastHeartbeatTime = t
			if c.Status != v1.ConditionFalse {
				c.Status, c.Reason, c.Message, c.LastTransitionTime = v1.ConditionFalse, reason, message, t
			}
			return
		}
		n.Status.Conditions = append(n.Status.Conditions, v1.NodeCondition{Type: typ, Status: v1.ConditionFalse,
			Reason: reason, Message: message, LastHeartbeatTime: t, LastTransitionTime: t})
	}
	pressure(v1.NodeMemoryPressure, "KubeletHasSufficientMemory", "kubelet has sufficient memory available")
	pressure(v1.NodeDiskPressure, "KubeletHasNoDiskPressure", "kubelet has no disk pressure")
	pressure(v1.NodePIDPressure, "KubeletHasSufficientPID", "kubelet has sufficient PID available")
	ready := v1.NodeCondition{Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "KubeletReady",
		Message: "kubelet is posting ready status", LastHeartbeatTime: t}
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == v1.NodeReady {
			ready.LastTransitionTime = n.Status.Conditions[i].LastTransitionTime
			if n.Status.Conditions[i].Status != ready.Status {
				ready.LastTransitionTime = t
			}
			n.Status.Conditions[i] = ready
			return
		}
	}
	ready.LastTransitionTime = t
	n.Status.Conditions = append(n.Status.Conditions, ready)
}

// nodeStatusHasChanged mirrors pkg/kubelet/kubelet_node_status.go:
// nodeStatusHasChanged: the conditions compared by type with their
// heartbeat times ignored, the rest of the status compared semantically.
func nodeStatusHasChanged(old, cur *v1.NodeStatus) bool {
	if len(old.Conditions) != len(cur.Conditions) {
		return true
	}
	oc := append([]v1.NodeCondition(nil), old.Conditions...)
	cc := append([]v1.NodeCondition(nil), cur.Conditions...)
	sort.SliceStable(oc, func(i, j int) bool { return oc[i].Type < oc[j].Type })
	sort.SliceStable(cc, func(i, j int) bool { return cc[i].Type < cc[j].Type })
	for i := range cc {
		oc[i].LastHeartbeatTime, cc[i].LastHeartbeatTime = metav1.Time{}, metav1.Time{}
		if !apiequality.Semantic.DeepEqual(oc[i], cc[i]) {
			return true
		}
	}
	o, c := old.DeepCopy(), cur.DeepCopy()
	o.Conditions, c.Conditions = nil, nil
	return !apiequality.Semantic.DeepEqual(o, c)
}
