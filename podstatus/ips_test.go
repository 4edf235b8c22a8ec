package podstatus

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// sortPodIPsNetIP is sortPodIPs as written on net.IP (the kubelet's form):
// the reference the netip-based sortPodIPs must agree with.
func sortPodIPsNetIP(podIPs, nodeIPs []string) []string {
	primaryV4 := true
	if len(nodeIPs) > 0 {
		primaryV4 = isIPv4(parseIPSloppy(nodeIPs[0]))
	}
	var out []string
	for _, wantV4 := range []bool{primaryV4, !primaryV4} {
		for _, s := range podIPs {
			ip := parseIPSloppy(s)
			if ip != nil && isIPv4(ip) == wantV4 {
				out = append(out, ip.String())
				break
			}
		}
	}
	return out
}

// drawIPText draws the text of an address a runtime may report: IPv4 with
// or without leading zeros, IPv6 in canonical, expanded, upper-case or
// IPv4-mapped form, with a zone, or garbage.
func drawIPText(t *rapid.T, label string) string {
	b := rapid.SliceOfN(rapid.IntRange(0, 255), 16, 16).Draw(t, label+" bytes")
	ip := make(net.IP, 16)
	for i, v := range b {
		ip[i] = byte(v)
	}
	if rapid.IntRange(0, 3).Draw(t, label+" zeros") == 0 {
		ip = append(net.IP{}, ip[:12]...)
		for i := range 12 {
			ip[i] = 0
		}
		ip = append(ip, byte(b[12]), byte(b[13]), byte(b[14]), byte(b[15]))
	}
	switch rapid.IntRange(0, 8).Draw(t, label+" form") {
	case 0, 1:
		return net.IP{byte(b[0]), byte(b[1]), byte(b[2]), byte(b[3])}.String()
	case 2:
		return fmt.Sprintf("%03d.%d.%02d.%d", b[0], b[1], b[2], b[3])
	case 3:
		return ip.String()
	case 4:
		return strings.ToUpper(ip.String())
	case 5:
		var parts []string
		for i := 0; i < 16; i += 2 {
			parts = append(parts, fmt.Sprintf("%04x", int(ip[i])<<8|int(ip[i+1])))
		}
		return strings.Join(parts, ":")
	case 6:
		return fmt.Sprintf("::ffff:%d.%d.%d.%d", b[0], b[1], b[2], b[3])
	case 7:
		return ip.String() + "%eth0"
	}
	return rapid.SampledFrom([]string{"", "x", "1.2.3", "1.2.3.4.5", "::g", "256.1.1.1", "0001.2.3.4"}).Draw(t, label+" junk")
}

// TestSortPodIPsMatchesNetIP checks that sortPodIPs, which parses with
// netip to avoid allocating, answers as the net.IP form does for every
// written form of an address.
func TestSortPodIPsMatchesNetIP(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var pod, node []string
		for i := range rapid.IntRange(0, 3).Draw(t, "pod IPs") {
			pod = append(pod, drawIPText(t, fmt.Sprint("pod ", i)))
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "node IPs") {
			node = append(node, drawIPText(t, fmt.Sprint("node ", i)))
		}
		got, want := sortPodIPs(pod, node), sortPodIPsNetIP(pod, node)
		if !slices.Equal(got, want) {
			t.Fatalf("sortPodIPs(%q, %q) = %q, net.IP form says %q", pod, node, got, want)
		}
	})
}

// TestSortPodIPsAllocs guards the allocations of sortPodIPs: its answer's
// slice only, when the runtime writes its addresses canonically.
func TestSortPodIPsAllocs(t *testing.T) {
	for _, c := range [][2][]string{
		{{"10.0.0.1"}, nil},
		{{"10.0.0.1", "fd00::1"}, {"192.168.1.1"}},
		{{"fd00::1", "10.0.0.1"}, {"fd00::2"}},
	} {
		if got := testing.AllocsPerRun(20, func() { sortPodIPs(c[0], c[1]) }); got > 1 {
			t.Errorf("sortPodIPs(%q, %q) allocates %v times, budget 1", c[0], c[1], got)
		}
	}
}
