package yamljson

import "testing"

func TestToJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{"{a: 1, b: [p, q]}", `{"a":1,"b":["p","q"]}`},
		{"a: 1\nb:\n  c: true\n", `{"a":1,"b":{"c":true}}`},
		{"t: 2026-11-30T10:00:00Z\n", `{"t":"2026-11-30T10:00:00Z"}`},
		{"", "null"},
	} {
		got, err := ToJSON([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("ToJSON(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := ToJSON([]byte("a: 1\na: 2\n")); err == nil {
		t.Error("duplicate key accepted")
	}
}
