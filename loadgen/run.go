package loadgen

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mlperf-go/inference/loadgen/schedule"
)

// ErrTimeout marks a run the SUT did not finish: samples were still
// outstanding when the completion timeout ran out.
var ErrTimeout = errors.New("loadgen: SUT did not complete all samples before the completion timeout")

// ErrInterrupted is returned (wrapped) by Run when its context was
// cancelled before the run ended: the logs are written and say so, the
// Result (also returned) counts only the samples completed before the
// interruption and has Interrupted set, and the run is INVALID. A caller
// must exit non-zero and must not score the accuracy log of such a run.
var ErrInterrupted = errors.New("loadgen: run interrupted")

// Run drives sut and qsl through one LoadGen test with settings s and
// writes the logs that logs describes. It returns the result of the
// performance run (or, in AccuracyOnly mode, of the accuracy run). A
// failed sample, a stuck SUT or an interrupted context make the result
// INVALID; Run returns an error only when it cannot go on (bad settings,
// logs that cannot be written, a QSL that fails to load), and the logs
// written so far are flushed on every path.
//
// When ctx is cancelled Run stops issuing, gives the SUT a short grace
// period, writes the logs and returns the partial Result together with an
// error wrapping ErrInterrupted. Settings whose query schedule would not
// fit in memory are refused before anything is built (see
// ScheduleCost).
func Run(ctx context.Context, sut SUT, qsl QSL, s Settings, logs LogSettings) (*Result, error) {
	e, err := deriveSettings(s, qsl.TotalSampleCount(), qsl.PerformanceSampleCount())
	if err != nil {
		return nil, err
	}
	if err := e.checkScheduleCost(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w before it started: %w", ErrInterrupted, context.Cause(ctx))
	}
	lw, err := openLogs(logs, e.req.UseTokenLatencies, e.scenario)
	if err != nil {
		return nil, err
	}
	defer lw.close()
	lw.header(sut, qsl, e)

	var res *Result
	switch e.mode {
	case AccuracyOnly:
		res, err = runAccuracy(ctx, sut, qsl, e, lw)
	case PerformanceOnly:
		res, err = runPerformance(ctx, sut, qsl, e, lw)
	case SubmissionRun:
		if _, err = runAccuracy(ctx, sut, qsl, e, lw); err == nil {
			res, err = runPerformance(ctx, sut, qsl, e, lw)
		}
	case FindPeakPerformance:
		res, err = runFindPeak(ctx, sut, qsl, e, lw)
	}
	if err != nil {
		lw.errorf("%v", err)
	}
	if ctx.Err() != nil {
		if res != nil {
			res.markInterrupted(context.Cause(ctx))
		}
		lw.errorf("run interrupted (%v): the results count only the samples completed before it stopped", context.Cause(ctx))
	}
	if res != nil {
		lw.results(res, e)
	}
	if cerr := lw.close(); err == nil && cerr != nil {
		err = cerr
	}
	if res != nil {
		res.LogDir = logs.OutDir
	}
	if ctx.Err() != nil {
		if err != nil {
			err = fmt.Errorf("%w: %w", ErrInterrupted, err)
		} else {
			err = fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(ctx))
		}
	}
	return res, err
}

// markInterrupted records that the run was stopped by cause.
func (r *Result) markInterrupted(cause error) {
	if r.Interrupted {
		return
	}
	r.Interrupted = true
	r.Valid = false
	r.InvalidReasons = append(r.InvalidReasons, fmt.Sprintf("the run was interrupted (%v): only the %d samples completed before it stopped are counted", cause, r.CompletedSamples))
}

