package sim

import (
	"runtime"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestParallelismDefaultWorkers: Config.Parallelism 0 runs the due pods of
// the independent engine on GOMAXPROCS workers (no more than pods), each
// with an entry arena of its own and no spare one (Node.run).
func TestParallelismDefaultWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	for _, c := range []struct{ pods, arenas int }{{2, 2}, {3, 3}, {5, 3}} {
		n := NewNode(Config{Seed: 1, RuntimeContention: -1})
		for i := 0; i < c.pods; i++ {
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: string(rune('a' + i))},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: "busybox"}}}}
			if err := n.AddPod(n.Start(), pod, Script{}); err != nil {
				t.Fatal(err)
			}
		}
		n.Advance(n.Start().Add(time.Second))
		if len(n.arenas) != c.arenas {
			t.Errorf("%d pods, GOMAXPROCS 3: %d arenas, want %d (one per worker)", c.pods, len(n.arenas), c.arenas)
		}
	}
}
