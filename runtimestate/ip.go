package runtimestate

import (
	"net"
	"net/netip"
	"strings"
)

// ParseIP parses an IP address the way the kubelet parses the IPs a
// runtime reports (utilnet.ParseIPSloppy, the parser of Go before 1.17):
// as net.ParseIP, except that a decimal or hexadecimal field may carry any
// number of leading zeros, read as the same number ("010.1.1.1" is
// 10.1.1.1, not an error). It returns nil for anything else net.ParseIP
// rejects, zones included.
func ParseIP(s string) net.IP {
	if ip := net.ParseIP(s); ip != nil {
		return ip
	}
	return net.ParseIP(trimFieldZeros(s))
}

// parseAddr is ParseIP as a netip.Addr, without allocating for an address
// that net.ParseIP accepts as written: ok is false exactly when ParseIP
// returns nil, and otherwise addr.As16() holds the bytes of ParseIP's
// answer (net.ParseIP is netip.ParseAddr refusing zones).
func parseAddr(s string) (addr netip.Addr, ok bool) {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return a, true
	}
	if a, err := netip.ParseAddr(trimFieldZeros(s)); err == nil && a.Zone() == "" {
		return a, true
	}
	return netip.Addr{}, false
}

// trimFieldZeros removes the leading zeros of every field between '.' and
// ':' separators, keeping one digit of a field of zeros.
func trimFieldZeros(s string) string {
	var b strings.Builder
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' && s[i] != ':' {
			continue
		}
		f := s[start:i]
		t := strings.TrimLeft(f, "0")
		if t == "" && f != "" {
			t = "0"
		}
		b.WriteString(t)
		if i < len(s) {
			b.WriteByte(s[i])
		}
		start = i + 1
	}
	return b.String()
}
