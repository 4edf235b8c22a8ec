package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Input checks that refuse what the tool would otherwise read wrongly or
// silently ignore; each names the mistake.
func TestInputChecksRefuse(t *testing.T) {
	dir := t.TempDir()
	rt := filepath.Join(dir, "runtime.yaml")
	if err := os.WriteFile(rt, []byte("sandboxes:\n- {id: s1, ready: true, ip: 10.244.1.7}\ncontainers:\n- {id: c2, name: report, sandboxID: s2, state: running}\n- {id: c1, name: proxy, sandboxID: s1, state: running}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"runtime container in a sandbox not listed", []string{"explain", "-f", ex + "sidecar-job.yaml", "--runtime", rt}, 1,
			[]string{"runtime.yaml:4:", `sandboxID "s2" is not one of the sandboxes listed`}},
		{"--for 0s", []string{"simulate", "-f", ex + "crashloop.yaml", "--for", "0s"}, 2, []string{"longer than 0s"}},
	}
	// --gate takes true or false only, not the other spellings
	// strconv.ParseBool reads.
	for _, v := range []string{"1", "0", "t", "f", "TRUE", "False", "T"} {
		cases = append(cases, struct {
			name string
			args []string
			code int
			want []string
		}{"--gate value " + v, []string{"explain", "-f", ex + "crashloop.yaml", "--gate", "ContainerRestartRules=" + v}, 1, []string{"the value must be true or false"}})
	}
	for _, tc := range cases {
		out, errOut, code := runCmd(tc.args, "")
		if code != tc.code || out != "" {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr %s", tc.name, code, tc.code, out, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, w, errOut)
			}
		}
	}
}
