package plot

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// The pictures of docs/beside-kwok.md: each is drawn from a data file the
// benchmark writes beside it (DIR/<name>.json, DIR/<name>.svg), so that
// node/bench/plot can draw it again from the data alone.
const (
	CrashLoopName = "beside-kwok-crashloop"
	ScaleName     = "beside-kwok-scale"
)

// CrashLoop is TestSideBySide's crash-looping pod: the highest restart
// count of its containers over time (step series, seconds since the pod's
// creation) on each pool ("kwok", "kl") and in the real kubelet's capture
// ("capture": testdata/captured/crashloop-long.json).
type CrashLoop struct {
	WatchedS float64            `json:"watched_s"`
	Date     string             `json:"date"`
	Command  string             `json:"command"`
	Series   map[string][]Point `json:"series"`
}

// Chart is the picture.
func (d CrashLoop) Chart() Chart {
	return Chart{
		Title:  "One crash-looping pod (its container exits 1 after each run): restart count",
		XLabel: "time since the pod's creation (s)", YLabel: "restartCount of its container",
		XMax: d.WatchedS, YStep: 1,
		Series: []Series{
			{Name: "real kubelet v1.37.2 (capture crashloop-long, `sleep 1; exit 1`)", Color: "#2ca02c", Step: true, Points: d.Series["capture"]},
			{Name: "kubeletlogic-node (script: exit 1 after 2 s)", Color: "#1f77b4", Step: true, Points: d.Series["kl"]},
			{Name: "KWOK v0.8.0, default pod stages (same pod; it ignores the script)", Color: "#d62728", Dash: "8 4", Step: true, Points: d.Series["kwok"]},
		},
		Note: fmt.Sprintf("TestSideBySide with KUBELETLOGIC_PLOT_OUT, %s; the capture: testdata/captured/crashloop-long.json", day(d.Date)),
	}
}

// Scale is TestScale's pods Running per pool over time: rows of seconds
// since both Deployments were created, KWOK's count, kubeletlogic-node's.
type Scale struct {
	Nodes    int         `json:"nodes_per_pool"`
	Pods     int         `json:"pods_per_pool"`
	DeletedS float64     `json:"deleted_s"`
	Date     string      `json:"date"`
	LoadAvg  string      `json:"loadavg_at_end"`
	Columns  []string    `json:"columns"`
	Rows     [][]float64 `json:"rows"`
}

// Chart is the picture.
func (d Scale) Chart() Chart {
	var kwok, kl []Point
	for _, r := range d.Rows {
		if len(r) == 3 {
			kwok = append(kwok, Point{X: r[0], Y: r[1]})
			kl = append(kl, Point{X: r[0], Y: r[2]})
		}
	}
	return Chart{
		Title: "Pods Running per pool, KWOK and kubeletlogic-node side by side",
		Subtitle: fmt.Sprintf("%s nodes and a Deployment of %s pods per pool, both pools on one control plane, created at once",
			num(float64(d.Nodes)), num(float64(d.Pods))),
		XLabel: "time since both Deployments were created (s)", YLabel: "pods Running (phase)",
		Series: []Series{
			{Name: "KWOK v0.8.0, default (fast) pod stages", Color: "#d62728", Dash: "8 4", Points: kwok},
			{Name: "kubeletlogic-node", Color: "#1f77b4", Points: kl},
		},
		Marks: []Mark{{X: d.DeletedS, Label: "Deployments deleted"}},
		Note: fmt.Sprintf("TestScale (node/bench/scale.sh %d %d with KUBELETLOGIC_PLOT_OUT), %s, 2 shared cores; sampled every 0.5 s",
			d.Nodes, d.Pods, day(d.Date)),
	}
}

func day(rfc3339 string) string {
	if len(rfc3339) >= 10 {
		return rfc3339[:10]
	}
	return rfc3339
}

// Write writes data as DIR/name.json and its chart as DIR/name.svg.
func Write(dir, name string, data interface{ Chart() Chart }) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".svg"), data.Chart().SVG(), 0o644)
}

// Redraw draws DIR/name.svg again from DIR/name.json for each picture
// whose data file is there, and returns the names drawn.
func Redraw(dir string) ([]string, error) {
	var done []string
	for _, f := range []struct {
		name string
		data interface{ Chart() Chart }
	}{{CrashLoopName, &CrashLoop{}}, {ScaleName, &Scale{}}} {
		b, err := os.ReadFile(filepath.Join(dir, f.name+".json"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return done, err
		}
		if err := json.Unmarshal(b, f.data); err != nil {
			return done, fmt.Errorf("%s.json: %v", f.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name+".svg"), f.data.Chart().SVG(), 0o644); err != nil {
			return done, err
		}
		done = append(done, f.name)
	}
	return done, nil
}