// toSchedule maps the effective settings to the schedule package's params.
func (e *effective) params(accuracy bool) schedule.Params {
	return schedule.Params{
		Scenario:               schedule.Scenario(e.scenario),
		Accuracy:               accuracy,
		QSLSeed:                e.qslSeed,
		SampleIndexSeed:        e.sampleSeed,
		ScheduleSeed:           e.scheduleSeed,
		TotalSampleCount:       int(min(e.accuracySampleCount, e.qslTotal)), // LoadGen caps at the QSL's total
		PerformanceSampleCount: int(e.performanceSampleCount),
		SamplesPerQuery:        int(e.samplesPerQuery),
		MinQueryCount:          e.minQueryCount,
		TargetDurationNs:       int64(e.targetDurationMs) * 1_000_000,
		TargetQPS:              e.targetQPS,
		IssueUnique:            e.req.PerformanceIssueUnique,
		IssueSame:              e.req.PerformanceIssueSame,
		IssueSameIndex:         e.req.PerformanceIssueSameIndex,
		EqualIssue:             e.equalIssue,
	}
}

func toIndices(set []uint64) []SampleIndex {
	out := make([]SampleIndex, len(set))
	for i, v := range set {
		out[i] = SampleIndex(v)
	}
	return out
}

func runAccuracy(ctx context.Context, sut SUT, qsl QSL, e *effective, lw *logWriter) (*Result, error) {
	p := e.params(true)
	lw.message("Starting accuracy mode")
	var total *Result
	for _, set := range schedule.LoadableSets(p) {
		if ctx.Err() != nil {
			break
		}
		idx := toIndices(set)
		if err := qsl.LoadSamples(ctx, idx); err != nil {
			return nil, fmt.Errorf("loadgen: QSL LoadSamples: %w", err)
		}
		lw.loadedSet(set)
		q, err := schedule.GenerateContext(ctx, p, set)
		if err != nil {
			_ = qsl.UnloadSamples(ctx, idx)
			break
		}
		lw.generated(q, e)
		r, err := issue(ctx, sut, e, lw, q, true)
		if uerr := qsl.UnloadSamples(ctx, idx); err == nil && uerr != nil {
			err = fmt.Errorf("loadgen: QSL UnloadSamples: %w", uerr)
		}
		if err != nil {
			return nil, err
		}
		total = mergeAccuracy(total, r)
		if ctx.Err() != nil {
			break
		}
	}
	if total == nil {
		total = &Result{}
	}
	total.Scenario, total.Mode = e.scenario, AccuracyOnly
	total.accuracy = true
	total.evaluate(e)
	return total, nil
}

func runPerformance(ctx context.Context, sut SUT, qsl QSL, e *effective, lw *logWriter) (*Result, error) {
	p := e.params(false)
	lw.message("Starting performance mode")
	sets := schedule.LoadableSets(p)
	if len(sets) == 0 {
		return nil, fmt.Errorf("loadgen: %w: no samples to load", ErrSettings)
	}
	set := sets[0]
	idx := toIndices(set)
	if err := qsl.LoadSamples(ctx, idx); err != nil {
		return nil, fmt.Errorf("loadgen: QSL LoadSamples: %w", err)
	}
	lw.loadedSet(set)
	q, err := schedule.GenerateContext(ctx, p, set)
	if err != nil {
		_ = qsl.UnloadSamples(ctx, idx)
		return nil, fmt.Errorf("loadgen: generating the queries: %w", err)
	}
	lw.generated(q, e)
	r, err := issue(ctx, sut, e, lw, q, false)
	if uerr := qsl.UnloadSamples(ctx, idx); err == nil && uerr != nil {
		err = fmt.Errorf("loadgen: QSL UnloadSamples: %w", uerr)
	}
	if err != nil {
		return nil, err
	}
	r.Scenario, r.Mode = e.scenario, e.mode
	r.evaluate(e)
	return r, nil
}

