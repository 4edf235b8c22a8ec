package main

import (
	"fmt"

	"github.com/kubeletlogic/kubeletlogic/sim"
)

// checkSimTimes reports what the flags and the script ask for after the end
// of the simulation: --delete-at or --remove-at not before --for is a
// usage error (the deletion would never be seen); a script action after
// it, a warning (the same script may serve a longer run).
func checkSimTimes(f *simFlags, s *sim.ScriptFile, file string) (string, []string) {
	end := f.forDur.d
	for _, fl := range []struct {
		name string
		v    durationFlag
	}{{"--delete-at", f.deleteAt}, {"--remove-at", f.removeAt}} {
		if fl.v.set && fl.v.d >= end {
			return fmt.Sprintf("%s %s is not before the end of the simulation (--for %s): nothing of it would be seen; give a longer --for", fl.name, fl.v.d, end), nil
		}
	}
	var warnings []string
	for i, a := range s.Actions {
		if a.At.D() > end {
			path := fmt.Sprintf("actions[%d].at", i)
			e := &inputError{file: file, line: s.Line(path),
				msg: fmt.Sprintf("%s: %s is after the end of the simulation (--for %s): the action (%s) never happens", path, a.At, end, a.Action())}
			warnings = append(warnings, e.Error())
		}
	}
	return "", warnings
}
