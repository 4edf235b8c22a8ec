// Adapter for the kubeletlogic differential tests (phase and conditions);
// written for this project.
//
// This file lives in tooling/differential/_adapters/ (ignored by the go tool) and is
// added to the vendored k8s.io/kubernetes/pkg/kubelet package only through
// `go test -overlay` (see tooling/differential/setup.sh).

package kubelet

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober"
	"k8s.io/kubernetes/pkg/kubelet/status"
	testingclock "k8s.io/utils/clock/testing"
)

// KLPhaseGetPhase calls getPhase.
func KLPhaseGetPhase(pod *v1.Pod, info []v1.ContainerStatus, podIsTerminal, podHasInitialized bool) v1.PodPhase {
	return klGetPhase(pod, info, podIsTerminal, podHasInitialized)
}

// KLPhaseShouldEvict asks the kubelet's active-deadline pod sync handler,
// built over a fake clock set to now and a status provider that holds
// cached (nil: none), whether pod must be evicted.
func KLPhaseShouldEvict(pod *v1.Pod, cached *v1.PodStatus, now time.Time) (evict bool, reason, message string) {
	h, err := newActiveDeadlineHandler(&klPhaseStatusManager{cached: cached}, &record.FakeRecorder{}, testingclock.NewFakeClock(now))
	if err != nil {
		panic(err)
	}
	r := h.ShouldEvict(pod)
	return r.Evict, r.Reason, r.Message
}

// KLPhaseGenerateAPIPodStatus calls generateAPIPodStatus on a Kubelet that
// holds only what that method reads: a status manager whose cached status
// is cached (nil: none) and whose resize conditions are resize, the
// active-deadline handler over a fake clock set to now, a probe manager
// whose UpdatePodStatus calls probeHook (which may be nil) with the status
// generated so far, a stub container manager, an empty reason cache, no API
// client and no node IPs.
func KLPhaseGenerateAPIPodStatus(pod *v1.Pod, podStatus *kubecontainer.PodStatus, podIsTerminal bool,
	cached *v1.PodStatus, resize []*v1.PodCondition, now time.Time, probeHook func(*v1.PodStatus)) v1.PodStatus {
	sm := &klPhaseStatusManager{cached: cached, resize: resize}
	kl := &Kubelet{
		statusManager:    sm,
		probeManager:     klPhaseProber{hook: probeHook},
		containerManager: cm.NewStubContainerManager(),
		reasonCache:      NewReasonCache(),
	}
	h, err := newActiveDeadlineHandler(sm, &record.FakeRecorder{}, testingclock.NewFakeClock(now))
	if err != nil {
		panic(err)
	}
	kl.AddPodSyncHandler(h)
	return klGenerateAPIPodStatus(kl, pod, podStatus, podIsTerminal)
}

// klPhaseStatusManager answers the status-manager calls
// generateAPIPodStatus makes; any other call panics (nil Manager).
type klPhaseStatusManager struct {
	status.Manager
	cached *v1.PodStatus
	resize []*v1.PodCondition
}

func (m *klPhaseStatusManager) GetPodStatus(types.UID) (v1.PodStatus, bool) {
	if m.cached == nil {
		return v1.PodStatus{}, false
	}
	return *m.cached.DeepCopy(), true
}

func (m *klPhaseStatusManager) GetPodResizeConditions(types.UID) []*v1.PodCondition {
	out := make([]*v1.PodCondition, 0, len(m.resize))
	for _, c := range m.resize {
		out = append(out, c.DeepCopy())
	}
	return out
}

func (m *klPhaseStatusManager) ClearPodResizeInProgressCondition(types.UID) (int64, bool) {
	return 0, false
}

// klPhaseProber stands in for the probe manager.
type klPhaseProber struct {
	prober.Manager
	hook func(*v1.PodStatus)
}

func (p klPhaseProber) UpdatePodStatus(_ context.Context, _ *v1.Pod, s *v1.PodStatus) {
	if p.hook != nil {
		p.hook(s)
	}
}
