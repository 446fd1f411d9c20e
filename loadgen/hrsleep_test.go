package loadgen

import (
	"testing"
	"time"
)

// TestHRSleeperNeverWakesEarly: the issuer's sleeper waits at least the
// time asked, for waits below a millisecond (where time.Sleep rounds up to
// the scheduler's 1 ms poll) and above, reused many times.
func TestHRSleeperNeverWakesEarly(t *testing.T) {
	s := newHRSleeper()
	if s == nil {
		t.Skip("no timerfd on this system; the issuer uses time.Sleep")
	}
	defer s.close()
	for i := range 50 {
		d := time.Duration(20+i*40) * time.Microsecond
		start := time.Now()
		s.sleep(d)
		if got := time.Since(start); got < d {
			t.Fatalf("sleep(%v) returned after %v", d, got)
		}
	}
}
