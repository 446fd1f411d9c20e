package loadgen

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// fakeIssuer replays the issuer's loop (waitFor + dueRun) on a fake
// clock: a sleep asked to end at t ends at t + lateness(), a poll
// advances the clock by pollNs, issuing a query costs issueNs.
type fakeIssuer struct {
	now      int64
	lateness func() int64
	pollNs   int64
	issueNs  int64
	sleeps   int
	spunNs   int64
}

// issue runs the schedule and returns each query's lag (issue time −
// due time) and the IssueQuery calls' sizes.
func (f *fakeIssuer) issue(sched []int64, coalesce bool) (lags []int64, calls []int) {
	p := newPacer()
	for i := 0; i < len(sched); {
		woke := false
	wait:
		for {
			kind, until := p.plan(f.now, sched, i, woke)
			switch kind {
			case waitNone:
				break wait
			case waitSpin:
				for f.now < sched[i] {
					f.now += f.pollNs
					f.spunNs += f.pollNs
				}
				break wait
			case waitSleep, waitLong:
				if until <= f.now {
					panic("a sleep asked to end in the past")
				}
				f.sleeps++
				f.now = until + f.lateness()
				woke = true
				p.observe(until, f.now)
			}
		}
		end := dueRun(sched, i, f.now, coalesce)
		for q := i; q < end; q++ {
			lags = append(lags, f.now-sched[q])
		}
		calls = append(calls, end-i)
		f.now += f.issueNs
		i = end
	}
	return lags, calls
}

func poisson(n int, qps float64, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]int64, n)
	t := int64(1_000_000)
	for i := range out {
		out[i] = t
		t += int64(r.ExpFloat64() / qps * 1e9)
	}
	return out
}

// TestPacerNeverIssuesEarly: whatever the lateness of sleeps (none,
// steady, erratic, huge), no query leaves before its due time, and every
// query is issued exactly once, in order.
func TestPacerNeverIssuesEarly(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for name, late := range map[string]func() int64{
		"exact":   func() int64 { return 0 },
		"steady":  func() int64 { return 20_000 },
		"erratic": func() int64 { return r.Int64N(300_000) },
		"huge":    func() int64 { return 5_000_000 },
	} {
		for _, qps := range []float64{100, 20_000, 100_000, 2_000_000} {
			sched := poisson(3000, qps, 3)
			f := &fakeIssuer{lateness: late, pollNs: 30, issueNs: 200}
			lags, calls := f.issue(sched, false)
			if len(lags) != len(sched) || len(calls) != len(sched) {
				t.Fatalf("%s %g QPS: %d lags in %d calls for %d queries", name, qps, len(lags), len(calls), len(sched))
			}
			for q, l := range lags {
				if l < 0 {
					t.Fatalf("%s %g QPS: query %d issued %d ns before its due time", name, qps, q, -l)
				}
			}
		}
	}
}

// TestPacerSleepsBetweenWidelySpacedQueries: at 100 QPS with sleeps that
// end 20 µs late the issuer sleeps before every query and polls the clock
// only for the short rest of its window: it never holds a core between
// queries, and every query leaves within the issue slack plus a poll.
func TestPacerSleepsBetweenWidelySpacedQueries(t *testing.T) {
	sched := poisson(2000, 100, 5)
	f := &fakeIssuer{lateness: func() int64 { return 20_000 }, pollNs: 30, issueNs: 200}
	lags, _ := f.issue(sched, false)
	if f.sleeps < len(sched)-1 {
		t.Errorf("%d sleeps for %d widely spaced queries; want one before each", f.sleeps, len(sched))
	}
	span := sched[len(sched)-1] - sched[0]
	if f.spunNs > span/1000 {
		t.Errorf("polled the clock for %d ns of a %d ns run (over 0.1%%)", f.spunNs, span)
	}
	for q, l := range lags {
		if l > issueSlack+30 {
			t.Fatalf("query %d left %d ns late; the slack is %d ns", q, l, issueSlack)
		}
	}
}

