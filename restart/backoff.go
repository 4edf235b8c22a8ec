package restart

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Crash-loop back-off constants of kubelet v1.37.2 (pkg/kubelet/kubelet.go
// and pkg/kubelet/apis/config/v1beta1/defaults.go).
const (
	// DefaultInitialBackOff is the first restart delay.
	DefaultInitialBackOff = 10 * time.Second
	// DefaultMaxBackOff is the cap, and the default of the kubelet
	// configuration's crashLoopBackOff.maxContainerRestartPeriod.
	DefaultMaxBackOff = 300 * time.Second
	// ReducedInitialBackOff and ReducedMaxBackOff apply with gate
	// ReduceDefaultCrashLoopBackOffDecay.
	ReducedInitialBackOff = 1 * time.Second
	ReducedMaxBackOff     = 60 * time.Second
	// BackOffResetAfter: an entry whose last update is more than this
	// before the exit being judged (or before now, for the kubelet's
	// periodic garbage collection) is forgotten, so the next delay starts
	// from the initial one again.
	BackOffResetAfter = 600 * time.Second
)

// BackOffSettings is the part of the kubelet configuration that shapes
// crash-loop back-off.
type BackOffSettings struct {
	// MaxContainerRestartPeriod is crashLoopBackOff.maxContainerRestartPeriod.
	// nil means unset, which the kubelet defaults to 300 s when gate
	// KubeletCrashLoopBackOffMax is on. The kubelet accepts 1 s to 300 s,
	// and only with that gate on.
	MaxContainerRestartPeriod *time.Duration
}

// BackOffConfig is the initial delay and the cap of the kubelet's
// crash-loop back-off.
type BackOffConfig struct {
	Initial time.Duration
	Max     time.Duration
}

// NewBackOffConfig returns the back-off the kubelet runs with. It mirrors
// newCrashLoopBackOff in pkg/kubelet/kubelet.go: 10 s doubling to 300 s,
// or 1 s to 60 s with gate ReduceDefaultCrashLoopBackOffDecay; with gate
// KubeletCrashLoopBackOffMax the configured maximum replaces the cap and
// the initial delay is lowered to it if larger. It returns an error for a
// configuration the kubelet refuses to start with (its config validation):
// a maximum outside 1 s to 300 s, or a maximum set while the gate is off.
func NewBackOffConfig(f features.Set, s BackOffSettings) (BackOffConfig, error) {
	cfg := BackOffConfig{Initial: DefaultInitialBackOff, Max: DefaultMaxBackOff}
	if f.Enabled(features.ReduceDefaultCrashLoopBackOffDecay) {
		cfg = BackOffConfig{Initial: ReducedInitialBackOff, Max: ReducedMaxBackOff}
	}
	if !f.Enabled(features.KubeletCrashLoopBackOffMax) {
		if s.MaxContainerRestartPeriod != nil {
			return cfg, fmt.Errorf("restart: crashLoopBackOff.maxContainerRestartPeriod is set but gate %s is off", features.KubeletCrashLoopBackOffMax)
		}
		return cfg, nil
	}
	max := DefaultMaxBackOff
	if s.MaxContainerRestartPeriod != nil {
		max = *s.MaxContainerRestartPeriod
		if ms := max.Milliseconds(); ms < 1000 || ms > 300000 {
			return cfg, fmt.Errorf("restart: crashLoopBackOff.maxContainerRestartPeriod %v must be between 1s and 300s", max)
		}
	}
	cfg.Max = max
	cfg.Initial = min(cfg.Initial, max)
	return cfg, nil
}

// BackOffEntry is the kubelet's back-off record for one container (one
// BackOffKey): the current delay and when it was last advanced. The zero
// value is "no record".
type BackOffEntry struct {
	Delay      time.Duration `json:"delay,omitempty"`
	LastUpdate time.Time     `json:"lastUpdate,omitzero"`
}

// IsZero reports whether e is "no record".
func (e BackOffEntry) IsZero() bool { return e == BackOffEntry{} }

func expired(eventTime, lastUpdate time.Time) bool {
	return eventTime.Sub(lastUpdate) > BackOffResetAfter
}

// InBackOff reports whether, at now, a container whose newest instance
// finished at finishedAt is still backing off: there is a record, the
// record is not older than BackOffResetAfter measured at finishedAt, and
// less than the record's delay has passed since finishedAt.
// (flowcontrol.Backoff.IsInBackOffSince with the kubelet's expiry
// function.)
func (e BackOffEntry) InBackOff(finishedAt, now time.Time) bool {
	if e.IsZero() || expired(finishedAt, e.LastUpdate) {
		return false
	}
	return now.Sub(finishedAt) < e.Delay
}

// Next returns the record after the kubelet starts a new instance at now
// for an exit at finishedAt: the initial delay when there was no record or
// it had expired, else double the delay up to the cap; LastUpdate is now.
// (flowcontrol.Backoff.Next without jitter.)
func (c BackOffConfig) Next(e BackOffEntry, finishedAt, now time.Time) BackOffEntry {
	if e.IsZero() || expired(finishedAt, e.LastUpdate) {
		return BackOffEntry{Delay: c.Initial, LastUpdate: now}
	}
	return BackOffEntry{Delay: min(2*e.Delay, c.Max), LastUpdate: now}
}

// GC returns the record after the kubelet's periodic clean-up at now: the
// record is dropped when its last update is more than BackOffResetAfter
// before now. The kubelet runs the clean-up every 2 s
// (HandlePodCleanups), so a real kubelet may keep a record up to 2 s
// longer than GC at the exact instant says.
func (e BackOffEntry) GC(now time.Time) BackOffEntry {
	if !e.IsZero() && expired(now, e.LastUpdate) {
		return BackOffEntry{}
	}
	return e
}

// BackOffKey returns the kubelet's back-off key for container c of pod:
// FNV-64a over the pod's name, namespace and UID and the container's name,
// image and resources, as lower-case hex. It mirrors GetBackoffKey in
// pkg/kubelet/kuberuntime/helpers.go, so a change of image or resources
// starts a new back-off. A nil pod or container reads as empty.
func BackOffKey(pod *v1.Pod, c *v1.Container) string {
	if pod == nil {
		pod = &v1.Pod{}
	}
	if c == nil {
		c = &v1.Container{}
	}
	res := emptyResources
	if len(c.Resources.Limits) > 0 || len(c.Resources.Requests) > 0 || len(c.Resources.Claims) > 0 {
		res = c.Resources.String()
	}
	h := uint64(fnvOffset64)
	for i, part := range [...]string{pod.Name, pod.Namespace, string(pod.UID), c.Name, c.Image, res} {
		if i > 0 {
			h = fnvAdd(h, "/")
		}
		h = fnvAdd(h, part)
	}
	return strconv.FormatUint(h, 16)
}

// FNV-1a, 64 bits (hash/fnv's New64a), written out so that BackOffKey
// hashes its parts in place instead of joining them into one string.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

func fnvAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

// emptyResources is the text of a container's resources with no limits,
// requests or claims (the common case), computed once: the generated
// String of an empty ResourceRequirements does not depend on anything else.
var emptyResources = (&v1.ResourceRequirements{}).String()

// StartDecision is the kubelet's crash-loop back-off verdict on starting a
// container now.
type StartDecision struct {
	// Start is true when the kubelet goes on to start the container.
	Start bool
	// Until, when Start is false, is when the back-off ends: the newest
	// exited instance's FinishedAt plus Delay. The kubelet syncs the pod
	// again then.
	Until time.Time
	// Delay is the current back-off delay (after the decision).
	Delay time.Duration
	// Reason is "CrashLoopBackOff" when Start is false.
	Reason string
	// Message is the kubelet's text when Start is false, such as
	// "back-off 10s restarting failed container=app pod=web_default(uid)".
	Message string
	// Entry is the back-off record after the decision: advanced by Next
	// when the kubelet starts a container that has an exited instance,
	// unchanged otherwise.
	Entry BackOffEntry
}

// Decide says whether the kubelet would start container c of pod at now,
// or wait. It mirrors doBackOff in
// pkg/kubelet/kuberuntime/kuberuntime_manager.go, which the kubelet calls
// before every start of a container of any kind, once computePodActions
// has chosen to start it. entry is the record for BackOffKey(pod, c), the
// zero value if there is none.
//
// With no exited instance of c in st (first start, or all instances
// garbage-collected) the container starts and the record is left as it
// is. Otherwise the newest exited instance's FinishedAt is the reference:
// within the delay the start is refused with reason CrashLoopBackOff;
// after it, the record advances (Next) and the container starts. The first
// restart after a first exit is therefore immediate, and the next ones
// wait 10 s, 20 s, 40 s … up to the cap.
//
// A nil pod or c gives Start true and the record unchanged.
func (cfg BackOffConfig) Decide(pod *v1.Pod, c *v1.Container, st *runtimestate.Pod, entry BackOffEntry, now time.Time) StartDecision {
	if pod == nil || c == nil {
		return StartDecision{Start: true, Delay: entry.Delay, Entry: entry}
	}
	last := st.NewestExited(c.Name)
	if last == nil {
		return StartDecision{Start: true, Delay: entry.Delay, Entry: entry}
	}
	ts := last.FinishedAt
	if entry.InBackOff(ts, now) {
		return StartDecision{
			Until:   ts.Add(entry.Delay),
			Delay:   entry.Delay,
			Reason:  "CrashLoopBackOff",
			Message: backOffText(entry.Delay, c.Name, pod.Name, pod.Namespace, string(pod.UID)),
			Entry:   entry,
		}
	}
	next := cfg.Next(entry, ts, now)
	return StartDecision{Start: true, Delay: next.Delay, Entry: next}
}

// backOffText is the kubelet's message
// fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", delay,
// name, format.Pod(pod)), format.Pod being "name_namespace(uid)", built in
// one allocation: the message is all that Decide allocates.
func backOffText(delay time.Duration, container, name, namespace, uid string) string {
	var d [40]byte
	ds := appendDuration(d[:0], delay)
	const (
		p1 = "back-off "
		p2 = " restarting failed container="
		p3 = " pod="
	)
	var b strings.Builder
	b.Grow(len(p1) + len(ds) + len(p2) + len(container) + len(p3) + len(name) + 1 + len(namespace) + 1 + len(uid) + 1)
	b.WriteString(p1)
	b.Write(ds)
	b.WriteString(p2)
	b.WriteString(container)
	b.WriteString(p3)
	b.WriteString(name)
	b.WriteByte('_')
	b.WriteString(namespace)
	b.WriteByte('(')
	b.WriteString(uid)
	b.WriteByte(')')
	return b.String()
}

// appendDuration appends d as time.Duration.String writes it ("1h2m3.5s",
// "1.5ms", "0s"), without allocating. TestAppendDuration compares the two.
func appendDuration(b []byte, d time.Duration) []byte {
	if d == 0 {
		return append(b, "0s"...)
	}
	u := uint64(d)
	if d < 0 {
		b = append(b, '-')
		u = -u
	}
	switch {
	case u < uint64(time.Microsecond):
		return append(strconv.AppendUint(b, u, 10), "ns"...)
	case u < uint64(time.Millisecond):
		return append(appendDecimal(b, u, 3), "µs"...)
	case u < uint64(time.Second):
		return append(appendDecimal(b, u, 6), "ms"...)
	}
	h := u / uint64(time.Hour)
	u -= h * uint64(time.Hour)
	m := u / uint64(time.Minute)
	u -= m * uint64(time.Minute)
	if h > 0 {
		b = append(strconv.AppendUint(b, h, 10), 'h')
	}
	if h > 0 || m > 0 {
		b = append(strconv.AppendUint(b, m, 10), 'm')
	}
	return append(appendDecimal(b, u, 9), 's')
}

// appendDecimal appends u / 10^prec with its fraction, trailing zeros
// (and a fraction of zero) left out.
func appendDecimal(b []byte, u uint64, prec int) []byte {
	div := uint64(1)
	for range prec {
		div *= 10
	}
	b = strconv.AppendUint(b, u/div, 10)
	frac := u % div
	if frac == 0 {
		return b
	}
	for frac%10 == 0 {
		frac /= 10
		prec--
	}
	b = append(b, '.')
	var digits [20]byte
	n := strconv.AppendUint(digits[:0], frac, 10)
	for range prec - len(n) {
		b = append(b, '0')
	}
	return append(b, n...)
}

// Restart is one restart in a container's history: the kubelet started a
// new instance At, after the instance before it finished at FinishedAt.
type Restart struct {
	FinishedAt time.Time `json:"finishedAt"`
	At         time.Time `json:"at"`
}

// Replay returns the back-off record the kubelet holds after the given
// restarts of one container (oldest first), applying its periodic clean-up
// before each one (GC at the restart time) and at now. Restarts must be in
// time order; a restart with At before the previous one is applied as
// given.
func (cfg BackOffConfig) Replay(history []Restart, now time.Time) BackOffEntry {
	var e BackOffEntry
	for _, r := range history {
		e = cfg.Next(e.GC(r.At), r.FinishedAt, r.At)
	}
	return e.GC(now)
}

// HistoryFrom reads a container's restart history off the runtime state:
// for each instance named name that has an older instance, a Restart at
// the newer one's CreatedAt after the older one's FinishedAt. The kubelet
// advances its record moments before it creates the instance, so these
// times are late by the create call's latency; instances the runtime
// garbage-collected are missing from the history.
//
// The instances are taken in the order of their creation times, whatever
// order st lists them in. An instance without CreatedAt is taken to have
// been created when it started (StartedAt, later by the create call's
// latency). When a container has more than one instance, every one must
// give one of the two, and every exited one followed by another must give
// FinishedAt: otherwise the times that decide the back-off are unknown and
// HistoryFrom returns an error naming the instance, and no history (a
// history without them would replay to a delay of 0).
func HistoryFrom(st *runtimestate.Pod, name string) ([]Restart, error) {
	inst := st.Instances(name)
	if len(inst) < 2 {
		return nil, nil
	}
	created := func(c *runtimestate.Container) time.Time {
		if c.CreatedAt.IsZero() {
			return c.StartedAt
		}
		return c.CreatedAt
	}
	for _, c := range inst {
		if created(c).IsZero() {
			return nil, fmt.Errorf("restart: history of container %q: instance %s gives neither createdAt nor startedAt, so when it was created (and the back-off it waited) is unknown", name, c.ID)
		}
	}
	// Oldest first, by creation time; instances created at the same
	// instant keep st's order (newest first).
	sort.SliceStable(inst, func(i, j int) bool { return created(inst[i]).After(created(inst[j])) })
	var out []Restart
	for i := len(inst) - 1; i > 0; i-- {
		older, newer := inst[i], inst[i-1]
		if older.State != runtimestate.Exited {
			continue
		}
		if older.FinishedAt.IsZero() {
			return nil, fmt.Errorf("restart: history of container %q: exited instance %s gives no finishedAt, so when the restart after it became due is unknown", name, older.ID)
		}
		out = append(out, Restart{FinishedAt: older.FinishedAt, At: created(newer)})
	}
	return out, nil
}
