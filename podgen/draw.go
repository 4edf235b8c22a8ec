package podgen

import (
	"fmt"
	"math/bits"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"
)

// Epoch is the instant every generated timestamp is an offset from. Nothing
// in the package reads the wall clock, so a rapid seed reproduces a value
// exactly.
var Epoch = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// chance draws a coin that comes up true in about pct percent of draws.
// It shrinks towards false, so that a minimized failing case keeps only the
// features it needs.
func chance(t *rapid.T, pct int, label string) bool {
	switch {
	case pct <= 0:
		return false
	case pct >= 100:
		return true
	}
	coinsOnce.Do(func() {
		for p := range coins {
			coins[p] = rapid.Map(uniformGen(100), func(x int) bool { return x >= 100-p })
		}
	})
	return coins[pct].Draw(t, label)
}

var (
	coinsOnce sync.Once
	coins     [100]*rapid.Generator[bool] // coins[p] comes up true p% of the time
)

// weighted draws an index into weights with probability proportional to
// each weight. It shrinks towards index 0, so list the plainest choice
// first.
func weighted(t *rapid.T, label string, weights ...int) int {
	return cached(fmt.Sprint("weights ", weights), func() any {
		ws := append([]int(nil), weights...)
		total := 0
		for _, w := range ws {
			total += w
		}
		last := len(ws) - 1
		return rapid.Map(uniformGen(total), func(x int) int {
			// x < total: when no earlier weight takes x, the last does.
			for i, w := range ws[:last] {
				if x < w {
					return i
				}
				x -= w
			}
			return last
		})
	}).(*rapid.Generator[int]).Draw(t, label)
}

// uniformGen generates integers in [0, n) with every value about equally
// likely, shrinking towards 0, in one draw.
//
// rapid's integer generators favour small and extreme values on purpose;
// that suits sizes, but would skew the probabilities chance and weighted
// promise. Fair bits drawn one by one fix that but make shrinking several
// times slower. So uniformGen draws one k-bit integer the usual way and
// reverses its bits: the small values rapid favours (those with only the
// low bits set) land on evenly spaced points across the range, and 0 stays
// 0.
func uniformGen(n int) *rapid.Generator[int] {
	if n <= 1 {
		return rapid.Just(0)
	}
	k := bits.Len(uint(n-1)) + 2
	return rapid.Map(rapid.IntRange(0, 1<<k-1), func(x int) int {
		return int(bits.Reverse64(uint64(x))>>(64-k)) * n >> k
	})
}

var generators sync.Map // string -> generator built by cached

// cached returns the generator stored under key, building it with build
// the first time. Generators are immutable and safe to share.
func cached(key string, build func() any) any {
	if g, ok := generators.Load(key); ok {
		return g
	}
	g, _ := generators.LoadOrStore(key, build())
	return g
}

// pick draws one element of xs.
func pick[E any](t *rapid.T, label string, xs []E) E {
	return xs[rapid.IntRange(0, len(xs)-1).Draw(t, label)]
}

func ptr[E any](v E) *E { return &v }

func seconds(n int) time.Duration { return time.Duration(n) * time.Second }

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }
