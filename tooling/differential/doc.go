// Package differential holds tests that compare the kubeletlogic library
// with the real kubelet v1.37.2 code. See README.md for how to run them.
package differential
