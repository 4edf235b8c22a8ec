package node

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

func TestKwokOwns(t *testing.T) {
	def := labels.SelectorFromSet(labels.Set{"kwok.x-k8s.io/node": "fake"})
	none := labels.Everything()
	pool, _ := labels.Parse("pool in (a,b)")
	addrs := []v1.NodeAddress{{Type: v1.NodeHostName, Address: "n"}, {Type: v1.NodeInternalIP, Address: "not-an-ip"},
		{Type: v1.NodeInternalIP, Address: "10.1.2.3"}, {Type: v1.NodeInternalIP, Address: "10.9.9.9"}}
	mk := func(ann, lbl map[string]string, a []v1.NodeAddress) *v1.Node {
		return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Annotations: ann, Labels: lbl}, Status: v1.NodeStatus{Addresses: a}}
	}
	fake := map[string]string{"kwok.x-k8s.io/node": "fake"}
	for _, c := range []struct {
		name     string
		n        *v1.Node
		ann, lbl labels.Selector
		match    bool
		ip       string
		ready    bool
	}{
		{"annotated", mk(fake, nil, addrs), def, none, true, "10.1.2.3", false},
		{"annotated, Ready, no address", readyNode(mk(fake, nil, nil), v1.ConditionTrue), def, none, true, "", true},
		{"annotated, not Ready", readyNode(mk(fake, nil, addrs), v1.ConditionFalse), def, none, true, "10.1.2.3", false},
		{"not annotated, Ready", readyNode(mk(nil, nil, addrs), v1.ConditionTrue), def, none, false, "", false},
		// kwok selects by annotation: the same key as a label is not it.
		{"label, not annotation", mk(nil, fake, addrs), def, none, false, "", false},
		{"other value", mk(map[string]string{"kwok.x-k8s.io/node": "real"}, nil, addrs), def, none, false, "", false},
		{"no address yet", mk(fake, nil, nil), def, none, true, "", false},
		{"label selector too", mk(fake, map[string]string{"pool": "b"}, addrs), def, pool, true, "10.1.2.3", false},
		{"label selector fails", mk(fake, map[string]string{"pool": "c"}, addrs), def, pool, false, "", false},
		{"label selector alone", mk(nil, map[string]string{"pool": "a"}, addrs), none, pool, true, "10.1.2.3", false},
	} {
		match, ip, ready := kwokOwns(c.n, c.ann, c.lbl)
		if match != c.match || ip != c.ip || ready != c.ready {
			t.Errorf("%s: kwokOwns = %v %q %v: want %v %q %v", c.name, match, ip, ready, c.match, c.ip, c.ready)
		}
	}
}

func readyNode(n *v1.Node, s v1.ConditionStatus) *v1.Node {
	n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeMemoryPressure, Status: v1.ConditionFalse}, {Type: v1.NodeReady, Status: s}}
	return n
}

func TestKwokPodCIDR(t *testing.T) {
	for _, c := range []struct {
		cidr string
		want string
	}{
		{"10.50.3.0/24", "10.50.3.0/24"},
		{"10.50.0.0/16", "10.50.0.0/16"},
		{"10.50.3.7/24", "10.50.3.0/24"},
		{"10.50.3.0/26", ""}, // too small for .2 to .254
		{"fd00::/64", ""},
		{"", ""},
	} {
		p, ok := kwokPodCIDR(&v1.Node{Spec: v1.NodeSpec{PodCIDR: c.cidr}})
		got := ""
		if ok {
			got = p.String()
		}
		if got != c.want {
			t.Errorf("podCIDR %q: got %q, want %q", c.cidr, got, c.want)
		}
	}
}

func TestNewKwok(t *testing.T) {
	var client kubernetes.Interface = &kubernetes.Clientset{}
	k, err := NewKwok(client, KwokSelector{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := k.ann.String(); got != DefaultKwokNodeSelector {
		t.Errorf("zero selector: annotations %q, want %q", got, DefaultKwokNodeSelector)
	}
	if !k.lbl.Empty() {
		t.Errorf("zero selector: labels %q, want none", k.lbl)
	}
	k, err = NewKwok(client, KwokSelector{Labels: "pool=a"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !k.ann.Empty() || k.lbl.String() != "pool=a" {
		t.Errorf("labels only: annotations %q labels %q: want none and pool=a", k.ann, k.lbl)
	}
	for _, c := range []struct {
		name   string
		client kubernetes.Interface
		sel    KwokSelector
		o      Options
		want   string
	}{
		{"nil client", nil, KwokSelector{}, Options{}, "nil client"},
		{"bad annotation selector", client, KwokSelector{Annotations: "a=(b"}, Options{}, "annotation selector"},
		{"bad label selector", client, KwokSelector{Labels: "a in b"}, Options{}, "label selector"},
		{"lease", client, KwokSelector{}, Options{LeaseDurationSeconds: 40}, "kwok keeps the nodes"},
		{"status", client, KwokSelector{}, Options{StatusUpdateFrequency: time.Second}, "kwok keeps the nodes"},
		{"disabled", client, KwokSelector{}, Options{Pods: PodOptions{Disabled: true}}, "only drives pods"},
	} {
		if _, err := NewKwok(c.client, c.sel, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v: want one containing %q", c.name, err, c.want)
		}
	}
}
