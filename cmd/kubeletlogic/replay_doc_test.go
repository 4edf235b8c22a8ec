package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/kubeletlogic/kubeletlogic/features"
	"github.com/kubeletlogic/kubeletlogic/sim"
)

// documentedSimulations returns the simulate commands the README and
// docs/ show (each `go run ./cmd/kubeletlogic simulate ...` or
// `kubeletlogic simulate ...`, with its continuation lines) and those the
// example scripts' header comments give, as argument lists after
// "simulate".
func documentedSimulations(t *testing.T) map[string][]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "README.md"))
	scripts, _ := filepath.Glob(filepath.Join("..", "..", "examples", "manifests", "scripts", "*.yaml"))
	files = append(files, scripts...)
	re := regexp.MustCompile(`kubeletlogic simulate (.*)$`)
	out := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for line := 1; sc.Scan(); line++ {
			m := re.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			cmd := strings.TrimSpace(m[1])
			for strings.HasSuffix(cmd, `\`) && sc.Scan() {
				line++
				cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(strings.TrimLeft(sc.Text(), "# "))
			}
			if strings.ContainsAny(cmd, "|<>`") || strings.Contains(cmd, "...") {
				continue // a synopsis or a pipeline, not a command
			}
			args := strings.Fields(cmd)
			placeholder := false
			for i, a := range args {
				if strings.HasPrefix(a, "examples/") {
					args[i] = filepath.Join("..", "..", a)
				}
				if i > 0 && (args[i-1] == "-f" || args[i-1] == "--script") {
					if _, err := os.Stat(args[i]); err != nil {
						placeholder = true // "-f pod.yaml": a file of the reader's
					}
				}
			}
			if placeholder {
				t.Logf("%s:%d: %s: not a file of the repository", f, line, cmd)
				continue
			}
			out[filepath.Base(f)+":"+strconv.Itoa(line)] = args
		}
	}
	return out
}

// replayMatches runs simulate with args as JSON and as text, reads the JSON
// document with sim alone, replays it, and checks that the replay is the
// timeline the document holds and prints as the text output does.
func replayMatches(t interface{ Fatalf(string, ...any) }, name string, args []string) {
	js, errOut, code := runCmd(append(append([]string{"simulate"}, args...), "-o", "json"), "")
	if code != 0 {
		t.Fatalf("%s: simulate -o json: exit %d: %s", name, code, errOut)
	}
	doc, err := sim.ReadSimulation([]byte(js))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := doc.Verify(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tl, err := doc.Replay()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text, _, code := runCmd(append([]string{"simulate"}, args...), "")
	if code != 0 {
		t.Fatalf("%s: simulate: exit %d", name, code)
	}
	for what, want := range map[string]string{"watch view": tl.Watch(), "CRI calls": "\nCRI calls:\n" + tl.Calls()} {
		if !strings.Contains(text, want) {
			t.Fatalf("%s: the %s of the replayed document is not what simulate printed:\n%s", name, what, lineDiff(text, want))
		}
	}
}

// TestSimulationDocumentsReplay: the -o json output of every simulate
// command the README, docs/ and the example scripts show, and of the
// golden simulations, replayed by package sim alone from the document,
// gives the timeline the document holds and the one simulate printed.
func TestSimulationDocumentsReplay(t *testing.T) {
	cmds := documentedSimulations(t)
	readme := 0
	for name := range cmds {
		if strings.HasPrefix(name, "README.md:") {
			readme++
		}
	}
	if readme == 0 || len(cmds) < 5 {
		t.Fatalf("found %d documented simulate commands (%d in the README): %v", len(cmds), readme, cmds)
	}
	for _, c := range simCases {
		cmds["golden "+c.name] = c.args
	}
	for name, args := range cmds {
		replayMatches(t, name, args)
	}
	t.Logf("%d simulate commands replayed (%d from the README)", len(cmds), readme)
}

// TestSimulationDocumentsReplayRandom: the same for an example with its
// script run with random seeds, kubelet versions, gates, lengths and
// deletions.
func TestSimulationDocumentsReplayRandom(t *testing.T) {
	ran, refused := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		c := rapid.SampledFrom(simCases).Draw(t, "example")
		args := append([]string{}, c.args...)
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "--for" {
				args = append(args[:i], args[i+2:]...)
			}
		}
		forSecs := rapid.IntRange(5, 300).Draw(t, "for seconds")
		args = append(args, "--for", strconv.Itoa(forSecs)+"s", "--seed", strconv.Itoa(rapid.IntRange(0, 1<<30).Draw(t, "seed")))
		v := rapid.SampledFrom(features.Versions()).Draw(t, "kubelet version")
		args = append(args, "--kubelet-version", strings.TrimPrefix(v.String(), "v"))
		for _, g := range []features.Gate{features.ReduceDefaultCrashLoopBackOffDecay, features.RestartAllContainersOnContainerExits} {
			if v.Has(g) && rapid.Bool().Draw(t, "flip "+string(g)) {
				args = append(args, "--gate", string(g)+"="+map[bool]string{true: "false", false: "true"}[v.Default(g)])
			}
		}
		if rapid.Bool().Draw(t, "delete") {
			args = append(args, "--delete-at", strconv.Itoa(rapid.IntRange(0, forSecs-1).Draw(t, "delete at"))+"s")
		}
		if _, errOut, code := runCmd(append(append([]string{"simulate"}, args...), "-o", "json"), ""); code != 0 {
			refused++
			t.Skipf("simulate %v: exit %d: %s", args, code, errOut)
		}
		ran++
		replayMatches(t, strings.Join(args, " "), args)
	})
	t.Logf("%d random simulate commands replayed, %d refused by simulate", ran, refused)
	if refused > ran/4 {
		t.Errorf("simulate refused %d of %d random commands", refused, ran+refused)
	}
}
