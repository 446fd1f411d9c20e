package kserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/mlperf-go/inference/backend"
)

// Timings are the server-side times of one request, in nanoseconds, as
// Triton's perf_analyzer breaks them down: waiting for a free execution
// slot (Queue), decoding the request (Input), running the model (Infer)
// and encoding the answer (Output).
type Timings struct {
	Queue, Input, Infer, Output int64
}

// timing parameter names in InferResponse.Parameters.
const (
	paramQueue  = "queue_ns"
	paramInput  = "compute_input_ns"
	paramInfer  = "compute_infer_ns"
	paramOutput = "compute_output_ns"
)

func timingsOf(p map[string]any) Timings {
	get := func(k string) int64 {
		f, _ := p[k].(float64)
		return int64(f)
	}
	return Timings{Queue: get(paramQueue), Input: get(paramInput), Infer: get(paramInfer), Output: get(paramOutput)}
}

// Server serves backend.Sessions over the Open Inference Protocol REST
// API. Set the fields and add models before serving; ServeHTTP is safe
// for concurrent use.
//
// Every request is bounded by what its model accepts (see RequestLimit):
// a larger Content-Length is answered 413 before a byte of the body is
// read, and a body that runs past it is cut off the same way. The memory
// that request bodies and answers take at once is bounded too (see
// MemoryBudget): a request waits for its share before its body is read.
type Server struct {
	// Name and Version are reported by GET /v2.
	Name, Version string
	// MaxBatch is the most samples one request may carry in a dynamic
	// leading dimension (0: DefaultMaxBatch of each model's inputs).
	MaxBatch int
	// BudgetWait bounds how long a request waits for its share of the
	// memory budget before it is answered 503 (0: 30 s).
	BudgetWait time.Duration
	// BodyWait is how long a request's body has to arrive once its share
	// is taken, plus a second per MiB (0: 10 s); a slower one is answered
	// 408.
	BodyWait time.Duration

	mu     sync.RWMutex
	models map[string]*served
	ready  atomic.Bool
	mux    *http.ServeMux

	budgetOnce sync.Once
	budget     *semaphore.Weighted
	budgetSize int64
}

type served struct {
	sess  backend.Session
	meta  ModelMeta
	slot  chan struct{} // execution slots (cap = concurrent Runs)
	slots int
	// inputs is the contract requests are checked against.
	inputs []backend.Info
	// maxBatch bounds a dynamic leading input dimension; maxBody a request
	// body; maxAnswer an answer (outputs at maxBatch), in bytes.
	maxBatch           int64
	maxBody, maxAnswer int64
}

// MemoryFactor is how many full-size requests and answers per execution
// slot the memory budget holds: a request in memory takes about twice its
// body (the body, then the tensors decoded from it) and its answer twice
// (the outputs, then their encoding), so 4 lets each slot run one request
// while the next one's body arrives.
const MemoryFactor = 4

// NewServer returns a ready server without models.
func NewServer(name, version string) *Server {
	s := &Server{Name: name, Version: version, models: map[string]*served{}}
	s.ready.Store(true)
	m := http.NewServeMux()
	m.HandleFunc("GET /v2", s.serverMeta)
	m.HandleFunc("GET /v2/health/live", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]bool{"live": true})
	})
	m.HandleFunc("GET /v2/health/ready", s.health)
	for _, p := range []string{"/v2/models/{model}", "/v2/models/{model}/versions/{version}"} {
		m.HandleFunc("GET "+p, s.modelMeta)
		m.HandleFunc("GET "+p+"/ready", s.modelReady)
		m.HandleFunc("POST "+p+"/infer", s.infer)
	}
	s.mux = m
	return s
}

// Add serves sess under name with up to slots concurrent Runs (< 1: 1).
// Requests beyond that wait; the wait is reported as queue time. A
// contract no request could use (CheckContract) is refused. Add every
// model before serving: the memory budget is sized from them all at the
// first request.
func (s *Server) Add(name string, sess backend.Session, slots int) error {
	if slots < 1 {
		slots = 1
	}
	in, out := sess.Inputs(), sess.Outputs()
	if err := CheckContract("model "+name, in, out); err != nil {
		return err
	}
	mb := int64(s.MaxBatch)
	if mb < 1 {
		mb = int64(DefaultMaxBatch(in))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models[name] = &served{
		sess:      sess,
		meta:      ModelMeta{Name: name, Versions: []string{"1"}, Platform: "mlperf-go", Inputs: infoMeta(in), Outputs: infoMeta(out)},
		slot:      make(chan struct{}, slots),
		slots:     slots,
		inputs:    in,
		maxBatch:  mb,
		maxBody:   min(TensorBytes(in, mb)+HeaderMargin, MaxTensorBytes),
		maxAnswer: answerLimit(out, mb, true),
	}
	return nil
}

// RequestLimit is the largest request body model name accepts, in bytes:
// its inputs at the batch limit plus HeaderMargin; 0 if it is not
// served.
func (s *Server) RequestLimit(name string) int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if m := s.models[name]; m != nil {
		return m.maxBody
	}
	return 0
}

