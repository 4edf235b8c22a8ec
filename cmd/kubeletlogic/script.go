package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/kubeletlogic/kubeletlogic/sim"
	"github.com/kubeletlogic/kubeletlogic/vocab"
)

// readScript reads a script file (sim.ReadScript: the format, its checks
// and its messages are the library's) against the pods, and names the file
// in its errors.
func readScript(data []byte, file string, pods []loadedPod) (*sim.ScriptFile, error) {
	ps := make([]*v1.Pod, len(pods))
	for i, lp := range pods {
		ps[i] = lp.pod
	}
	s, err := sim.ReadScript(data, ps)
	var se *sim.ScriptError
	if errors.As(err, &se) {
		return nil, scriptInputError(file, *se)
	}
	return s, err
}

// scriptInputError is a script's error or warning as an inputError of the
// file: file:line: path: what.
func scriptInputError(file string, e sim.ScriptError) *inputError {
	msg := e.Msg
	if e.Path != "" {
		msg = e.Path + ": " + msg
	}
	return &inputError{file: file, line: e.Line, msg: msg}
}

// describeRun says in words what one run of a container does.
func describeRun(r sim.Run) string {
	var parts []string
	if r.ExitAfter > 0 {
		parts = append(parts, fmt.Sprintf("exits %d after %s", r.ExitCode, r.ExitAfter))
	} else {
		parts = append(parts, "runs until stopped")
	}
	switch {
	case r.IgnoreSIGTERM:
		parts = append(parts, "ignores SIGTERM")
	case r.TermAfter > 0 || r.TermExitCode != 0:
		when := r.TermAfter.String() + " after SIGTERM"
		if r.TermAfter == 0 {
			when = "at once on SIGTERM"
		}
		parts = append(parts, fmt.Sprintf("exits %d %s", r.TermExitCode, when))
	}
	if r.PreStop > 0 {
		parts = append(parts, "preStop hook runs "+r.PreStop.String())
	}
	parts = append(parts, describeHooks(r)...)
	for _, p := range []struct {
		name  string
		steps []sim.ProbeStep
	}{{"liveness", r.Liveness}, {"readiness", r.Readiness}, {"startup", r.Startup}} {
		if len(p.steps) == 0 {
			continue
		}
		var ss []string
		for _, s := range p.steps {
			verb := "fails"
			if s.Result == vocab.ProbeSuccess {
				verb = "succeeds"
			}
			ss = append(ss, fmt.Sprintf("%s from %s", verb, time.Duration(s.At)))
		}
		parts = append(parts, p.name+" "+strings.Join(ss, ", "))
	}
	return strings.Join(parts, ", ")
}

// describeBehaviour says what a container does, run after run.
func describeBehaviour(b sim.Behaviour) string {
	switch len(b.Runs) {
	case 0:
		return "runs until stopped"
	case 1:
		return describeRun(b.Runs[0]) + ", every run"
	}
	var parts []string
	for i, r := range b.Runs {
		label := fmt.Sprintf("run %d", i+1)
		if i == len(b.Runs)-1 {
			label = fmt.Sprintf("run %d on", i+1)
		}
		parts = append(parts, label+": "+describeRun(r))
	}
	return strings.Join(parts, "; ")
}
