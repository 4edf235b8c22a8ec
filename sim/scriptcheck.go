package sim

import (
	"errors"
	"fmt"

	"github.com/kubeletlogic/kubeletlogic/internal/keycheck"
)

// checkMeaning reports what Script.validate lets through but changes what a
// script means, or means nothing a process does:
//
//   - an exit code outside 0-255 (a process's exit status is one byte; the
//     runtime reports 128+n for a process a signal ended);
//   - probe steps not in increasing order of At: the last step whose At the
//     run's age has reached decides, so a step listed after a later one
//     never decides, and of two steps at the same age the first never does.
func (s Script) checkMeaning() error {
	var errs []error
	for _, name := range keycheck.Sorted(s.Containers) {
		for i, r := range s.Containers[name].Runs {
			at := fmt.Sprintf("script: containers.%s.runs[%d]", name, i)
			for _, c := range []struct {
				field string
				v     int32
			}{{"exitCode", r.ExitCode}, {"termExitCode", r.TermExitCode}} {
				if c.v < 0 || c.v > 255 {
					errs = append(errs, fmt.Errorf("%s.%s: %d is not an exit code (0-255)", at, c.field, c.v))
				}
			}
			for _, l := range []struct {
				field string
				steps []ProbeStep
			}{{"liveness", r.Liveness}, {"readiness", r.Readiness}, {"startup", r.Startup}} {
				for j := 1; j < len(l.steps); j++ {
					if l.steps[j].At <= l.steps[j-1].At {
						errs = append(errs, fmt.Errorf("%s.%s[%d].at: %s is not after the step before it (%s): steps must be in increasing order of age (the last one the age has reached decides)",
							at, l.field, j, l.steps[j].At, l.steps[j-1].At))
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}
