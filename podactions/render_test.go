package podactions_test

import (
	"testing"

	"github.com/kubeletlogic/kubeletlogic/podactions"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

func TestActionsString(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    podactions.Actions
		want string
	}{
		{"nothing", podactions.Actions{SandboxID: "s1"}, "keep the pod as it is"},
		{"new sandbox", podactions.Actions{KillPod: true, CreateSandbox: true, Attempt: 2, SandboxMessage: vocab.MsgSandboxNotReady, InitContainersToStart: refs(0, "init-0")},
			"kill the pod and create sandbox attempt 2: pod sandbox is not ready\nstart init containers: init-0 (#0)"},
		{"first sandbox", podactions.Actions{CreateSandbox: true, SandboxMessage: vocab.MsgNoPodSandbox},
			"create sandbox attempt 0: no pod sandbox exists"},
		{"done", podactions.Actions{KillPod: true, SandboxID: "s1"}, "kill the pod: no regular container runs or is left to start (running sidecars are stopped too)"},
		{"kills, resets, resizes, volumes", podactions.Actions{
			EphemeralContainersToStart: refs(1, "debug-1"),
			ContainersToKill: []podactions.Kill{
				{ID: "c2", Name: "app-1", Cause: podactions.CauseDefinitionChanged, Message: "Container app-1 definition changed, will be restarted"},
				{ID: "c3", Name: "app-2", Cause: podactions.CauseStartupProbe, Reason: vocab.ReasonStartupProbe, Message: "Container app-2 failed startup probe"},
			},
			ContainersToReset:  []podactions.Reset{{ID: "c4", Name: "app-0", Kill: true}, {ID: "c5", Name: "app-3", Source: true}},
			MemoryUpdates:      []podactions.Update{{ID: "c6", Name: "app-4", Desired: podactions.Resources{MemoryLimit: 2, MemoryRequest: 1}, Current: podactions.Resources{MemoryLimit: 1, MemoryRequest: 1}}},
			CPUUpdates:         []podactions.Update{{ID: "c6", Name: "app-4", Desired: podactions.Resources{CPURequest: 250}, Current: podactions.Resources{CPURequest: 100}}},
			UpdatePodResources: true, UpdatePodLevelResources: true,
			VolumesToUpsize: []string{"a"}, VolumesToDownsize: []string{"b", "c"},
		}, `start ephemeral containers: debug-1 (#1)
kill app-1 (c2): definition changed, will be restarted
kill app-2 (c3): startup probe failed [StartupProbe]
kill and remove app-0 (c4): restart all containers
remove app-3 (c5): restart all containers (it triggered the restart)
resize memory of app-4 (c6) in place: limit 1 -> 2
resize cpu of app-4 (c6) in place: request 100m -> 250m
resize the pod cgroup
resize pod-level resources
grow emptyDir volumes: a
shrink emptyDir volumes: b, c`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.String(); got != tc.want {
				t.Errorf("String() =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestSandboxChangedNil(t *testing.T) {
	want := runtimestate.SandboxCheck{Changed: true, Message: vocab.MsgNoPodSandbox}
	if got := runtimestate.SandboxChanged(nil, nil); got != want {
		t.Errorf("SandboxChanged(nil, nil) = %+v, want %+v", got, want)
	}
}
