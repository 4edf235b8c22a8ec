package sim

import (
	"time"

	"pgregory.net/rapid"
)

// checkGC checks the container GC's sandbox removals of one pod
// (kuberuntime_gc.go evictSandboxes, removeSandbox): RemovePodSandbox
// follows a StopPodSandbox of the same sandbox, and only once every
// container created in it was removed; and a pod the kubelet forgot, with
// its API object gone, leaves nothing in the runtime after the next GC
// pass (a minute at most).
func checkGC(t *rapid.T, tl *Timeline, name string, span time.Duration) {
	created := map[string][]string{} // sandbox -> containers created in it
	removed := map[string]bool{}
	stopped := map[string]bool{}
	sandboxes := map[string]bool{}
	var forgotten, apiGone time.Duration = -1, -1
	for _, e := range tl.Entries {
		if e.Pod != name {
			continue
		}
		if e.Kind == KindSync && e.Work == "forgotten" {
			forgotten = e.At
		}
		if e.Kind == KindAPI && e.API == APIGone {
			apiGone = e.At
		}
		if e.Kind != KindCRI || e.Call == nil {
			continue
		}
		c := e.Call
		switch c.Method {
		case "RunPodSandbox":
			sandboxes[c.ID] = true
		case "CreateContainer":
			created[c.Sandbox] = append(created[c.Sandbox], c.ID)
		case "RemoveContainer":
			removed[c.ID] = true
		case "StopPodSandbox":
			stopped[c.ID] = true
		case "RemovePodSandbox":
			if !stopped[c.ID] {
				t.Fatalf("%s: RemovePodSandbox %s at %s without a StopPodSandbox before\n%s", name, c.ID, e.At, tl.Events())
			}
			for _, id := range created[c.ID] {
				if !removed[id] {
					t.Fatalf("%s: RemovePodSandbox %s at %s while its container %s was not removed\n%s", name, c.ID, e.At, id, tl.Events())
				}
			}
			delete(sandboxes, c.ID)
		}
	}
	if forgotten < 0 {
		return
	}
	gone := forgotten
	if apiGone > gone {
		gone = apiGone
	}
	if apiGone < 0 && tl.Entries != nil {
		// A static pod has no API object; an API pod whose object is
		// still there is not checked.
		if !staticPodOf(tl, name) {
			return
		}
	}
	if gone+time.Minute+time.Second > span {
		return
	}
	for id := range sandboxes {
		t.Fatalf("%s: forgotten at %s, sandbox %s not removed by the GC a minute later\n%s", name, forgotten, id, tl.Events())
	}
	for _, ids := range created {
		for _, id := range ids {
			if !removed[id] {
				t.Fatalf("%s: forgotten at %s, container %s not removed by the GC a minute later\n%s", name, forgotten, id, tl.Events())
			}
		}
	}
}

// staticPodOf says whether the timeline's pod name never had an API
// write (a static pod).
func staticPodOf(tl *Timeline, name string) bool {
	for _, e := range tl.Entries {
		if e.Pod == name && e.Kind == KindAPI {
			return false
		}
	}
	return true
}
