package vocab_test

import (
	"fmt"

	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// One map of results, keyed by container instance ID, feeds both
// podactions.Options.Probes and podstatus.Options.Probes (and
// sim.NextOptions.Probes).
func Example() {
	results := map[string]vocab.ProbeResults{
		"c-123": {Liveness: vocab.ProbeFailure, Readiness: vocab.ProbeSuccess},
		"c-456": {Startup: vocab.ProbeUnknown},
	}
	fmt.Printf("%+v\n", results["c-123"])
	fmt.Printf("%q\n", results["c-789"].Readiness) // no result held
	// Output:
	// {Liveness:Failure Readiness:Success Startup:}
	// ""
}