// runFindPeak searches the highest Server QPS that passes, as LoadGen's
// FindPeakPerformance: a run at the requested QPS must pass, then the upper
// bound widens by (1+step) until a run fails, then bisection narrows until
// the bounds agree to the requested decimal places.
func runFindPeak(ctx context.Context, sut SUT, qsl QSL, e *effective, lw *logWriter) (*Result, error) {
	probe := func(qps float64) (*Result, error) {
		pe := *e
		pe.targetQPS = qps
		pe.mode = PerformanceOnly
		if err := pe.checkScheduleCost(); err != nil {
			return nil, fmt.Errorf("loadgen: FindPeakPerformance probing %g QPS: %w", qps, err)
		}
		lw.message(fmt.Sprintf("FindPeakPerformance: probing %g QPS", qps))
		return runPerformance(ctx, sut, qsl, &pe, lw)
	}
	lower := e.targetQPS
	best, err := probe(lower)
	if err != nil {
		return nil, err
	}
	if !best.Valid {
		best.Mode = FindPeakPerformance
		best.InvalidReasons = append(best.InvalidReasons, fmt.Sprintf("FindPeakPerformance: the run at the lower bound %g QPS failed", lower))
		return best, nil
	}
	step := e.req.ServerFindPeakQPSBoundaryStepSize
	if step <= 0 {
		step = 1
	}
	upper := lower * (1 + step)
	for ctx.Err() == nil {
		r, err := probe(upper)
		if err != nil {
			return nil, err
		}
		if !r.Valid {
			break
		}
		best, lower, upper = r, upper, upper*(1+step)
	}
	scale := 1.0
	for range e.req.ServerFindPeakQPSDecimalsOfPrecision {
		scale *= 10
	}
	for ctx.Err() == nil && floorTo(lower, scale)+1 < floorTo(upper, scale) {
		mid := lower + (upper-lower)/2
		r, err := probe(mid)
		if err != nil {
			return nil, err
		}
		if r.Valid {
			best, lower = r, mid
		} else {
			upper = mid
		}
	}
	best.Mode = FindPeakPerformance
	best.PeakQPS = lower
	lw.message(fmt.Sprintf("FindPeakPerformance: peak %g QPS", lower))
	return best, nil
}

func floorTo(v, scale float64) float64 {
	x := v * scale
	return float64(int64(x))
}

// runState is the shared state of one IssueQueries series: preallocated
// per-sample slots written by the completer without locks.
type runState struct {
	e        *effective
	lw       *logWriter
	q        schedule.Queries
	spq      int
	base     time.Time // time zero: all timestamps are ns since base
	seqBase  uint64    // seq_id of sample 0 of this series
	start    int64     // ns: the first query's scheduled time
	sched    []int64   // per query: scheduled time (ns since base)
	lag      []int64   // Server, per query: IssueQuery call − scheduled time (ns)
	done     []int64   // per sample: completion time (ns since base), 0 while outstanding
	first    []int64   // per sample: first-token time, token latencies only
	tokens   []int32   // per sample: n_tokens, token latencies only
	remain   []int32   // per query: samples outstanding
	logMask  []uint64  // per sample bit: log its response in performance mode
	failMask []uint64  // per sample bit: completed with an error
	logAll   bool
	// lastIssued is when the last query issued so far was handed to the
	// SUT (ns since base); 0 where that is its scheduled time.
	lastIssued int64
	complete   atomic.Int64 // samples completed
	failed     atomic.Int64 // samples completed with an error
	extra      atomic.Int64 // completions of unknown or already completed IDs
	waitQ      atomic.Int64 // query the issuer is waiting for
	wake       chan struct{}
	hr         *hrSleeper // the issuer's sleeper, made on first use (it locks the issuer to its thread)
	yielded    int64      // when the issuer last yielded to the scheduler (ns since base)
	errMu      sync.Mutex
	errMsgs    []string
	failMsg    string // the first failed sample's error, for the summary
}

func (r *runState) now() int64 { return int64(time.Since(r.base)) + 1 }

