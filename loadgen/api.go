// Package loadgen generates MLPerf Inference traffic against a system under
// test (SUT) and measures it exactly as the MLCommons C++ LoadGen does: the
// same sample orders, the same Server schedule, the same metrics, validity
// rules, early stopping and log files.
//
// The package knows nothing of models. A benchmark supplies a SUT (which
// runs inference) and a QSL (which loads samples into memory); Run drives
// them under the chosen scenario and mode.
package loadgen

import (
	"context"
	"time"
)

// ResponseID identifies one issued sample until its response arrives. It is
// unique within a Run.
type ResponseID uint64

// SampleIndex is the position of a sample in the QSL, 0..TotalSampleCount-1.
type SampleIndex uint64

// Sample is one sample of a query: the QSL index the SUT must run and the ID
// its response must carry.
type Sample struct {
	ID    ResponseID
	Index SampleIndex
	// Scheduled (Server scenario) is when the sample's query was due: its
	// place in the Poisson schedule, as an Instant. An SUT that queues
	// samples can tell from it how late each one goes out (the issue lag
	// plus its own queueing): Now().Sub(s.Scheduled). It is zero in the
	// other scenarios, whose queries are issued when they are due.
	Scheduled Instant
}

// Instant is a reading of the monotonic clock the loadgen schedules
// with, in ns since an origin fixed when the process starts. Unlike a
// time.Time it holds no pointer, so the run's large []Sample costs the
// garbage collector nothing to scan (a time.Time there made every GC
// cycle walk and preempt the issuing goroutine). The zero Instant means
// "none"; Now never returns it.
type Instant int64

// origin is the zero of Instant, a second before the package was
// initialised so that no reading is 0. It carries the monotonic clock.
var origin = time.Now().Add(-time.Second)

// Now reads the monotonic clock as an Instant (one vDSO clock read).
func Now() Instant { return Instant(time.Since(origin)) }

// InstantOf converts t, which must carry a monotonic reading (as every
// time.Now() does), to an Instant.
func InstantOf(t time.Time) Instant { return Instant(t.Sub(origin)) }

// IsZero reports whether t is the zero Instant ("none").
func (t Instant) IsZero() bool { return t == 0 }

// Sub returns t - u.
func (t Instant) Sub(u Instant) time.Duration { return time.Duration(t - u) }

// Response is the SUT's answer for one sample. Data is the response payload
// (for example a little-endian float32 label); the loadgen copies what it
// needs to log before Complete returns, so the SUT may reuse the buffer.
// Tokens is the number of generated tokens, for LLM benchmarks (0 otherwise).
// A non-nil Err marks the sample failed: it is logged and makes the run
// INVALID, but never stops or hangs the run.
type Response struct {
	ID     ResponseID
	Data   []byte
	Tokens int
	Err    error
}

// Completer receives responses. Complete is safe for concurrent use, never
// blocks and does not retain resp or its Data after it returns.
type Completer interface {
	Complete(resp ...Response)
}

// TokenCompleter is implemented by the Completer handed to SUTs when token
// latencies are measured: FirstToken reports the first generated token(s) of
// a sample, which stops its time-to-first-token clock. data is not retained.
type TokenCompleter interface {
	FirstToken(id ResponseID, data []byte)
}

// SUT is the system under test. IssueQuery must return promptly (hand work
// to other goroutines if it is slow) and must eventually complete every
// sample through c, exactly once.
type SUT interface {
	IssueQuery(ctx context.Context, samples []Sample, c Completer)
}

// Flusher is implemented by SUTs that batch: Flush is called after the last
// IssueQuery of a series, so that a partial batch is not held back.
type Flusher interface {
	Flush()
}

// QSL is the query sample library: it owns the data set and loads the
// samples a run needs into memory before the timed section starts.
type QSL interface {
	// TotalSampleCount is the number of samples in the data set.
	TotalSampleCount() int
	// PerformanceSampleCount is how many samples fit in memory at once.
	PerformanceSampleCount() int
	// LoadSamples brings the given samples into memory (untimed).
	LoadSamples(ctx context.Context, idx []SampleIndex) error
	// UnloadSamples releases them.
	UnloadSamples(ctx context.Context, idx []SampleIndex) error
}
