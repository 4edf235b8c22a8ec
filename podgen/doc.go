/*
Package podgen generates random inputs for the kubelet decisions kubeletlogic
mirrors, for property-based tests written with pgregory.net/rapid: pods the
API server accepts, runtime states consistent with them, probe results, and
feature-gate sets.

Every generator is a *rapid.Generator. They compose with rapid's own
combinators and with each other; the usual chain draws a pod, then a runtime
state of that pod, then probe results of that state:

	func TestSomething(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			pod := podgen.Pod(podgen.PodOptions{}).Draw(t, "pod")
			st := podgen.RuntimeState(pod, podgen.StateOptions{}).Draw(t, "state")
			probes := podgen.ProbeResults(pod, st).Draw(t, "probes")
			gates := podgen.Features(podgen.FeatureOptions{}).Draw(t, "gates")
			// call the function under test, check a property
		})
	}

Cases does the same in one draw. When a property fails, rapid shrinks the
case: every optional part of a pod or state shrinks towards absent, so the
minimized case keeps only what the failure needs.

# The model

A pod is what the kubelet receives from the API server: a v1.37.2 pod that
passed validation on create, after defaulting. Container names say what a
container is ("init-N" regular init container, "sidecar-N" native sidecar,
"app-N" regular container, "debug-N" ephemeral container, N the index in
its list), and are therefore unique across the lists. Images come from a pool
of four, so definition changes and shared images are common. Fields the API
server rejects for a kind of container never appear on it: no probes on
regular init containers, no restartPolicyRules without the container's own
restartPolicy, no RestartContainer resize policy in a pod with restartPolicy
Never, nothing but name and image (and a target) on ephemeral containers.

A runtime state is what the container runtime reports about that pod
(runtimestate.Pod): sandboxes and container instances, newest first. It is
consistent with the pod in the ways the kubelet relies on (instances carry
the pod's container names and the hash of the container they were created
from; timestamps are ordered; exit details appear only on exited instances;
no two instances share a creation time, so "newest" is always defined) and
deliberately inconsistent in the ways a real node can be (several ready
sandboxes, a sandbox in the wrong network mode, an instance running in an
old sandbox, an instance created from another image, a missing hash, an
instance whose name the spec does not have, negative exit codes: -1, -2, -137). Set
StateOptions.Realistic to keep to what a healthy node shows.

Probe results are keyed by container ID, as the kubelet's results managers
are, and a missing result (vocab.ProbeNoResult) is distinct from
vocab.ProbeUnknown.

Gate sets start from the v1.37.2 defaults and flip gates at random, keeping
locked gates and the kubelet's gate dependencies unless told otherwise.

Edge cases are drawn often on purpose: exit codes 0, 1, 42, 137 and the
values of the container's own rules, rules that match and rules that do
not, OOMKilled and ContainerCannotRun, unknown and created states,
garbage-collected history, a deletion timestamp on about a quarter of the
pods. Tests in this package check that each of these shapes appears.

# Terminal pods

A pod's phase is terminal (Succeeded, Failed) only when its containers
have all stopped and none will restart, so a pod with restartPolicy Always
never reaches one. Pods carry no status, so their API phase is never
terminal; of podgen.Cases' (pod, state) draws, about 11 % (10.5-11.9 % over
3000 draws) get a terminal phase from the kubelet's status generation.
StateOptions.AllExited raises that: with AllExited 60, 24-25 % of draws; a
test that also puts the generated status on the pod half the time sees a
terminal API phase in 13 % of draws (sim's TestTerminalShare logs these
figures: go test -v -run TestTerminalShare ./sim).

# Generators

Pods:
  - [Pod], restricted by [PodOptions] (see [PodOptions.ForGates])

Runtime states:
  - [RuntimeState], restricted by [StateOptions]

Probe results:
  - [ProbeResults], of [vocab.ProbeResults] values holding a
    [vocab.ProbeResult] per probe kind

Feature gates:
  - [Features], shaped by [FeatureOptions] (see [Dependencies])

All of the above:
  - [Cases], of [Case] values, with [CaseOptions]

# Determinism

Nothing reads the wall clock or math/rand: every time is [Epoch] plus a
drawn offset, every ID is numbered in creation order, and a rapid seed
reproduces a value exactly. Counts (containers, instances, sandboxes) use
rapid's integer generators, which favour small and extreme values; yes/no
and one-of-several choices spread rapid's draws over their range, so they
come within a few percent of the frequencies the code asks for, while
shrinking stays fast.
*/
package podgen
