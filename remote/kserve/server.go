package kserve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

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
// API. Add models before serving; ServeHTTP is safe for concurrent use.
type Server struct {
	// Name and Version are reported by GET /v2.
	Name, Version string
	// MaxBody bounds a request body in bytes (0: 1 GiB).
	MaxBody int64

	mu     sync.RWMutex
	models map[string]*served
	ready  atomic.Bool
	mux    *http.ServeMux
}

type served struct {
	sess backend.Session
	meta ModelMeta
	slot chan struct{} // execution slots (cap = concurrent Runs)
}

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
// Requests beyond that wait; the wait is reported as queue time.
func (s *Server) Add(name string, sess backend.Session, slots int) {
	if slots < 1 {
		slots = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models[name] = &served{
		sess: sess,
		meta: ModelMeta{Name: name, Versions: []string{"1"}, Platform: "mlperf-go", Inputs: infoMeta(sess.Inputs()), Outputs: infoMeta(sess.Outputs())},
		slot: make(chan struct{}, slots),
	}
}

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
	max := s.MaxBody
	if max <= 0 {
		max = 1 << 30
	}
	if r.ContentLength > max {
		writeError(w, http.StatusRequestEntityTooLarge, "the request's %d bytes exceed the server's limit of %d", r.ContentLength, max)
		return
	}
	buf, err := readPooled(http.MaxBytesReader(w, r.Body, max), r.ContentLength)
	if err != nil {
		writeError(w, http.StatusBadRequest, "reading the request: %v", err)
		return
	}
	// The tensors are copied out of the body: it goes back to the pool
	// once they are decoded.
	body := *buf
	defer bodyPool.Put(buf)
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

// readPooled reads a body of n bytes (n < 0: unknown) into a pooled
// buffer; the caller puts it back.
func readPooled(r io.Reader, n int64) (*[]byte, error) {
	if n < 0 || n >= 1<<31 {
		b, err := io.ReadAll(r)
		return &b, err
	}
	p, _ := bodyPool.Get().(*[]byte)
	if p == nil || int64(cap(*p)) < n {
		b := make([]byte, n)
		p = &b
	}
	*p = (*p)[:n]
	_, err := io.ReadFull(r, *p)
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
