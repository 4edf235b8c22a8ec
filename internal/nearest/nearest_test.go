package nearest

import "testing"

func TestName(t *testing.T) {
	known := []string{"app", "sidecar", "init-db", "proxy"}
	for _, tc := range []struct{ s, want string }{
		{"ap", "app"}, {"APP", "app"}, {"sidcar", "sidecar"}, {"init_db", "init-db"},
		{"proxyy", "proxy"}, {"database-migrations", ""}, {"zzzzzzzz", ""},
	} {
		if got := Name(tc.s, known); got != tc.want {
			t.Errorf("Name(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
	if Name("x", nil) != "" {
		t.Error("Name with nothing known found something")
	}
	if got := Suggest("ap", known); got != ` (did you mean "app"?)` {
		t.Errorf("Suggest = %q", got)
	}
	if Suggest("qqqqqqqq", known) != "" {
		t.Error("Suggest of a far name")
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"app", "app", 0}, {"ab", "ba", 2}} {
		if got := Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
		if Distance(tc.a, tc.b) != Distance(tc.b, tc.a) {
			t.Errorf("Distance(%q, %q) not symmetric", tc.a, tc.b)
		}
	}
}
