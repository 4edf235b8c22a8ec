// Command kubeletlogic answers design-review questions about a pod with the
// decisions of the kubelet v1.37.2, from a manifest:
//
//	kubeletlogic explain -f pod.yaml          what the kubelet does next, and why
//	kubeletlogic simulate -f pod.yaml         its life on a simulated node (kubectl get pod -w, CRI calls)
//	kubeletlogic timeline -f pod.yaml -o svg  the same life drawn as a picture
//	kubeletlogic check -f pod-with-status.yaml could a kubelet have written this status?
//	kubeletlogic --version                    the kubelet version the answers are for
//
// Run `kubeletlogic help` for the flags. Exit codes: 0 ok, 1 bad input (a
// file or a flag value), 2 bad command line, 3 (check) a status no kubelet
// writes.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	nearname "github.com/kubeletlogic/kubeletlogic/internal/nearest"
)

// kubeletVersion is the default kubelet whose decisions the library
// mirrors; each subcommand's --kubelet-version flag selects another one
// (see addGateFlags).
const kubeletVersion = "v1.37.2"

// Exit codes.
const (
	exitOK           = 0
	exitBadInput     = 1
	exitUsage        = 2
	exitInconsistent = 3
)

// env is what a subcommand runs with: its arguments after the subcommand's
// name, the standard streams, and the kubelet version.
type env struct {
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
	kubelet        string
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(e *env) int
}

func commands() []command {
	return []command{
		{"explain", "what the kubelet does next with a pod, the status it writes, restarts, deletion", runExplain},
		{"simulate", "a pod's life on a simulated node: kubectl get pod -w, then the CRI calls", runSimulate},
		{"timeline", "the same simulation drawn as a picture (SVG or HTML)", runTimeline},
		{"check", "whether a kubelet " + kubeletVersion + " could have written a pod's status", runCheck},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command, for tests: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, kubelet: kubeletVersion}
	if len(args) == 0 {
		// The bare command explains the embedded sample pod.
		e.args = nil
		return runExplain(e)
	}
	switch args[0] {
	case "--version", "-version", "version":
		fmt.Fprintf(stdout, "kubeletlogic: the decisions of kubelet %s (the default), v1.36.3 and v1.35.4 (--kubelet-version 1.36, 1.35)\n", kubeletVersion)
		return exitOK
	case "-h", "--help", "-help", "help":
		usage(stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			e.args = args[1:]
			return c.run(e)
		}
	}
	fmt.Fprintf(stderr, "kubeletlogic: unknown command %q%s\n", args[0], suggest(args[0], commandNames()))
	fmt.Fprintln(stderr, "Run 'kubeletlogic help' for the commands.")
	return exitUsage
}

func commandNames() []string {
	var out []string
	for _, c := range commands() {
		out = append(out, c.name)
	}
	return out
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "kubeletlogic: the pod-lifecycle decisions of the kubelet %s, explained.\n\n", kubeletVersion)
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  kubeletlogic                 explain a sample pod (an init container, a native sidecar, an app)")
	for _, c := range commands() {
		fmt.Fprintf(w, "  kubeletlogic %-15s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  kubeletlogic --version       the kubelet version the answers are for\n\n")
	fmt.Fprintln(w, "Run 'kubeletlogic COMMAND -h' for a command's flags.")
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 bad input (a file or a flag value), 2 bad command line, 3 (check) inconsistent status.")
}

// synopses holds each flag set's synopsis, for its help.
var synopses = map[*flag.FlagSet]string{}

// newFlagSet returns a flag set for a subcommand that reports its errors
// itself (exit 2); parseFlags prints its help on -h.
func newFlagSet(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("kubeletlogic "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	synopses[fs] = synopsis
	return fs
}

func printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: %s %s\n\n", fs.Name(), synopses[fs])
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// parseFlags parses e.args; it returns an exit code when the command must
// stop (help shown, or a usage error), and -1 to go on.
func parseFlags(e *env, fs *flag.FlagSet) int {
	err := fs.Parse(e.args)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(e.stdout, fs)
		return exitOK
	}
	if err != nil {
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
			var names []string
			fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
			msg = "unknown flag --" + name + suggest(name, names)
		}
		fmt.Fprintf(e.stderr, "%s: %s\n", fs.Name(), msg)
		fmt.Fprintf(e.stderr, "Run '%s -h' for its flags.\n", fs.Name())
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "%s: unexpected argument %q (files go after -f)\n", fs.Name(), fs.Arg(0))
		return exitUsage
	}
	return -1
}

// suggest returns `; did you mean "x"?` for the name among known nearest to
// s, or "" when none is near.
func suggest(s string, known []string) string {
	if n := nearest(s, known); n != "" {
		return fmt.Sprintf(" (did you mean %q?)", n)
	}
	return ""
}

// nearest returns the name in known closest to s in edit distance (case
// ignored), when it is close enough to be a misspelling; else "". The
// library's errors use the same rule (internal/nearest).
func nearest(s string, known []string) string { return nearname.Name(s, known) }
