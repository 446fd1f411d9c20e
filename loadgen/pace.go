package loadgen

// The Server issuer's pacing: how it waits for each query's due time.
//
// An OS sleep is cheap in CPU between widely spaced queries but ends
// late (tens of µs with a high-resolution timer, more on a busy
// machine); polling the clock is exact but holds a core. The pacer
// sleeps until a short window before each due time, the window being the
// lateness of its recent sleeps, and polls the clock through what is
// left of it when the wake-up comes early; a wait of a few µs is polled
// whole. So the window shrinks on a quiet machine and grows (up to a
// bound) on a busy one, and the issuer holds no core between queries.
// Queries already due are issued at once, one after the other.
//
// The decisions are pure functions of the clock readings and the
// lateness seen so far, so they are tested without a clock (pace_test.go).

// waitKind is what the issuer does before a query.
type waitKind uint8

const (
	// waitNone: the query is due; issue it now.
	waitNone waitKind = iota
	// waitSpin: poll the monotonic clock until the due time, without
	// calling into the scheduler.
	waitSpin
	// waitSleep: sleep with the high-resolution sleeper until the returned
	// time, then decide again.
	waitSleep
	// waitLong: a wait long enough to watch the context while sleeping
	// (a runtime timer), until the returned time; then decide again.
	waitLong
)

// Pacing bounds, in ns.
const (
	// minWindow and maxWindow bound the early-wake window. Above 200 µs
	// the issuer would hold a core for the window after every early
	// wake-up when the machine is so busy that sleeps end that late,
	// which makes it busier still.
	minWindow = 1_000
	maxWindow = 200_000
	// initLate is the lateness assumed before any sleep has been
	// measured: a timerfd sleep through the Go netpoller ends about
	// 20 µs late on an idle Linux machine.
	initLate = 20_000
	// issueSlack is how late the issuer lets a query go out so that the
	// queries due within this after it leave on the same wake-up instead
	// of each costing a wake-up of its own: a wake-up costs 5–20 µs of
	// CPU (most of it in the kernel), as much as several queries' whole
	// issue path, and dense traffic would otherwise cost one per query.
	// A query with no other due that soon is aimed at its due time. The
	// C++ LoadGen's sleeps end up to 50 µs late (the default timer
	// slack) for every query.
	issueSlack = 20_000
	// maxGather bounds how many following queries a sleep looks ahead
	// at (only reached above millions of QPS, where the issuer is behind
	// and does not sleep).
	maxGather = 64
	// spinMax: a wait up to this long is polled rather than slept:
	// polling it costs no more CPU than a sleep's wake-up (5–20 µs
	// measured on 2-core cloud VMs, where most of it is the kernel's),
	// and it ends on time where the sleep would end late.
	spinMax = 10_000
	// longWait: waits above this sleep on a runtime timer that also
	// watches the context; they wake early by longMargin and continue
	// with a short sleep.
	longWait   = 50_000_000
	longMargin = 1_000_000
)

// pacer holds the wake-up lateness the issuer has measured. The zero
// value is not ready; use newPacer. It is used by one goroutine.
type pacer struct {
	// late is a low estimate of how late a sleep ends after the time
	// asked, in ns: a moving average that follows an earlier wake-up
	// quickly (weight 1/4) and a later one slowly (1/32), so it settles
	// near the quick end of the spread. A wake-up that comes before the
	// due time polls the rest; one that comes after it issues at once;
	// on a busy machine, where sleeps end anywhere from 20 µs to
	// hundreds of µs late, aiming at the mean would poll for half the
	// wake-ups, for tens of µs each.
	late int64
}

func newPacer() pacer { return pacer{late: initLate} }

// window is how long before a due time the issuer asks to wake: the
// low estimate of a sleep's lateness, within [minWindow, maxWindow].
func (p *pacer) window() int64 {
	return min(max(p.late, minWindow), maxWindow)
}

// plan decides the wait for query i of sched (due times, ns) when the
// clock reads now (on the same clock); woke says the issuer has just
// slept for this query. For waitSleep and waitLong it returns the time
// to wake at.
//
// A sleep aims to end at the due time, or, when more queries fall due
// within issueSlack after it, at the last of those, so that they leave
// together on one wake-up; it asks the sleeper for that time less the
// lateness expected of a sleep. A sleep is asked even when the due time
// is nearer than that lateness (it then ends after it), because polling
// the whole gap would hold a core whenever queries come faster than
// sleeps end.
func (p *pacer) plan(now int64, sched []int64, i int, woke bool) (waitKind, int64) {
	due := sched[i]
	d := due - now
	w := p.window()
	switch {
	case d <= 0:
		return waitNone, due
	case d <= spinMax || (woke && d <= w):
		return waitSpin, due
	case d > longWait:
		return waitLong, due - longMargin
	}
	aim := due
	for j := i + 1; j < len(sched) && j <= i+maxGather && sched[j]-due <= issueSlack; j++ {
		aim = sched[j]
	}
	return waitSleep, max(aim-w, now+1)
}

// observe records that a sleep asked to end at want ended at got.
func (p *pacer) observe(want, got int64) {
	late := max(got-want, 0)
	if late < p.late {
		p.late += (late - p.late) / 4
	} else {
		p.late += (late - p.late) / 32
	}
}

// dueRun returns the end of the run of queries that leave together in
// one IssueQuery call when the first, queries[from], goes out at now:
// only that query, unless coalesce is set (server_coalesce_queries), in
// which case every following query already due at now joins it, as
// LoadGen's IssueQueries does. sched holds the due times.
func dueRun(sched []int64, from int, now int64, coalesce bool) int {
	end := from + 1
	if coalesce {
		for end < len(sched) && sched[end] <= now {
			end++
		}
	}
	return end
}