// TestPacerLearnsTheLatenessOfSleeps: when sleeps end 60 µs late, the
// pacer learns it and asks to wake that much earlier, so that widely
// spaced queries still leave at their due time (not 40 µs after it, as
// with the initial estimate); on an exact clock likewise. A query due
// sooner than a sleep's lateness (and not within a poll) may leave that
// late: the issuer sleeps rather than poll the gap.
func TestPacerLearnsTheLatenessOfSleeps(t *testing.T) {
	for _, late := range []int64{0, 60_000} {
		sched := poisson(2000, 1000, 9)
		f := &fakeIssuer{lateness: func() int64 { return late }, pollNs: 30, issueNs: 200}
		lags, _ := f.issue(sched, false)
		var sum int64
		for q, l := range lags[100:] { // after the warm-up
			sum += l
			if l > max(issueSlack, late)+200 {
				t.Fatalf("sleeps %d ns late: query %d left %d ns late", late, q+100, l)
			}
		}
		if mean := sum / int64(len(lags)-100); mean > 1_000 {
			t.Errorf("sleeps %d ns late: mean lag %d ns after warm-up, want under 1 µs", late, mean)
		}
	}
}

// TestPacerGathersQueriesOnOneWakeUp: at 100k QPS (10 µs apart on
// average) with sleeps that end 20 µs late, the issuer wakes up for
// fewer than 28 queries in 100 (31.5 without gathering the queries due
// within issueSlack) and polls under 3 µs per query, and no query leaves
// later than the issue slack plus the issue path of the queries before
// it.
func TestPacerGathersQueriesOnOneWakeUp(t *testing.T) {
	sched := poisson(20000, 100_000, 13)
	f := &fakeIssuer{lateness: func() int64 { return 20_000 }, pollNs: 30, issueNs: 300}
	lags, _ := f.issue(sched, false)
	if f.sleeps*100 >= 28*len(sched) {
		t.Errorf("%d sleeps for %d queries at 100k QPS; want under 28 per 100", f.sleeps, len(sched))
	}
	if per := f.spunNs / int64(len(sched)); per > 3_000 {
		t.Errorf("polled %d ns per query; want under 3 µs", per)
	}
	for q, l := range lags[100:] {
		if l > issueSlack+10*300 {
			t.Fatalf("query %d left %d ns late", q+100, l)
		}
	}
}

// TestPacerIssuesDueQueriesBackToBack: when the issuer is behind (2M QPS
// against a 200 ns issue path), queries that are due leave at once
// without sleeping or polling, one IssueQuery call each.
func TestPacerIssuesDueQueriesBackToBack(t *testing.T) {
	sched := poisson(5000, 2_000_000, 11)
	f := &fakeIssuer{lateness: func() int64 { return 20_000 }, pollNs: 30, issueNs: 1000}
	_, calls := f.issue(sched, false)
	if f.sleeps > 1 {
		t.Errorf("%d sleeps while behind the schedule; want at most the first", f.sleeps)
	}
	for i, c := range calls {
		if c != 1 {
			t.Fatalf("call %d carried %d queries without server_coalesce_queries", i, c)
		}
	}
}

// TestCoalescingJoinsOnlyDueQueries: with server_coalesce_queries every
// query already due at the issue time joins the call (LoadGen's rule:
// due <= now), and no query not yet due does; without it each call
// carries one query.
func TestCoalescingJoinsOnlyDueQueries(t *testing.T) {
	sched := []int64{100, 150, 200, 201, 500}
	for _, c := range []struct {
		from int
		now  int64
		co   bool
		want int
	}{
		{0, 199, true, 2},
		{0, 200, true, 3},
		{0, 201, true, 4},
		{0, 10_000, true, 5},
		{2, 250, true, 4},
		{4, 600, true, 5},
		{0, 10_000, false, 1},
		{3, 10_000, false, 4},
	} {
		if got := dueRun(sched, c.from, c.now, c.co); got != c.want {
			t.Errorf("dueRun(from %d, now %d, coalesce %v) = %d, want %d", c.from, c.now, c.co, got, c.want)
		}
	}
}

