package loadgentest

import (
	"slices"
	"sync"

	"github.com/mlperf-go/inference/loadgen"
)

// Recorder is a loadgen.Completer and loadgen.TokenCompleter for tests of
// SUTs: it keeps every response by ID (with a copy of Data, which an SUT
// may reuse once Complete returns), counts how often each ID completed and
// in how many calls, keeps first tokens, and lets a test wait for a number
// of distinct responses. It is safe for concurrent use; the zero value is
// not ready, use NewRecorder.
type Recorder struct {
	mu    sync.Mutex
	cond  sync.Cond
	resps map[loadgen.ResponseID]loadgen.Response
	count map[loadgen.ResponseID]int
	first map[loadgen.ResponseID][]byte
	calls int
	dups  int
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder {
	r := &Recorder{
		resps: map[loadgen.ResponseID]loadgen.Response{},
		count: map[loadgen.ResponseID]int{},
		first: map[loadgen.ResponseID][]byte{},
	}
	r.cond.L = &r.mu
	return r
}

// Complete records resp; a second completion of an ID replaces the first
// and counts as a duplicate.
func (r *Recorder) Complete(resp ...loadgen.Response) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	for _, x := range resp {
		if r.count[x.ID] > 0 {
			r.dups++
		}
		r.count[x.ID]++
		x.Data = slices.Clone(x.Data)
		r.resps[x.ID] = x
	}
	r.cond.Broadcast()
}

// FirstToken records the first token of id (a copy of data).
func (r *Recorder) FirstToken(id loadgen.ResponseID, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.first[id] = slices.Clone(data)
}

// Wait blocks until n distinct IDs have completed and returns a copy of
// the responses so far (a test's own deadline catches a hang).
func (r *Recorder) Wait(n int) map[loadgen.ResponseID]loadgen.Response {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.resps) < n {
		r.cond.Wait()
	}
	out := make(map[loadgen.ResponseID]loadgen.Response, len(r.resps))
	for k, v := range r.resps {
		out[k] = v
	}
	return out
}

// Responses returns a copy of the responses recorded so far.
func (r *Recorder) Responses() map[loadgen.ResponseID]loadgen.Response { return r.Wait(0) }

// Count is how many times id completed.
func (r *Recorder) Count(id loadgen.ResponseID) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count[id]
}

// First returns the first token recorded for id (nil: none).
func (r *Recorder) First(id loadgen.ResponseID) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first[id]
}

// Calls is the number of Complete calls; Duplicates the number of
// completions of an ID that had completed before.
func (r *Recorder) Calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

// Duplicates is the number of completions of an ID that had completed
// before.
func (r *Recorder) Duplicates() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dups
}

// FirstTokens returns a copy of the first tokens recorded so far, by ID.
func (r *Recorder) FirstTokens() map[loadgen.ResponseID][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[loadgen.ResponseID][]byte, len(r.first))
	for k, v := range r.first {
		out[k] = v
	}
	return out
}
