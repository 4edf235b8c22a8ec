package kubectlstatus

import (
	"strconv"
	"time"
)

// since is the printer's translateTimestampSince with the clock as an
// argument.
func since(t, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	var buf [24]byte
	return string(appendAge(buf[:0], now.Sub(t)))
}

// appendAge appends d as kubectl prints an age, the text of
// duration.HumanDuration (k8s.io/apimachinery/pkg/util/duration), without
// fmt: "<invalid>" from 2 s in the past on, "0s" for the second before
// now; then seconds up to 2 minutes ("119s"), minutes and seconds up to
// 10 minutes ("9m5s", "3m"), minutes up to 3 hours, hours and minutes up
// to 8 hours, hours up to 2 days, days and hours up to 8 days, days up to
// 2 years (of 365 days), years and days up to 8 years, then years; the
// second unit is left out when it is 0, and every number is truncated.
// TestAppendAge compares the two.
func appendAge(b []byte, d time.Duration) []byte {
	seconds := int(d.Seconds())
	switch {
	case seconds < -1:
		return append(b, "<invalid>"...)
	case seconds < 0:
		return append(b, "0s"...)
	case seconds < 2*60:
		return appendUnits(b, seconds, 's', 0, 0)
	}
	minutes := int(d / time.Minute)
	switch {
	case minutes < 10:
		return appendUnits(b, minutes, 'm', int(d/time.Second)%60, 's')
	case minutes < 3*60:
		return appendUnits(b, minutes, 'm', 0, 0)
	}
	const day, year = 24, 365 * 24 // in hours
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		return appendUnits(b, hours, 'h', minutes%60, 'm')
	case hours < 2*day:
		return appendUnits(b, hours, 'h', 0, 0)
	case hours < 8*day:
		return appendUnits(b, hours/day, 'd', hours%day, 'h')
	case hours < 2*year:
		return appendUnits(b, hours/day, 'd', 0, 0)
	case hours < 8*year:
		return appendUnits(b, hours/year, 'y', hours/day%365, 'd')
	}
	return appendUnits(b, hours/year, 'y', 0, 0)
}

// appendUnits appends n and its unit, then m and its unit unless m is 0.
func appendUnits(b []byte, n int, unit byte, m int, unit2 byte) []byte {
	b = append(strconv.AppendInt(b, int64(n), 10), unit)
	if m != 0 {
		b = append(strconv.AppendInt(b, int64(m), 10), unit2)
	}
	return b
}