// Complete implements Completer. It is safe for concurrent use and does
// not block; it copies what it logs.
func (r *runState) Complete(resps ...Response) {
	now := r.now()
	for i := range resps {
		resp := &resps[i]
		id := uint64(resp.ID) - r.seqBase
		if uint64(resp.ID) < r.seqBase || id >= uint64(len(r.done)) || !atomic.CompareAndSwapInt64(&r.done[id], 0, now) {
			r.extra.Add(1)
			r.recordErr(fmt.Sprintf("SUT completed unknown or already completed response id %d", resp.ID))
			continue
		}
		if resp.Err != nil {
			atomic.OrUint64(&r.failMask[id/64], 1<<(id%64))
			r.failed.Add(1)
			r.recordErr(fmt.Sprintf("SUT reported an error for sample seq_id %d (qsl_idx %d): %v", resp.ID, r.q.Samples[id], resp.Err))
			r.errMu.Lock()
			if r.failMsg == "" {
				r.failMsg = resp.Err.Error()
			}
			r.errMu.Unlock()
		}
		if r.tokens != nil {
			atomic.StoreInt32(&r.tokens[id], int32(resp.Tokens))
		}
		if r.logAll || (r.logMask != nil && r.logMask[id/64]&(1<<(id%64)) != 0) {
			var td []byte
			if r.first != nil {
				td = r.lw.firstTokenData(uint64(resp.ID))
			}
			r.lw.accuracyEntry(uint64(resp.ID), r.q.Samples[id], resp.Data, td, resp.Tokens, r.tokens != nil, r.e.scenario == Offline)
		}
		q := int(id) / r.spq
		if atomic.AddInt32(&r.remain[q], -1) == 0 && r.waitQ.Load() == int64(q) {
			select {
			case r.wake <- struct{}{}:
			default:
			}
		}
	}
	r.complete.Add(int64(len(resps)))
}

// FirstToken implements TokenCompleter: it records the time of a sample's
// first token (and keeps its data for the accuracy log's token_data).
func (r *runState) FirstToken(id ResponseID, data []byte) {
	now := r.now()
	i := uint64(id) - r.seqBase
	if r.first == nil || uint64(id) < r.seqBase || i >= uint64(len(r.first)) {
		return
	}
	if atomic.CompareAndSwapInt64(&r.first[i], 0, now) && r.lw.accuracy != nil && (r.logAll || (r.logMask != nil && r.logMask[i/64]&(1<<(i%64)) != 0)) {
		r.lw.keepFirstToken(uint64(id), data)
	}
}

const maxLoggedErrors = 20

func (r *runState) recordErr(msg string) {
	r.errMu.Lock()
	if len(r.errMsgs) < maxLoggedErrors {
		r.errMsgs = append(r.errMsgs, msg)
	}
	r.errMu.Unlock()
}

