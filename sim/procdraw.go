package sim

import "math/rand/v2"

// drawRun resolves the random parts of a run for one new container
// instance: the part of TermSpread added to TermAfter. The draws come from
// a stream of their own (the seed and the pod's index), so that a script
// with a spread leaves the kubelet's own random choices (requeue jitter,
// probe start) as they are without one.
func (p *podSim) drawRun(r Run) Run {
	if r.TermSpread > 0 {
		r.TermAfter += Duration(p.procDraw() * float64(r.TermSpread))
		r.TermSpread = 0
	}
	return r
}

// procDraw is the next draw in [0, 1) of the stream of what the script
// leaves random.
func (p *podSim) procDraw() float64 {
	if p.procRng == nil {
		p.procRng = rand.New(rand.NewPCG(p.node.cfg.Seed^0x2545f4914f6cdd1d, uint64(p.index)+1))
	}
	return p.procRng.Float64()
}

// syncDelays are the runtime delays one sync plays with: the script's
// (defaulted when the pod was added, so StopContainer is set), with the
// StopContainer spread (RuntimeDelays.StopContainerSpread) drawn once for
// the sync, so for every StopContainer call of a kill.
func (p *podSim) syncDelays() RuntimeDelays {
	d := p.script.Runtime
	if d.StopContainerSpread > 0 {
		d.StopContainer += Duration(p.procDraw() * float64(d.StopContainerSpread))
		d.StopContainerSpread = 0
	}
	return d
}
