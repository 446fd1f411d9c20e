package argcheck

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func TestDurationFlag(t *testing.T) {
	for _, tc := range []struct {
		d    Duration
		in   string
		want string // "" = accepted
	}{
		{Duration{Name: "--duration", Unit: time.Millisecond}, "1ns", "whole number of 1ms"},
		{Duration{Name: "--duration", Unit: time.Millisecond}, "1.5s", ""},
		{Duration{Name: "--duration"}, "5", "needs a unit"},
		{Duration{Name: "--service-time", AllowZero: true}, "-1s", "cannot be negative"},
		{Duration{Name: "--time"}, "0s", "positive"},
		{Duration{Name: "--time"}, "-1s", "cannot be negative"},
		{Duration{Name: "--time", Max: time.Hour}, "2h", "at most 1h"},
		{Duration{Name: "--time"}, "ten seconds", "not a duration"},
		{Duration{Name: "--duration"}, "100000000h", "too long"},
		{Duration{Name: "--duration"}, "99999999999999999999ns", "too long"},
		{Duration{Name: "--duration"}, "10x", "not a duration"},
		{Duration{Name: "--time"}, "", "empty"},
		{Duration{Name: "--time", AllowZero: true}, "0", "needs a unit"},
	} {
		err := tc.d.Set(tc.in)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %q: %v", tc.d.Name, tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.d.Name)):
			t.Errorf("%s %q: err = %v, want %q", tc.d.Name, tc.in, err, tc.want)
		}
	}
	// It works as a flag.Value.
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	d := &Duration{Name: "--duration"}
	fs.Var(d, "duration", "")
	if err := fs.Parse([]string{"--duration", "5"}); err == nil || !strings.Contains(err.Error(), "needs a unit") {
		t.Fatalf("flag: %v", err)
	}
}

func TestIntFloat(t *testing.T) {
	if Int("--batch", 0, 1, 4096) == nil || Int("--batch", 8, 1, 4096) != nil {
		t.Fatal("Int")
	}
	for _, v := range []float64{-1, 1e300, 0} {
		if Float("--qps", v, 1e-9, 1e7) == nil {
			t.Errorf("Float accepted %g", v)
		}
	}
}

// The flag layer never panics and never accepts what it should refuse.
func FuzzDurationFlag(f *testing.F) {
	for _, s := range []string{"10s", "5", "-1s", "1ns", "0", "1e9h", "9999999999h", "1.5ms", " 3s ", "∞s", ".s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := Duration{Name: "--d", Min: time.Millisecond, Max: 24 * time.Hour, Unit: time.Millisecond}
		if err := d.Set(s); err == nil {
			if d.D < time.Millisecond || d.D > 24*time.Hour || d.D%time.Millisecond != 0 {
				t.Fatalf("%q accepted as %v", s, d.D)
			}
		} else if !strings.HasPrefix(err.Error(), "--d") {
			t.Fatalf("%q: message does not name the flag: %v", s, err)
		}
	})
}
