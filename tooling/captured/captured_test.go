package captured

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadEveryFixture(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "captured", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, p := range paths {
		f, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimSuffix(filepath.Base(p), ".json"); f.Scenario != want {
			t.Errorf("%s: scenario %q", p, f.Scenario)
		}
	}
}

func TestDecodeIsStrict(t *testing.T) {
	for _, in := range []string{
		`{"scenario":"x","pod":{},"observations":[{"runtime":{}}],"extra":1}`,
		`{"scenario":"x","observations":[{"runtime":{}}]}`,
		`{"scenario":"x","pod":{}}`,
		`{"scenario":"x","pod":{},"observations":[{"runtime":{}}],"criCalls":[{"method":"X","resources":{"memoryLimitBytes":1,"swap":2}}]}`,
	} {
		if _, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%s) accepted", in)
		}
	}
	f, err := Decode([]byte(`{"scenario":"x","pod":{},"observations":[{"runtime":{}}],"criCalls":[{"method":"UpdateContainerResources","resources":{"memoryLimitBytes":100663296}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if f.CRICalls[0].Resources.MemoryLimitBytes != 100663296 {
		t.Errorf("resources not read: %+v", f.CRICalls[0])
	}
}
