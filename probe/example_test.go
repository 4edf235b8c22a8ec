package probe_test

import (
	"fmt"

	"github.com/kubeletlogic/kubeletlogic/probe"
)

// One map of results, keyed by container instance ID, feeds both
// podactions.Options.Probes and podstatus.Options.Probes.
func Example() {
	results := map[string]probe.Results{
		"c-123": {Liveness: probe.Failure, Readiness: probe.Success},
		"c-456": {Startup: probe.Unknown},
	}
	fmt.Printf("%+v\n", results["c-123"])
	fmt.Printf("%q\n", results["c-789"].Readiness) // no result held
	// Output:
	// {Liveness:Failure Readiness:Success Startup:}
	// ""
}