// issue runs one IssueQueries series over the generated queries q and
// returns the raw measurements.
func issue(ctx context.Context, sut SUT, e *effective, lw *logWriter, q schedule.Queries, accuracy bool) (*Result, error) {
	if h := lw.settings.OnSeries; h != nil {
		h(accuracy)
	}
	spq := max(q.SamplesPerQuery, 1)
	nq := len(q.Samples) / spq
	r := &runState{
		e: e, lw: lw, q: q, spq: spq,
		base:     lw.base,
		seqBase:  lw.nextSeq,
		sched:    make([]int64, nq),
		done:     make([]int64, len(q.Samples)),
		remain:   make([]int32, nq),
		failMask: make([]uint64, (len(q.Samples)+63)/64),
		wake:     make(chan struct{}, 1),
		logAll:   accuracy,
	}
	lw.nextSeq += uint64(len(q.Samples))
	for i := range r.remain {
		r.remain[i] = int32(spq)
	}
	r.waitQ.Store(-1)
	if e.req.UseTokenLatencies {
		r.first = make([]int64, len(q.Samples))
		r.tokens = make([]int32, len(q.Samples))
	}
	if !accuracy {
		r.logMask = lw.sampleMask(e, len(q.Samples))
	}
	if e.scenario == Server && !accuracy {
		// Allocated before the clock starts: a large allocation may reuse
		// freed heap that must be cleared first, which for millions of
		// queries takes milliseconds the first queries would wait for.
		r.lag = make([]int64, nq)
	}
	var c Completer = r

	samples := make([]Sample, len(q.Samples))
	for i, idx := range q.Samples {
		samples[i] = Sample{ID: ResponseID(r.seqBase + uint64(i)), Index: SampleIndex(idx)}
	}

	timeout := e.completionTimeout()
	// The completion timeout is not logged: LoadGen has none, and the
	// detail log keeps LoadGen's lines only (testdata/logshape).
	issued, stopReason := 0, ""
	timeoutSpent := false // a query wait already used the completion timeout
	r.start = r.now()
	lw.settings.Monitor.publish(r)
	defer lw.settings.Monitor.publish(nil)
	minDur := int64(e.minDurationMs) * 1_000_000
	maxDur := int64(e.maxDurationMs) * 1_000_000
	flusher, _ := sut.(Flusher)

	switch {
	case e.scenario == Offline || (accuracy && e.scenario != SingleStream && e.scenario != MultiStream):
		// One query per call at the start (Offline), or every query at once
		// (Server accuracy mode).
		for qi := 0; qi < nq; qi++ {
			r.sched[qi] = r.start
		}
		for qi := 0; qi < nq; qi++ {
			if hook := lw.settings.OnIssue; hook != nil {
				hook(qi, 0, samples[qi*spq:(qi+1)*spq])
			}
			sut.IssueQuery(ctx, samples[qi*spq:(qi+1)*spq], c)
		}
		issued = nq
		if !accuracy { // LoadGen logs no end line in accuracy mode
			stopReason = endNaturally
		}
	case e.scenario == Server:
		issued, stopReason = r.issueServer(ctx, sut, c, samples, nq, maxDur)
	default: // SingleStream, MultiStream: next query when the last completed
		if !accuracy {
			stopReason = endNaturally
		}
		for qi := 0; qi < nq; qi++ {
			if ctx.Err() != nil {
				stopReason = "Ending early: interrupted."
				break
			}
			now := r.now()
			atomic.StoreInt64(&r.sched[qi], now) // a Monitor reads it
			r.waitQ.Store(int64(qi))
			if hook := lw.settings.OnIssue; hook != nil {
				hook(qi, now-r.sched[0], samples[qi*spq:(qi+1)*spq])
			}
			sut.IssueQuery(ctx, samples[qi*spq:(qi+1)*spq], c)
			issued++
			if !r.waitQuery(ctx, qi, timeout) {
				stopReason = "Ending early: SUT did not complete a query before the completion timeout."
				if ctx.Err() != nil {
					stopReason = "Ending early: interrupted."
				} else {
					timeoutSpent = true
				}
				break
			}
			if accuracy {
				continue
			}
			elapsed := r.sched[qi] - r.start
			if uint64(issued) >= e.minQueryCount && elapsed >= minDur {
				break
			}
			if e.maxQueryCount > 0 && uint64(issued) >= e.maxQueryCount {
				stopReason = endMaxQueries(issued)
				break
			}
			if maxDur > 0 && r.now()-r.start >= maxDur {
				stopReason = endMaxDuration(r.now() - r.start)
				break
			}
			if qi == nq-1 {
				stopReason = endRanOut
			}
		}
	}
	if flusher != nil {
		flusher.Flush()
	}
	want := int64(issued * spq)
	wait := timeout
	if timeoutSpent {
		wait = 0 // one completion timeout per run, not one per wait
	}
	timedOut := !r.waitAll(ctx, want, wait)
	lw.endSeries(stopReason)
	if timedOut {
		lw.errorf("%v: %d of %d samples outstanding", ErrTimeout, want-r.complete.Load(), want)
	}
	r.errMu.Lock()
	for _, m := range r.errMsgs {
		lw.errorf("%s", m)
	}
	r.errMu.Unlock()
	lw.traceSamples(r, issued)
	if !accuracy {
		lw.recordSeries(r, issued)
	}
	res := r.measure(issued, accuracy)
	res.stopReason = stopReason
	lw.seriesDone(r.start, r.start+res.lastDone)
	if timedOut {
		res.InvalidReasons = append(res.InvalidReasons, fmt.Sprintf("%d samples were not completed before the completion timeout (%v)", want-r.complete.Load(), timeout))
	}
	if ctx.Err() != nil {
		res.markInterrupted(context.Cause(ctx))
	}
	return res, nil
}

