package sim

import (
	"maps"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/restart"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/termination"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// statusMemo remembers that SyncPod generated, from a set of inputs, a
// status equal to the one the status manager held, so stored nothing: a
// later SyncPod with the same inputs generates the same status and stores
// nothing either, and skips both steps. The inputs are the pod, the pod
// cache's runtime state and the cached status, none of which is ever
// changed in place (each is replaced), so their pointers stand for them;
// the reason cache and the probe results, which are changed in place, by
// copies of their contents; and the gates. The clock is read only for
// activeDeadlineSeconds: a pod with one is never skipped. (The status
// manager's step reads the clock only for what differs from the cached
// status, which here nothing does.)
type statusMemo struct {
	valid         bool
	pod           *v1.Pod
	runtime       *runtimestate.Pod
	cached        *v1.PodStatus
	features      features.Set
	startFailures map[string]vocab.StartFailure
	probes        map[string]vocab.ProbeResults
	resize        ResizeConditions // the pointers: set* makes new conditions
	phase         v1.PodPhase      // of the status generated
	hits          int              // status steps skipped
	// spareCalls is the call list of a sync that has played out (empty,
	// its capacity kept), for the next sync's calls.
	spareCalls    []Call
	spareMessages []string
	// keys are the back-off keys made so far (backOffKey).
	keys []backOffKeyOf
	// text is decision's buffer and lastDecision the last text it
	// returned.
	text         []byte
	lastDecision string
	// lastLine is the sync entry's line for lastDecision ("" when the
	// decision has more than one line).
	lastLine string
	// decisions are the last texts made (a pod's decisions take turns:
	// start, wait, kill), nextDecision the one to replace next.
	decisions    [4]decisionText
	nextDecision int
	// failureLines are the start failures' lines made so far.
	failureLines []failureLine
}

// backOffKeyOf is the back-off key of a container of a pod: the spec's
// containers are never changed in place (a new spec has new ones), so the
// pointer with the pod's identity stands for what the key hashes.
type backOffKeyOf struct {
	name, namespace string
	uid             types.UID
	c               *v1.Container
	key             string
}

// backOffKey is restart.BackOffKey, made once per container of the spec.
func (memo *statusMemo) backOffKey(pod *v1.Pod, c *v1.Container) string {
	if memo == nil {
		return restart.BackOffKey(pod, c)
	}
	for _, k := range memo.keys {
		if k.c == c && k.name == pod.Name && k.namespace == pod.Namespace && k.uid == pod.UID {
			return k.key
		}
	}
	key := restart.BackOffKey(pod, c)
	if len(memo.keys) >= 16 {
		memo.keys = memo.keys[:0]
	}
	memo.keys = append(memo.keys, backOffKeyOf{name: pod.Name, namespace: pod.Namespace, uid: pod.UID, c: c, key: key})
	return key
}

// decision is computePodActions' answer in words (Actions.String); most
// syncs repeat the last one, whose string is then returned again.
func (memo *statusMemo) decision(acts podactions.Actions) string {
	if memo == nil {
		return acts.String()
	}
	memo.text = acts.AppendString(memo.text[:0])
	if string(memo.text) == memo.lastDecision {
		return memo.lastDecision
	}
	for _, d := range memo.decisions {
		if d.decision != "" && d.decision == string(memo.text) {
			memo.lastDecision, memo.lastLine = d.decision, d.line
			return memo.lastDecision
		}
	}
	// The sync entry's line is made with the text, which is a substring
	// of it when it is one line (syncLine).
	prefix := termination.SyncPod.String() + ": "
	line := prefix + string(memo.text)
	if strings.IndexByte(line, '\n') < 0 {
		memo.lastDecision, memo.lastLine = line[len(prefix):], line
	} else {
		memo.lastDecision, memo.lastLine = string(memo.text), ""
	}
	memo.decisions[memo.nextDecision] = decisionText{memo.lastDecision, memo.lastLine}
	memo.nextDecision = (memo.nextDecision + 1) % len(memo.decisions)
	return memo.lastDecision
}

// startFailureLine is the message of a start the back-off holds back:
// "<name>: <message>", made once while it repeats.
func (memo *statusMemo) startFailureLine(name, msg string) string {
	if memo == nil {
		return name + ": " + msg
	}
	for _, l := range memo.failureLines {
		if l.name == name && l.msg == msg {
			return l.line
		}
	}
	line := name + ": " + msg
	if len(memo.failureLines) >= 4 {
		memo.failureLines = memo.failureLines[:0]
	}
	memo.failureLines = append(memo.failureLines, failureLine{name, msg, line})
	return line
}

type failureLine struct{ name, msg, line string }

// decisionText is a decision's text and its sync line.
type decisionText struct{ decision, line string }

// unchanged reports whether SyncPod's status step would store nothing, as
// it last did; the phase is the one generated then.
func (memo *statusMemo) unchanged(s *syncer) (v1.PodPhase, bool) {
	m := &s.out.Memory
	if memo == nil || statusMemoOff || !memo.valid || memo.pod != s.pod || memo.runtime != s.in.Runtime || memo.cached != m.Status ||
		memo.features != s.in.Kubelet.Features || memo.resize != m.Resize || s.pod.Spec.ActiveDeadlineSeconds != nil ||
		!maps.Equal(memo.startFailures, m.StartFailures) || !maps.Equal(memo.probes, m.Probes) {
		return "", false
	}
	memo.hits++
	return memo.phase, true
}

// statusMemoOff turns statusMemo off, for the test that compares
// timelines with and without it.
var statusMemoOff bool

// record notes what unchanged compares against after a status step that
// stored nothing (same true) or the loss of that record.
func (memo *statusMemo) record(s *syncer, same bool, phase v1.PodPhase) {
	if memo == nil {
		return
	}
	memo.valid = same
	if !same {
		memo.pod, memo.runtime, memo.cached = nil, nil, nil
		return
	}
	m := &s.out.Memory
	memo.pod, memo.runtime, memo.cached, memo.features, memo.resize, memo.phase = s.pod, s.in.Runtime, m.Status, s.in.Kubelet.Features, m.Resize, phase
	if memo.startFailures == nil {
		memo.startFailures = map[string]vocab.StartFailure{}
		memo.probes = map[string]vocab.ProbeResults{}
	}
	clear(memo.startFailures)
	maps.Copy(memo.startFailures, m.StartFailures)
	clear(memo.probes)
	maps.Copy(memo.probes, m.Probes)
}
