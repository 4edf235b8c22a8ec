package runtimestate

import (
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"testing/quick"
)

// The IP shapes determinePodSandboxIPs distinguishes.
func TestIPsShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		sb   Sandbox
		want []string
	}{
		{"primary only", Sandbox{IP: "10.0.0.1"}, []string{"10.0.0.1"}},
		{"dual stack", Sandbox{IP: "10.0.0.1", AdditionalIPs: []string{"fd00::1"}}, []string{"10.0.0.1", "fd00::1"}},
		{"IPv6 first", Sandbox{IP: "fd00::1", AdditionalIPs: []string{"10.0.0.1"}}, []string{"fd00::1", "10.0.0.1"}},
		{"empty primary, additional IPs", Sandbox{AdditionalIPs: []string{"fd00::1", "10.0.0.1"}}, []string{"fd00::1", "10.0.0.1"}},
		{"empty primary, nothing else", Sandbox{}, nil},
		{"no network status", Sandbox{NoNetworkStatus: true}, nil},
		{"unparseable primary", Sandbox{IP: "10.0.0", AdditionalIPs: []string{"fd00::1"}}, nil},
		{"unparseable additional", Sandbox{IP: "10.0.0.1", AdditionalIPs: []string{"fd00::1", "x"}}, nil},
		{"empty additional", Sandbox{IP: "10.0.0.1", AdditionalIPs: []string{""}}, nil},
		{"leading zeros parse", Sandbox{IP: "010.000.0000.001"}, []string{"010.000.0000.001"}},
		{"zone does not parse", Sandbox{IP: "fe80::1%eth0"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := tc.sb
			sb.ID, sb.Ready = "s", true
			p := &Pod{Sandboxes: []Sandbox{sb}}
			if got := p.IPs(); !slices.Equal(got, tc.want) {
				t.Errorf("IPs() = %q, want %q", got, tc.want)
			}
			sb.Ready = false
			if got := (&Pod{Sandboxes: []Sandbox{sb}}).IPs(); got != nil {
				t.Errorf("not ready: IPs() = %q, want none", got)
			}
		})
	}
	// Only the latest sandbox counts, even when an older one is ready.
	p := &Pod{Sandboxes: []Sandbox{{ID: "s2", Attempt: 1}, {ID: "s1", Ready: true, IP: "10.0.0.1"}}}
	if got := p.IPs(); got != nil {
		t.Errorf("older ready sandbox: IPs() = %q, want none", got)
	}
}

func TestParseIP(t *testing.T) {
	for s, want := range map[string]string{
		"10.0.0.1":             "10.0.0.1",
		"010.0.0.1":            "10.0.0.1",
		"0010.00.0.0255":       "10.0.0.255",
		"fd00::1":              "fd00::1",
		"fd00:0000:00000::001": "fd00::1",
		"::ffff:010.1.2.3":     "10.1.2.3",
		"::1.2.3.4":            "::102:304",
		"":                     "",
		"10.0.0":               "",
		"10.0.0.256":           "",
		"10.0.0.0256":          "",
		"10.0.0.1.":            "",
		"fe80::1%eth0":         "",
		"0x10.0.0.1":           "",
		" 10.0.0.1":            "",
		"1:2:3:4:5:6:7:8:9":    "",
	} {
		got := ""
		if ip := ParseIP(s); ip != nil {
			got = ip.String()
		}
		if got != want {
			t.Errorf("ParseIP(%q) = %q, want %q", s, got, want)
		}
	}
}

// parseAddr, the allocation-free form Pod.IPs checks with, accepts exactly
// what ParseIP accepts, as the same address.
func TestParseAddrIsParseIP(t *testing.T) {
	check := func(s string) {
		a, ok := parseAddr(s)
		ip := ParseIP(s)
		if ok != (ip != nil) || ok && a.As16() != [16]byte(ip.To16()) {
			t.Errorf("parseAddr(%q) = %v, %v; ParseIP says %v", s, a, ok, ip)
		}
	}
	for _, s := range []string{"10.0.0.1", "010.0.0.1", "0010.00.0.0255", "fd00::1", "fd00:0000:00000::001",
		"::ffff:010.1.2.3", "::1.2.3.4", "", "10.0.0", "10.0.0.256", "10.0.0.0256", "10.0.0.1.", "fe80::1%eth0",
		"fe80::01%eth0", "0x10.0.0.1", " 10.0.0.1", "1:2:3:4:5:6:7:8:9", "FD00::A", "::", "0.0.0.0"} {
		check(s)
	}
	f := func(s string) bool { check(s); return true }
	if err := quick.Check(f, &quick.Config{MaxCount: 20000, Values: func(v []reflect.Value, r *rand.Rand) {
		const alphabet = "0123456789abcdefABx.:%"
		b := make([]byte, r.Intn(20))
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
		}
		v[0] = reflect.ValueOf(string(b))
	}}); err != nil {
		t.Error(err)
	}
}

// Pod.IPs allocates only its answer for addresses written canonically.
func TestIPsAllocs(t *testing.T) {
	p := &Pod{Sandboxes: []Sandbox{{ID: "s", Ready: true, IP: "10.0.0.1", AdditionalIPs: []string{"fd00::1"}}}}
	if got := testing.AllocsPerRun(20, func() { p.IPs() }); got > 1 {
		t.Errorf("IPs() allocates %v times, budget 1", got)
	}
}
