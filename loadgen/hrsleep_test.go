package loadgen

import (
	"testing"
	"time"
)

// TestHRSleeperNeverWakesEarly: the issuer's sleeper waits at least the
// time asked whenever it reports a full sleep, for waits below a
// millisecond (where time.Sleep rounds up to the scheduler's 1 ms poll)
// and above, reused many times.
func TestHRSleeperNeverWakesEarly(t *testing.T) {
	s := newHRSleeper()
	defer s.close()
	full := 0
	for i := range 50 {
		d := time.Duration(20+i*40) * time.Microsecond
		start := time.Now()
		if !s.sleep(d) {
			continue // a signal ended it; the issuer plans again
		}
		full++
		if got := time.Since(start); got < d {
			t.Fatalf("sleep(%v) returned after %v", d, got)
		}
	}
	if full == 0 {
		t.Fatal("every sleep was cut short by a signal")
	}
}
