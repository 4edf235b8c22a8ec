package features_test

import (
	"fmt"

	"github.com/kubeletlogic/kubeletlogic/features"
)

// The zero Set is a v1.37.2 node; Parse reads the kubelet's
// --feature-gates syntax to model another one.
func Example() {
	var node features.Set
	fmt.Println(node, "| RestartAllContainersOnContainerExits:", node.Enabled(features.RestartAllContainersOnContainerExits))

	other, err := features.Parse("ReduceDefaultCrashLoopBackOffDecay=true,ContainerRestartRules=false")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(other)
	_, err = features.Parse("ContainerRestartRule=false")
	fmt.Println(err != nil)
	// Output:
	// v1.37.2 defaults | RestartAllContainersOnContainerExits: true
	// ContainerRestartRules=false,ReduceDefaultCrashLoopBackOffDecay=true
	// true
}
