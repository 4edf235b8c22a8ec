package sim

import "math/rand/v2"

// drawRun resolves the random parts of a run for one new container
// instance: the part of TermSpread added to TermAfter. The draws come from
// a stream of their own (the seed and the pod's index), so that a script
// with a spread leaves the kubelet's own random choices (requeue jitter,
// probe start) as they are without one.
func (p *podSim) drawRun(r Run) Run {
	if r.TermSpread > 0 {
		if p.procRng == nil {
			p.procRng = rand.New(rand.NewPCG(p.node.cfg.Seed^0x2545f4914f6cdd1d, uint64(p.index)+1))
		}
		r.TermAfter += Duration(p.procRng.Float64() * float64(r.TermSpread))
		r.TermSpread = 0
	}
	return r
}