// TestPacerPlan pins the decisions at their bounds.
func TestPacerPlan(t *testing.T) {
	p := newPacer() // lateness estimate initLate
	w := p.window()
	if w != initLate {
		t.Fatalf("initial window %d, want %d", w, initLate)
	}
	const now = 1_000_000_000
	for _, c := range []struct {
		name      string
		due       []int64 // due times − now; the query planned is the first
		woke      bool
		kind      waitKind
		wakeAfter int64 // for sleeps: wake time − now
	}{
		{"due", []int64{0}, false, waitNone, 0},
		{"overdue", []int64{-5}, false, waitNone, 0},
		{"a poll's worth", []int64{spinMax}, false, waitSpin, 0},
		{"just over a poll's worth", []int64{spinMax + 1}, false, waitSleep, 1},
		{"woke inside the window", []int64{w}, true, waitSpin, 0},
		{"woke early by more than the window", []int64{w + 1}, true, waitSleep, 1},
		{"a millisecond", []int64{1_000_000}, false, waitSleep, 1_000_000 - w},
		{"the long-wait bound", []int64{longWait}, false, waitSleep, longWait - w},
		{"over the long-wait bound", []int64{longWait + 1}, false, waitLong, longWait + 1 - longMargin},
		{"two more due within the slack", []int64{1_000_000, 1_005_000, 1_000_000 + issueSlack, 1_000_000 + issueSlack + 1}, false, waitSleep, 1_000_000 + issueSlack - w},
		{"the next just past the slack", []int64{1_000_000, 1_000_000 + issueSlack + 1}, false, waitSleep, 1_000_000 - w},
	} {
		sched := make([]int64, len(c.due))
		for i, d := range c.due {
			sched[i] = now + d
		}
		kind, until := p.plan(now, sched, 0, c.woke)
		if kind != c.kind {
			t.Errorf("%s: kind %d, want %d", c.name, kind, c.kind)
			continue
		}
		if (kind == waitSleep || kind == waitLong) && until-now != c.wakeAfter {
			t.Errorf("%s: wakes %d ns from now, want %d", c.name, until-now, c.wakeAfter)
		}
	}
	// The look-ahead is bounded.
	sched := make([]int64, 1000)
	for i := range sched {
		sched[i] = now + 1_000_000 + int64(i)
	}
	if _, until := p.plan(now, sched, 0, false); until != sched[maxGather]-w {
		t.Errorf("gathering %d queries 1 ns apart: wakes at %d, want %d", len(sched), until-now, sched[maxGather]-w-now)
	}
}

// TestPacerWindowIsBounded: the window follows the measured lateness
// but stays within [minWindow, maxWindow], so a machine whose sleeps end
// milliseconds late does not make the issuer poll for milliseconds.
func TestPacerWindowIsBounded(t *testing.T) {
	p := newPacer()
	for range 200 {
		p.observe(0, 10_000_000)
	}
	if w := p.window(); w != maxWindow {
		t.Errorf("window after 10 ms wake-ups: %d, want the bound %d", w, maxWindow)
	}
	for range 200 {
		p.observe(0, 0)
	}
	if w := p.window(); w != minWindow {
		t.Errorf("window after exact wake-ups: %d, want the bound %d", w, minWindow)
	}
	p.observe(100, 50) // a sleep that ended early counts as on time
	if p.late < 0 {
		t.Errorf("lateness estimate %d after an early wake-up", p.late)
	}
}