// MaxBatchOf is the most samples one request to model name may carry; 0
// if it is not served.
func (s *Server) MaxBatchOf(name string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if m := s.models[name]; m != nil {
		return int(m.maxBatch)
	}
	return 0
}

// MemoryBudget is the most bytes of request bodies and answers the server
// holds at once: MemoryFactor × the sum over models of slots × (largest
// request + largest answer).
func (s *Server) MemoryBudget() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	total := int64(0)
	for _, m := range s.models {
		total += satMul(MemoryFactor*int64(m.slots), m.maxBody+m.maxAnswer)
	}
	return total
}

// reserve takes n bytes of the memory budget, waiting up to BudgetWait
// (and no longer than ctx); the caller releases them.
func (s *Server) reserve(ctx context.Context, n int64) error {
	s.budgetOnce.Do(func() {
		s.budgetSize = max(s.MemoryBudget(), 1)
		s.budget = semaphore.NewWeighted(s.budgetSize)
	})
	wait := s.BudgetWait
	if wait <= 0 {
		wait = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	return s.budget.Acquire(ctx, min(n, s.budgetSize))
}

func (s *Server) release(n int64) { s.budget.Release(min(n, s.budgetSize)) }

// SetReady marks the server ready or not (GET /v2/health/ready answers 503
// while not ready, e.g. while draining before a shutdown).
func (s *Server) SetReady(ready bool) { s.ready.Store(ready) }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, format string, a ...any) {
	writeJSON(w, code, ErrorResponse{Error: fmt.Sprintf(format, a...)})
}

func (s *Server) serverMeta(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, ServerMeta{Name: s.Name, Version: s.Version, Extensions: []string{"binary_tensor_data"}})
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	if !s.ready.Load() {
		writeError(w, http.StatusServiceUnavailable, "not ready")
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ready": true})
}

func (s *Server) model(w http.ResponseWriter, r *http.Request) *served {
	m, err := s.lookup(r.PathValue("model"), r.PathValue("version"))
	if err != nil {
		writeError(w, http.StatusNotFound, "%v", err)
		return nil
	}
	return m
}

func (s *Server) modelMeta(w http.ResponseWriter, r *http.Request) {
	if m := s.model(w, r); m != nil {
		writeJSON(w, http.StatusOK, m.meta)
	}
}

func (s *Server) modelReady(w http.ResponseWriter, r *http.Request) {
	if m := s.model(w, r); m != nil {
		writeJSON(w, http.StatusOK, map[string]any{"name": m.meta.Name, "ready": s.ready.Load()})
	}
}

