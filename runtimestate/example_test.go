package runtimestate_test

import (
	"fmt"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// A runtime state written by hand: only what matters. Hashes may be left
// out (the instances were created from the current spec).
func ExampleFromYAML() {
	st, err := runtimestate.FromYAML([]byte(`
sandboxes:
- {id: s1, ready: true, ip: 10.244.1.6}
containers:
- {id: c2, name: app, sandboxID: s1, state: running, restartCount: 1}
- {id: c1, name: app, sandboxID: s1, state: exited, exitCode: 1}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.ActiveSandbox().ID, st.IPs(), st.NewestActive("app").ID, st.NewestExited("app").ExitCode)

	_, err = runtimestate.FromYAML([]byte("containers:\n- {id: c1, name: app, state: runing}\n"))
	fmt.Println(err)
	// Output:
	// s1 [10.244.1.6] c2 1
	// runtimestate: containers[0] (c1): unknown state "runing"
}