// TestPacerPollsLittleWhenWakeUpsAreErratic: on a busy machine, where a
// sleep ends 20 µs late plus an exponential 50 µs on average, the pacer
// aims at the quick end of that spread, so that at 1000 QPS it polls
// under 6 µs per query (aiming at the mean lateness polls about 17 µs
// per query there) and most queries still leave within the spread.
func TestPacerPollsLittleWhenWakeUpsAreErratic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sched := poisson(20000, 1000, 3)
	f := &fakeIssuer{lateness: func() int64 { return 20_000 + int64(r.ExpFloat64()*50_000) }, pollNs: 30, issueNs: 300}
	lags, _ := f.issue(sched, false)
	if per := f.spunNs / int64(len(sched)); per >= 6_000 {
		t.Errorf("polled %d ns per query; want under 6 µs", per)
	}
	late := 0
	for _, l := range lags {
		if l > 100_000 {
			late++
		}
	}
	if late*10 > len(lags) {
		t.Errorf("%d of %d queries left over 100 µs late", late, len(lags))
	}
}

// dueTimesFixture returns a schedule of n queries 100 ns apart from
// start 1000, its fully computed due times, and a dueTimes over it.
func dueTimesFixture(n int) (*dueTimes, []int64) {
	rel := make([]int64, n)
	want := make([]int64, n)
	for i := range rel {
		rel[i] = int64(100 * i)
		want[i] = 1000 + rel[i]
	}
	return &dueTimes{sched: make([]int64, n), rel: rel, start: 1000}, want
}

// TestDueTimesFillOnlyAChunkAheadOfTheIssuer: the pacer is given due
// times reaching maxGather past the query it plans, equal to start plus
// each offset, and no more than a chunk past that is filled in (the
// first query does not wait for the whole schedule); past the last chunk
// the schedule ends at its own length.
func TestDueTimesFillOnlyAChunkAheadOfTheIssuer(t *testing.T) {
	n := 3*schedChunk + 7
	d, want := dueTimesFixture(n)
	for _, i := range []int{0, 1, schedChunk - maxGather - 1, schedChunk - maxGather, 2*schedChunk + 5, n - 1} {
		got := d.ahead(i)
		if len(got) < min(n, i+maxGather+1) {
			t.Fatalf("ahead(%d) filled %d due times, want at least %d", i, len(got), min(n, i+maxGather+1))
		}
		if len(got) > i+maxGather+1+schedChunk {
			t.Fatalf("ahead(%d) filled %d due times, more than a chunk (%d) past what the pacer needs", i, len(got), schedChunk)
		}
		if !slices.Equal(got, want[:len(got)]) {
			t.Fatalf("ahead(%d): due times differ from start + offset", i)
		}
		if slices.ContainsFunc(d.sched[len(got):], func(v int64) bool { return v != 0 }) {
			t.Fatalf("ahead(%d) wrote due times past the %d it reports", i, len(got))
		}
	}
	if d.filled != n {
		t.Fatalf("after the last query %d of %d due times are filled", d.filled, n)
	}
}

// TestDueTimesCoalescedRunCrossesChunks: with server_coalesce_queries a
// run of due queries is the same whether the schedule is filled in ahead
// or all at once, also when it reaches past the chunk filled in so far
// (every query due) or stops just before a chunk's end; without
// coalescing each run is one query.
func TestDueTimesCoalescedRunCrossesChunks(t *testing.T) {
	n := 3*schedChunk + 7
	for _, c := range []struct {
		name string
		from int
		now  int64
	}{
		{"every query due", 0, 1 << 40},
		{"due up to the chunk's last query", 0, 1000 + int64(100*(schedChunk-1))},
		{"due one past the chunk's last query", 0, 1000 + int64(100*schedChunk)},
		{"from mid schedule to its end", schedChunk + 3, 1 << 40},
		{"none past the first", 5, 1000 + 500},
	} {
		for _, co := range []bool{true, false} {
			d, want := dueTimesFixture(n)
			d.ahead(c.from)
			got := d.run(c.from, c.now, co)
			if w := dueRun(want, c.from, c.now, co); got != w {
				t.Errorf("%s (coalesce %v): run ends at %d, want %d", c.name, co, got, w)
			}
			if !slices.Equal(d.sched[:d.filled], want[:d.filled]) {
				t.Errorf("%s (coalesce %v): filled due times differ from start + offset", c.name, co)
			}
		}
	}
}
