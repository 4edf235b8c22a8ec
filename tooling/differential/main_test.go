//go:build kubeletlogic_overlay

package differential

import (
	"os"
	"testing"

	"github.com/kubeletlogic/kubeletlogic/tooling/differential/internal/quietklog"
)

func TestMain(m *testing.M) {
	quietklog.Silence()
	code := m.Run()
	printCompared()
	os.Exit(code)
}
