// Package argcheck parses and bounds command-line values so that a bad
// flag is a clear error naming the flag, the value and the valid range,
// instead of a silent zero, a negative size or a crash later on.
package argcheck

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration is a flag.Value for a time.Duration within [Min, Max] (Max 0:
// no upper bound) that must be a whole multiple of Unit when Unit is set
// (e.g. time.Millisecond for LoadGen settings kept in ms). Zero is allowed
// only when AllowZero is set. The zero Duration accepts any non-negative
// value. It is not safe for concurrent use.
type Duration struct {
	Name      string // the flag, e.g. "--duration", for messages
	Min, Max  time.Duration
	Unit      time.Duration
	AllowZero bool
	D         time.Duration
}

// String implements flag.Value.
func (d *Duration) String() string {
	if d == nil {
		return ""
	}
	return d.D.String()
}

// Set implements flag.Value.
func (d *Duration) Set(s string) error {
	v, err := ParseDuration(d.Name, s)
	if err != nil {
		return err
	}
	if err := d.check(v); err != nil {
		return err
	}
	d.D = v
	return nil
}

func (d *Duration) check(v time.Duration) error {
	if v == 0 {
		if d.AllowZero {
			return nil
		}
		return fmt.Errorf("%s 0: want a positive duration", d.Name)
	}
	if v < 0 {
		return fmt.Errorf("%s %v: a duration cannot be negative", d.Name, v)
	}
	if v < d.Min {
		return fmt.Errorf("%s %v: want at least %v", d.Name, v, d.Min)
	}
	if d.Max > 0 && v > d.Max {
		return fmt.Errorf("%s %v: want at most %v", d.Name, v, d.Max)
	}
	if d.Unit > 0 && v%d.Unit != 0 {
		return fmt.Errorf("%s %v: want a whole number of %v (LoadGen keeps this setting in %v)", d.Name, v, d.Unit, d.Unit)
	}
	return nil
}

// ParseDuration is time.ParseDuration with messages for people: a bare
// number says that a unit is needed and which units exist.
func ParseDuration(name, s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("%s: empty value: want a duration such as 10s, 500ms or 10m", name)
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return 0, fmt.Errorf("%s %s: a duration needs a unit: write %ss (seconds), %sms or %sm (units: ns, us, ms, s, m, h)", name, t, t, t, t)
	}
	v, err := time.ParseDuration(t)
	if err != nil && tooLong(t) {
		return 0, fmt.Errorf("%s %s: too long: a duration is at most %v (about 292 years)", name, t, time.Duration(math.MaxInt64))
	}
	if err != nil {
		return 0, fmt.Errorf("%s %q: not a duration: want a number with a unit, such as 10s, 500ms or 10m (units: ns, us, ms, s, m, h)", name, s)
	}
	return v, nil
}

// Int checks an integer flag value against [min, max].
func Int(name string, v, min, max int) error {
	if v < min || v > max {
		return fmt.Errorf("%s %d: want %d to %d", name, v, min, max)
	}
	return nil
}

// Float checks a float flag value: finite and within [min, max].
func Float(name string, v, min, max float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < min || v > max {
		return fmt.Errorf("%s %g: want a finite number from %g to %g", name, v, min, max)
	}
	return nil
}

// tooLong reports whether s is a well-formed duration (digits, a dot and
// the units time.ParseDuration knows) that is out of its range.
func tooLong(s string) bool {
	t := strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-")
	if t == "" || !strings.ContainsAny(t[:1], "0123456789.") {
		return false
	}
	// Replace the units by a valid one and parse again with a tiny scale:
	// if that parses, only the magnitude was wrong.
	r := strings.NewReplacer("ns", "ns", "us", "ns", "µs", "ns", "μs", "ns", "ms", "ns", "s", "ns", "m", "ns", "h", "ns")
	small := r.Replace(t)
	if _, err := time.ParseDuration(small); err == nil {
		return true
	}
	// Each number of nanoseconds may itself overflow: compare digit runs.
	for _, f := range strings.FieldsFunc(t, func(c rune) bool { return !(c >= '0' && c <= '9' || c == '.') }) {
		if v, err := strconv.ParseFloat(f, 64); err == nil && v > math.MaxInt64/2 {
			return true
		}
	}
	return false
}
