package containerhash_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/containerhash"
	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// Only a container's name and image take part in the hash: a new image is
// a new definition, new resources are not. An instance written by hand
// without a hash was created from the current spec.
func Example() {
	app := v1.Container{Name: "app", Image: "nginx:1.27"}
	fmt.Println(containerhash.Of(&app))

	running := &runtimestate.Container{ID: "c1", Name: "app", State: runtimestate.Running, Hash: containerhash.Of(&app)}
	resized := app
	resized.Resources.Limits = v1.ResourceList{v1.ResourceCPU: {}}
	newImage := app
	newImage.Image = "nginx:1.28"
	fmt.Println("resources changed:", containerhash.InstanceChanged(&resized, running))
	fmt.Println("image changed:", containerhash.InstanceChanged(&newImage, running))
	fmt.Println("hand-written, no hash:", containerhash.InstanceChanged(&newImage, &runtimestate.Container{Name: "app"}))
	fmt.Println("runtime reports no hash:", containerhash.InstanceChanged(&app, &runtimestate.Container{Name: "app", HashMissing: true}))
	// Output:
	// 175518084
	// resources changed: false
	// image changed: true
	// hand-written, no hash: false
	// runtime reports no hash: true
}