// issueServer issues queries at their Poisson-scheduled times: it waits
// for each due time as the pacer decides (pace.go) and issues queries
// already due at once, one IssueQuery call each unless
// server_coalesce_queries joins them. It reads the clock once per query
// (twice with an OnIssue hook) outside the waits.
func (r *runState) issueServer(ctx context.Context, sut SUT, c Completer, samples []Sample, nq int, maxDur int64) (int, string) {
	e, spq := r.e, r.spq
	defer func() {
		if r.hr != nil {
			r.hr.close()
			r.hr = nil
		}
	}()
	due := dueTimes{sched: r.sched, rel: r.q.Scheduled, start: r.start}
	// An Instant is ns since origin; r's times are ns since base, plus 1.
	toInstant := InstantOf(r.base) - 1
	hook := r.lw.settings.OnIssue
	coalesce := e.req.ServerCoalesceQueries
	done := ctx.Done()
	p := newPacer()
	issued := 0
	for issued < nq {
		select {
		case <-done:
			return issued, "Ending early: interrupted."
		default:
		}
		now, ok := r.waitFor(ctx, &p, issued, due.ahead(issued))
		if !ok {
			return issued, "Ending early: interrupted."
		}
		end := due.run(issued, now, coalesce)
		r.lastIssued = now
		if hook != nil {
			for q := issued; q < end; q++ {
				hook(q, r.sched[q]-r.start, samples[q*spq:(q+1)*spq])
			}
			now = r.now()
		}
		for q := issued; q < end; q++ {
			r.lag[q] = now - r.sched[q]
			due := toInstant + Instant(r.sched[q])
			for k := q * spq; k < (q+1)*spq; k++ {
				samples[k].Scheduled = due
			}
		}
		sut.IssueQuery(ctx, samples[issued*spq:end*spq], c)
		issued = end
		if e.maxAsyncQueries > 0 {
			outstanding := int64(issued*spq) - r.complete.Load()
			if outstanding > int64(e.maxAsyncQueries) {
				return issued, endTooManyOutstanding(issued, outstanding)
			}
		}
		if e.maxQueryCount > 0 && uint64(issued) >= e.maxQueryCount {
			return issued, endMaxQueries(issued)
		}
		if maxDur > 0 && r.lastIssued-r.start >= maxDur {
			return issued, endMaxDuration(r.lastIssued - r.start)
		}
	}
	return issued, "" // LoadGen logs no end line for a Server series that issued every query
}

// yieldEvery is how often, at most, the sleeping issuer yields to the
// scheduler (ns): within the runtime's 10 ms preemption period. A
// yield of a goroutine locked to its thread hands the thread off twice,
// so it is kept rare.
const yieldEvery = 8_000_000

// schedChunk is how many due times the Server issuer fills in at a time
// (a few µs of work, done between queries).
const schedChunk = 4096

// dueTimes fills in the Server queries' due times (sched, ns since base:
// start plus each query's offset in rel) ahead of the issuer, a chunk at
// a time, instead of all at once before the first query: for millions
// of queries that takes tens of ms once the clock has started (the first
// touch of each page of sched faults it in), and the first queries would
// go out that late, over a 10 ms latency bound at rates above 2M QPS.
// The pacer and dueRun see only the filled part.
type dueTimes struct {
	sched  []int64 // due times, filled in up to filled
	rel    []int64 // each query's offset from start (LoadGen's scheduled delta)
	start  int64
	filled int
}

// fill fills in due times up to at least need (within len(sched)), a
// whole chunk at a time.
func (d *dueTimes) fill(need int) {
	for upTo := min(len(d.sched), max(need, d.filled+schedChunk)); d.filled < upTo; d.filled++ {
		d.sched[d.filled] = d.start + d.rel[d.filled]
	}
}

