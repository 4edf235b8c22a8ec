// Package quietklog silences klog, which the kubelet code logs through.
package quietklog

import (
	"flag"
	"io"
	"os"

	"k8s.io/klog/v2"
)

// EnvKeepLogs names an environment variable; when it is non-empty, Silence
// leaves klog untouched and sets its verbosity to the variable's value
// (e.g. DIFFERENTIAL_KLOG=4), which helps when debugging a failing case.
const EnvKeepLogs = "DIFFERENTIAL_KLOG"

// Silence discards all klog output (including the legacy stderr copy of
// error-level messages). Call it from TestMain before m.Run.
func Silence() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if v := os.Getenv(EnvKeepLogs); v != "" {
		_ = fs.Set("v", v)
		return
	}
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
}
