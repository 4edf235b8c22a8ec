// Package names matches container names without allocating: the kubelet's
// decisions look a container's status up by name, in lists of a handful of
// entries whose names (app-0, app-1, …) often share their length and all
// but their last bytes.
package names

import v1 "k8s.io/api/core/v1"

// Equal reports whether a == b. It compares the lengths, then the last
// bytes, and only then the whole strings: names of one pod tend to differ
// at the end, so most unequal pairs are told apart without a call to the
// runtime's memory comparison.
func Equal(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	return a[len(a)-1] == b[len(b)-1] && a == b
}

// Index returns the index of the first status in list named name, or -1.
func Index(list []v1.ContainerStatus, name string) int {
	for i := range list {
		if Equal(list[i].Name, name) {
			return i
		}
	}
	return -1
}

// Lookup returns the first status named name in first, else in second,
// else nil: the search of the one list the kubelet builds by appending
// second to first, without building it.
func Lookup(first, second []v1.ContainerStatus, name string) *v1.ContainerStatus {
	if i := Index(first, name); i >= 0 {
		return &first[i]
	}
	if i := Index(second, name); i >= 0 {
		return &second[i]
	}
	return nil
}

// ContainerIndex returns the index of the first container in list named
// name, or -1.
func ContainerIndex(list []v1.Container, name string) int {
	for i := range list {
		if Equal(list[i].Name, name) {
			return i
		}
	}
	return -1
}
