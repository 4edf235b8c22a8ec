package podstatus

import (
	"net"
	"net/netip"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/runtimestate"
)

// The pod IPs Compute starts from are those the kubelet's runtime manager
// reports (determinePodSandboxIPs in
// pkg/kubelet/kuberuntime/kuberuntime_sandbox.go): runtimestate.Pod.IPs,
// read into a buffer with AppendIPs.

// sortPodIPs mirrors Kubelet.sortPodIPs: the first IP of the node's family
// (IPv4 with no node IP), then the first of the other family, each
// re-written in canonical form.
func sortPodIPs(podIPs, nodeIPs []string) []string {
	return appendSortedPodIPs(make([]string, 0, 2), podIPs, nodeIPs)
}

// appendSortedPodIPs appends what sortPodIPs returns to out, for a caller
// with a buffer.
func appendSortedPodIPs(out, podIPs, nodeIPs []string) []string {
	primaryV4 := true
	if len(nodeIPs) > 0 {
		a, ok := parseAddrSloppy(nodeIPs[0])
		primaryV4 = ok && addrIsIPv4(a)
	}
	for _, wantV4 := range [2]bool{primaryV4, !primaryV4} {
		for _, s := range podIPs {
			a, ok := parseAddrSloppy(s)
			if ok && addrIsIPv4(a) == wantV4 {
				out = append(out, canonicalIP(s, a))
				break
			}
		}
	}
	return out
}

// parseAddrSloppy is parseIPSloppy as a netip.Addr: ok is false exactly
// when parseIPSloppy returns nil. It does not allocate for an address that
// net.ParseIP accepts as written (net.ParseIP is netip.ParseAddr refusing
// zones).
func parseAddrSloppy(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return a, true
	}
	ip := parseIPSloppy(s)
	if ip == nil {
		return netip.Addr{}, false
	}
	a, ok := netip.AddrFromSlice(ip)
	return a, ok
}

// addrIsIPv4 is isIPv4 of the net.IP a stands for: net.IP.To4 accepts an
// IPv4 address and an IPv4-mapped IPv6 one.
func addrIsIPv4(a netip.Addr) bool { return a.Is4() || a.Is4In6() }

// canonicalIP is net.IP.String of the address a parsed from s (dotted
// IPv4 for an IPv4-mapped address, RFC 5952 IPv6 otherwise), returning s
// itself when s is already written that way, so that it does not
// allocate.
func canonicalIP(s string, a netip.Addr) string {
	var buf [64]byte
	b := a.Unmap().AppendTo(buf[:0])
	if string(b) == s {
		return s
	}
	return string(b)
}

// setHostIPs mirrors the end of generateAPIPodStatus: hostIP and hostIPs
// from the node's host IPs, and for a host-network pod the primary host IP
// as pod IP when there is none, plus the secondary one when it is of the
// other family than the single pod IP.
func setHostIPs(pod *v1.Pod, s *v1.PodStatus, hostIPs []string) {
	if len(hostIPs) == 0 {
		return
	}
	s.HostIP = hostIPs[0]
	s.HostIPs = []v1.HostIP{{IP: s.HostIP}}
	if len(hostIPs) == 2 {
		s.HostIPs = append(s.HostIPs, v1.HostIP{IP: hostIPs[1]})
	}
	if !pod.Spec.HostNetwork {
		return
	}
	if s.PodIP == "" {
		s.PodIP = hostIPs[0]
		s.PodIPs = []v1.PodIP{{IP: s.PodIP}}
	}
	if len(hostIPs) == 2 && len(s.PodIPs) == 1 && family(s.PodIPs[0].IP) != family(hostIPs[1]) {
		s.PodIPs = append(s.PodIPs, v1.PodIP{IP: hostIPs[1]})
	}
}

// family is utilnet.IPFamilyOfString: "4", "6", or "" for a string that
// does not parse.
func family(s string) string {
	ip := parseIPSloppy(s)
	switch {
	case ip == nil:
		return ""
	case isIPv4(ip):
		return "4"
	}
	return "6"
}

func isIPv4(ip net.IP) bool { return ip != nil && ip.To4() != nil }

// parseIPSloppy is utilnet.ParseIPSloppy (runtimestate.ParseIP).
func parseIPSloppy(s string) net.IP { return runtimestate.ParseIP(s) }
