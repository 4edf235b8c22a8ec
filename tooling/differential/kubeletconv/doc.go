// Package kubeletconv converts kubeletlogic's inputs into the kubelet's own
// types, so that a differential test can hand the same case to both sides.
// Keep it small and obviously right: a bug here would hide a bug in the
// library.
//
// The conversion of a runtime state goes through the kubelet itself: the
// state is written as the raw CRI sandboxes and containers a runtime
// reports, and the kubelet's GetPods and GetPodStatus, over the fake CRI
// runtime service of its own tests, build the kubecontainer.PodStatus (see
// conv.go, which needs the kubeletlogic_overlay build tag).
package kubeletconv
