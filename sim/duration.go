package sim

import "time"

// The units of Duration, as package time has them for time.Duration, so
// that a duration of the simulation is written without a conversion:
// Config{For: 20 * sim.Minute}, Action{At: 1500 * sim.Millisecond}. A
// time.Duration d you already hold converts with sim.Duration(d), and back
// with d.D().
const (
	Nanosecond  Duration = 1
	Microsecond          = 1000 * Nanosecond
	Millisecond          = 1000 * Microsecond
	Second               = 1000 * Millisecond
	Minute               = 60 * Second
	Hour                 = 60 * Minute
)

// Seconds returns s seconds (a fraction allowed) as a Duration, as the
// JSON form reads a number: sim.Seconds(1.5) is 1.5 s.
func Seconds(s float64) Duration { return Duration(s * float64(time.Second)) }

// Seconds returns d as a floating-point number of seconds.
func (d Duration) Seconds() float64 { return time.Duration(d).Seconds() }

// Milliseconds returns d as an integer number of milliseconds.
func (d Duration) Milliseconds() int64 { return time.Duration(d).Milliseconds() }

// Round returns d rounded to the nearest multiple of m (time.Duration's
// Round).
func (d Duration) Round(m Duration) Duration {
	return Duration(time.Duration(d).Round(time.Duration(m)))
}

// Truncate returns d rounded toward zero to a multiple of m
// (time.Duration's Truncate).
func (d Duration) Truncate(m Duration) Duration {
	return Duration(time.Duration(d).Truncate(time.Duration(m)))
}
