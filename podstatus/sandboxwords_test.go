package podstatus

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// sandboxWords: the reason and message the kubelet writes with a
// PodReadyToStartContainers condition whose status is taken as given:
// none with True or before v1.37; from v1.37, PodSandboxNotReady and the
// status's message when it is one of the five, else the likeliest for
// the phase.
func TestSandboxWords(t *testing.T) {
	v137, err := features.ForVersion(features.V1_37_2)
	if err != nil {
		t.Fatal(err)
	}
	v136, err := features.ForVersion(features.V1_36_3)
	if err != nil {
		t.Fatal(err)
	}
	cond := func(s v1.ConditionStatus, msg string) v1.PodCondition {
		return v1.PodCondition{Type: v1.PodReadyToStartContainers, Status: s, Reason: "Whatever", Message: msg}
	}
	for _, c := range []struct {
		name         string
		c            v1.PodCondition
		ph           v1.PodPhase
		f            features.Set
		reason, mesg string
	}{
		{"True on v1.37", cond(v1.ConditionTrue, "x"), v1.PodRunning, v137, "", ""},
		{"False on v1.36", cond(v1.ConditionFalse, vocab.MsgNoPodSandbox), v1.PodPending, v136, "", ""},
		{"Unknown on v1.37", cond(v1.ConditionUnknown, ""), v1.PodPending, v137, "", ""},
		{"False with one of the five", cond(v1.ConditionFalse, vocab.MsgNoIPAddress), v1.PodRunning, v137, "PodSandboxNotReady", vocab.MsgNoIPAddress},
		{"False with the first of the five", cond(v1.ConditionFalse, vocab.MsgNoPodSandbox), v1.PodSucceeded, v137, "PodSandboxNotReady", vocab.MsgNoPodSandbox},
		{"False, no message, Pending", cond(v1.ConditionFalse, ""), v1.PodPending, v137, "PodSandboxNotReady", vocab.MsgNoPodSandbox},
		{"False, no message, Succeeded", cond(v1.ConditionFalse, ""), v1.PodSucceeded, v137, "PodSandboxNotReady", vocab.MsgSandboxNotReady},
		{"False, no message, Failed", cond(v1.ConditionFalse, ""), v1.PodFailed, v137, "PodSandboxNotReady", vocab.MsgSandboxNotReady},
		{"False, another message, Running", cond(v1.ConditionFalse, "sandbox gone"), v1.PodRunning, v137, "PodSandboxNotReady", vocab.MsgNoPodSandbox},
	} {
		r, m := sandboxWords(c.c, c.ph, c.f)
		if r != c.reason || m != c.mesg {
			t.Errorf("%s: %q %q, want %q %q", c.name, r, m, c.reason, c.mesg)
		}
	}
}
