package report

import (
	"math"
	"strconv"
	"strings"
)

// dur formats a duration in ns with its unit, four significant digits:
// "812.4 µs", "20.25 ms", "3.210 s". Every time in the page carries its
// unit, so that a unit slip shows (and a test reading the page catches
// it).
func dur(ns float64) string {
	a := math.Abs(ns)
	switch {
	case a < 1e3:
		return strconv.FormatFloat(ns, 'f', 0, 64) + " ns"
	case a < 1e6:
		return sig4(ns/1e3) + " µs"
	case a < 1e9:
		return sig4(ns/1e6) + " ms"
	}
	return sig4(ns/1e9) + " s"
}

// sig4 writes v with four significant digits in fixed notation (values
// from 1 to 999.9 here).
func sig4(v float64) string {
	d := 3
	switch a := math.Abs(v); {
	case a >= 100:
		d = 1
	case a >= 10:
		d = 2
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// rate formats a throughput with its unit ("1031 samples/s").
func rate(v float64, unit string) string {
	switch a := math.Abs(v); {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64) + " " + unit
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64) + " " + unit
	}
	return strconv.FormatFloat(v, 'f', 3, 64) + " " + unit
}

// count formats an integer with thin-space thousands separators.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString("\u202f")
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// pctLabel is a percentile as LoadGen's keys spell it ("99.90") written
// as a label ("p99.9").
func pctLabel(key string) string {
	s := strings.TrimRight(strings.TrimRight(key, "0"), ".")
	return "p" + s
}

// pctOf writes a fraction as a percentile label: 0.99 → "p99", 0.999 →
// "p99.9".
func pctOf(p float64) string {
	return "p" + strconv.FormatFloat(math.Round(p*1e5)/1e3, 'f', -1, 64)
}

// delta is the relative change from a to b in percent.
func delta(a, b float64) float64 {
	if a == 0 {
		return math.NaN()
	}
	return (b - a) / a * 100
}