func (s *Server) infer(w http.ResponseWriter, r *http.Request) {
	m := s.model(w, r)
	if m == nil {
		return
	}
	t0 := time.Now()
	limit := m.maxBody
	if r.ContentLength > limit {
		// Closing the connection after the answer spares reading (or
		// waiting for) a body that is not wanted.
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestEntityTooLarge, "the request's %d bytes exceed the %d that model %s accepts (%s); send at most %d samples per request",
			r.ContentLength, limit, m.meta.Name, m.limitText(), m.maxBatch)
		return
	}
	// The body and the answer take their share of the memory budget
	// before a byte is read: a peer's claims cannot make the node
	// allocate more than the budget.
	n := r.ContentLength
	if n < 0 {
		n = limit
	}
	share := 2 * (n + m.maxAnswer)
	if err := s.reserve(r.Context(), share); err != nil {
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusServiceUnavailable, "the node is busy: requests in flight hold its memory budget of %d bytes; retry later", s.budgetSize)
		return
	}
	defer s.release(share)
	// A body that trickles in would hold its share indefinitely: it has
	// BodyWait plus a second per MiB.
	rc := http.NewResponseController(w)
	within := s.BodyWait
	if within <= 0 {
		within = 10 * time.Second
	}
	within += time.Duration(n>>20) * time.Second
	rc.SetReadDeadline(time.Now().Add(within))
	buf, err := readPooled(http.MaxBytesReader(w, r.Body, limit), r.ContentLength, limit)
	// The tensors are copied out of the body: it goes back to the pool
	// when the handler ends.
	defer bodyPool.Put(buf)
	if err != nil {
		// The connection closes after the answer: net/http does not wait
		// for the rest of a body that failed.
		w.Header().Set("Connection", "close")
		rc.SetReadDeadline(time.Now())
		var ne net.Error
		switch {
		case errors.As(err, new(*http.MaxBytesError)):
			writeError(w, http.StatusRequestEntityTooLarge, "the request's body runs past the %d bytes that model %s accepts (%s); send at most %d samples per request",
				limit, m.meta.Name, m.limitText(), m.maxBatch)
		case errors.As(err, &ne) && ne.Timeout():
			writeError(w, http.StatusRequestTimeout, "the request's body did not arrive within %v", within)
		default:
			writeError(w, http.StatusBadRequest, "reading the request: %v", err)
		}
		return
	}
	rc.SetReadDeadline(time.Time{})
	body := *buf
	hl := int64(-1)
	if h := r.Header.Get(HeaderLength); h != "" {
		if hl, err = strconv.ParseInt(h, 10, 64); err != nil || hl < 0 {
			writeError(w, http.StatusBadRequest, "bad %s %q", HeaderLength, h)
			return
		}
	}
	js, bin, err := splitBody(body, hl)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	var req InferRequest
	if err := unmarshalRequest(js, &req); err != nil {
		writeError(w, http.StatusBadRequest, "the request is not Open Inference Protocol JSON: %v", err)
		return
	}
	if err := m.checkDeclared(len(req.Inputs), func(i int) (string, string, []int64) {
		return req.Inputs[i].Name, req.Inputs[i].Datatype, req.Inputs[i].Shape
	}); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	in, err := decodeTensors(req.Inputs, bin)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	t1 := time.Now()
	out, tm, err := m.execute(r.Context(), in)
	tm.Input = t1.Sub(t0).Nanoseconds()
	t3 := time.Now()
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	out, err = selectOutputs(out, req.Outputs)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	meta, payloads, err := encodeTensors(out)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	tm.Output = time.Since(t3).Nanoseconds()
	resp := InferResponse{ModelName: m.meta.Name, ModelVersion: "1", ID: req.ID, Outputs: meta, Parameters: map[string]any{
		paramQueue: tm.Queue, paramInput: tm.Input, paramInfer: tm.Infer, paramOutput: tm.Output,
	}}
	rb, jsonLen, err := encodeResponse(&resp, payloads)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set(HeaderLength, strconv.Itoa(jsonLen))
	w.Header().Set("Content-Length", strconv.Itoa(len(rb)))
	w.Write(rb)
}

// bodyPool holds request body buffers (*[]byte): a ResNet50 request is
// 600 kB, and a fresh buffer per request costs more than the copy.
var bodyPool sync.Pool

// readPooled reads a body of n bytes (n < 0: unknown, at most limit)
// into a pooled buffer; the caller puts it back. A body of unknown length
// is read into a buffer of limit bytes, never grown: r must fail a read
// past limit (http.MaxBytesReader).
func readPooled(r io.Reader, n, limit int64) (*[]byte, error) {
	size := n
	if n < 0 {
		size = limit
	}
	p, _ := bodyPool.Get().(*[]byte)
	if p == nil || int64(cap(*p)) < size {
		b := make([]byte, size)
		p = &b
	}
	*p = (*p)[:size]
	k, err := io.ReadFull(r, *p)
	if n >= 0 {
		return p, err
	}
	switch err {
	case io.EOF, io.ErrUnexpectedEOF: // the body ended before the limit
		*p = (*p)[:k]
		return p, nil
	case nil: // the buffer is full: the body must end here
		var one [1]byte
		if _, err := io.ReadFull(r, one[:]); err != io.EOF {
			return p, err
		}
		return p, nil
	}
	return p, err
}

// selectOutputs keeps the requested outputs in request order (none
// requested: all).
func selectOutputs(out []backend.Tensor, want []RequestOutput) ([]backend.Tensor, error) {
	if len(want) == 0 {
		return out, nil
	}
	sel := make([]backend.Tensor, 0, len(want))
	for _, w := range want {
		found := false
		for _, t := range out {
			if t.Name == w.Name {
				sel, found = append(sel, t), true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("the model has no output %q", w.Name)
		}
	}
	return sel, nil
}

// Shutdown marks the server not ready and shuts hs down gracefully:
// in-flight requests finish (until ctx ends), new ones are refused.
func (s *Server) Shutdown(ctx context.Context, hs *http.Server) error {
	s.SetReady(false)
	return hs.Shutdown(ctx)
}