// ahead returns the due times the pacer needs to plan query i: those
// filled in, which reach at least maxGather past i.
func (d *dueTimes) ahead(i int) []int64 {
	if d.filled <= i+maxGather {
		d.fill(i + maxGather + 1)
	}
	return d.sched[:d.filled]
}

// run is dueRun over the whole schedule: a coalesced run that reaches
// the end of what is filled in goes on into the next chunk.
func (d *dueTimes) run(from int, now int64, coalesce bool) int {
	end := dueRun(d.sched[:d.filled], from, now, coalesce)
	for coalesce && end == d.filled && d.filled < len(d.sched) {
		d.fill(d.filled + schedChunk)
		end = dueRun(d.sched[:d.filled], from, now, coalesce)
	}
	return end
}

// waitFor waits, as the pacer p decides, until the clock reaches the due
// time of query i (sched: the due times filled in so far, ns since base) and returns the clock then; a
// query already due returns at once. It returns false, early, when ctx
// is cancelled during a long wait. One goroutine calls it at a time.
func (r *runState) waitFor(ctx context.Context, p *pacer, i int, sched []int64) (int64, bool) {
	due := sched[i]
	now, woke := r.now(), false
	for {
		kind, until := p.plan(now, sched, i, woke)
		switch kind {
		case waitNone:
			return now, true
		case waitSpin:
			for now < due {
				now = r.now()
			}
			return now, true
		case waitLong:
			tm := time.NewTimer(time.Duration(until - now))
			select {
			case <-ctx.Done():
				tm.Stop()
				return now, false
			case <-tm.C:
			}
			now = r.now()
		case waitSleep:
			if r.hr == nil {
				r.hr = newHRSleeper()
			}
			if now-r.yielded >= yieldEvery {
				// Pass through the scheduler now and then: the runtime
				// takes the P away from a goroutine that has not been
				// rescheduled for 10 ms whenever it enters a system call,
				// and the issuer's sleeps are system calls; losing the P on
				// every sleep costs a thread hand-off each time and keeps
				// the runtime's monitor thread polling every 20 µs.
				runtime.Gosched()
				r.yielded = now
			}
			full := r.hr.sleep(time.Duration(until - now))
			now, woke = r.now(), true
			if full {
				p.observe(until, now)
			}
		}
	}
}

// waitQuery waits for query qi to complete.
func (r *runState) waitQuery(ctx context.Context, qi int, timeout time.Duration) bool {
	for spin := 0; spin < 64; spin++ {
		if atomic.LoadInt32(&r.remain[qi]) == 0 {
			return true
		}
		runtime.Gosched()
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for atomic.LoadInt32(&r.remain[qi]) != 0 {
		select {
		case <-r.wake:
		case <-timer.C:
			return atomic.LoadInt32(&r.remain[qi]) == 0
		case <-ctx.Done():
			return atomic.LoadInt32(&r.remain[qi]) == 0
		}
	}
	return true
}

// waitAll waits until want samples have completed. timeout is an idle
// timeout: it restarts whenever a sample completes, so a slow SUT that
// keeps completing is never cut off, and a stuck one is.
func (r *runState) waitAll(ctx context.Context, want int64, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	pause := time.Microsecond
	last := r.complete.Load()
	for r.complete.Load()-r.extra.Load() < want {
		if c := r.complete.Load(); c != last && ctx.Err() == nil {
			last = c
			deadline = time.Now().Add(timeout)
		}
		if time.Now().After(deadline) {
			return false
		}
		if ctx.Err() != nil && pause >= 10*time.Millisecond {
			// Interrupted: give the SUT a short grace period only.
			if time.Until(deadline) > 5*time.Second {
				deadline = time.Now().Add(5 * time.Second)
			}
		}
		time.Sleep(pause)
		pause = min(pause*2, 10*time.Millisecond)
	}
	return true
}
