package kserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
)

// double is a model with input x float32 [-1,3] and outputs y = 2x
// (float32, same shape) and n = the row count (int64 [1]).
type double struct{ delay time.Duration }

func (double) Inputs() []backend.Info {
	return []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 3}}}
}
func (double) Outputs() []backend.Info {
	return []backend.Info{{Name: "y", DType: backend.Float32, Shape: []int64{-1, 3}}, {Name: "n", DType: backend.Int64, Shape: []int64{1}}}
}
func (d double) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	if d.delay > 0 {
		select {
		case <-time.After(d.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	x, ok := in[0].Data.([]float32)
	if !ok || in[0].Name != "x" {
		return nil, errors.New("want float32 x")
	}
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = 2 * v
	}
	return []backend.Tensor{
		{Name: "y", DType: backend.Float32, Shape: in[0].Shape, Data: y},
		{Name: "n", DType: backend.Int64, Shape: []int64{1}, Data: []int64{in[0].Shape[0]}},
	}, nil
}
func (double) Close() error { return nil }

func serve(t *testing.T, sess backend.Session) (*Server, *httptest.Server) {
	t.Helper()
	s := NewServer("test-node", "1.0")
	s.Add("double", sess, 2)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs
}

func TestRoundTripBinary(t *testing.T) {
	_, hs := serve(t, double{})
	ctx := context.Background()
	sess, err := Dial(ctx, Config{Endpoint: strings.TrimPrefix(hs.URL, "http://"), Model: "double"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if in := sess.Inputs(); len(in) != 1 || in[0].Name != "x" || in[0].DType != backend.Float32 || in[0].Shape[0] != -1 {
		t.Fatalf("inputs from metadata: %+v", in)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := []float32{float32(g), 1.5, -3}
			out, tm, err := sess.RunTimed(ctx, []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 3}, Data: x}})
			if err != nil {
				t.Error(err)
				return
			}
			y := out[0].Data.([]float32)
			if out[0].Name != "y" || len(y) != 3 || y[0] != 2*float32(g) || y[1] != 3 || y[2] != -6 {
				t.Errorf("y = %+v", out[0])
			}
			if n := out[1].Data.([]int64); out[1].Name != "n" || n[0] != 1 {
				t.Errorf("n = %+v", out[1])
			}
			if tm.Infer <= 0 {
				t.Errorf("no server-side inference time reported: %+v", tm)
			}
		}()
	}
	wg.Wait()
	name, err := sess.Name(ctx)
	if err != nil || !strings.HasPrefix(name, "test-node 1.0 at 127.0.0.1:") {
		t.Errorf("Name = %q, %v", name, err)
	}
}

func TestServerAcceptsJSONData(t *testing.T) {
	_, hs := serve(t, double{})
	body := `{"inputs":[{"name":"x","shape":[2,3],"datatype":"FP32","data":[1,2,3,4,5,6]}]}`
	resp, err := http.Post(hs.URL+"/v2/models/double/infer", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	hl := resp.Header.Get(HeaderLength)
	var ir InferResponse
	n := len(b.Bytes())
	if hl != "" {
		var l int
		json.Unmarshal([]byte(hl), &l)
		n = l
	}
	if err := json.Unmarshal(b.Bytes()[:n], &ir); err != nil {
		t.Fatal(err)
	}
	out, err := decodeTensors(ir.Outputs, b.Bytes()[n:])
	if err != nil {
		t.Fatal(err)
	}
	if y := out[0].Data.([]float32); y[5] != 12 {
		t.Errorf("y = %v", y)
	}
}

func TestErrorsNameTheCause(t *testing.T) {
	_, hs := serve(t, double{})
	ctx := context.Background()
	ep := strings.TrimPrefix(hs.URL, "http://")
	if _, err := Dial(ctx, Config{Endpoint: ep, Model: "resnet50"}); err == nil || !strings.Contains(err.Error(), `model "resnet50" is not served here`) {
		t.Errorf("unknown model: %v", err)
	}
	if _, err := Dial(ctx, Config{Endpoint: "127.0.0.1:1", Model: "double"}); err == nil || !strings.Contains(err.Error(), "is the server running") {
		t.Errorf("dead endpoint: %v", err)
	}
	if _, err := Dial(ctx, Config{Endpoint: "ftp://x", Model: "double"}); err == nil {
		t.Error("ftp endpoint accepted")
	}
	sess, err := Dial(ctx, Config{Endpoint: ep, Model: "double"})
	if err != nil {
		t.Fatal(err)
	}
	// Wrong element count for the shape: refused by the client before sending.
	if _, err := sess.Run(ctx, []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{2, 3}, Data: []float32{1}}}); err == nil {
		t.Error("a tensor with too few elements was sent")
	}
	// Wrong input name: the server refuses it before the model runs, and
	// the client reports HTTP 400 with the reason.
	if _, err := sess.Run(ctx, []backend.Tensor{{Name: "z", DType: backend.Float32, Shape: []int64{1, 3}, Data: []float32{1, 2, 3}}}); err == nil || !strings.Contains(err.Error(), "HTTP 400") || !strings.Contains(err.Error(), `model double has no input "z" (its inputs: x FP32 [N,3])`) {
		t.Errorf("wrong input: %v", err)
	}
	// A model that fails: HTTP 500 with the engine's reason.
	_, bs := serve(t, broken{})
	bad, err := Dial(ctx, Config{Endpoint: bs.URL, Model: "double"})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if _, err := bad.Run(ctx, []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 3}, Data: []float32{1, 2, 3}}}); err == nil || !strings.Contains(err.Error(), "HTTP 500") || !strings.Contains(err.Error(), "inference failed: engine out of memory") {
		t.Errorf("failing model: %v", err)
	}
}

// broken is double's contract over an engine that fails every run.
type broken struct{ double }

func (broken) Run(context.Context, []backend.Tensor) ([]backend.Tensor, error) {
	return nil, errors.New("engine out of memory")
}

func TestMalformedAnswersAndStalls(t *testing.T) {
	ctx := context.Background()
	var mode string
	var mu sync.Mutex
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			json.NewEncoder(w).Encode(ModelMeta{Name: "m", Inputs: []TensorMeta{{Name: "x", Datatype: "FP32", Shape: []int64{1}}}, Outputs: []TensorMeta{{Name: "y", Datatype: "FP32", Shape: []int64{1}}}})
			return
		}
		mu.Lock()
		m := mode
		mu.Unlock()
		switch m {
		case "garbage":
			w.Write([]byte("<html>proxy error</html>"))
		case "short":
			w.Header().Set(HeaderLength, "40")
			w.Write([]byte(`{"outputs":[{"name":"y","shape":[1],"datatype":"FP32","parameters":{"binary_data_size":4}}]}`))
		case "stall":
			// The server notices a closed connection only once the
			// body is read.
			io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
		}
	}))
	defer fake.Close()
	sess, err := Dial(ctx, Config{Endpoint: fake.URL, Model: "m", Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	x := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1}, Data: []float32{1}}}
	for _, m := range []string{"garbage", "short", "stall"} {
		mu.Lock()
		mode = m
		mu.Unlock()
		start := time.Now()
		_, err := sess.Run(ctx, x)
		if err == nil {
			t.Errorf("%s: no error", m)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("%s: took %v", m, time.Since(start))
		}
	}
}

func TestReadiness(t *testing.T) {
	s, hs := serve(t, double{})
	get := func(p string) int {
		resp, err := http.Get(hs.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get("/v2/health/ready"); c != 200 {
		t.Errorf("ready: %d", c)
	}
	s.SetReady(false)
	if c := get("/v2/health/ready"); c != 503 {
		t.Errorf("draining server answers ready with %d", c)
	}
	if c := get("/v2/health/live"); c != 200 {
		t.Errorf("live: %d", c)
	}
	if c := get("/v2/models/double/versions/2"); c != 404 {
		t.Errorf("unknown version: %d", c)
	}
}

// runLog records, in order, which node ran each inference.
type runLog struct {
	mu    sync.Mutex
	nodes []int
}

// countedDouble is double that records its node in a runLog.
type countedDouble struct {
	double
	node int
	log  *runLog
}

func (c countedDouble) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	c.log.mu.Lock()
	c.log.nodes = append(c.log.nodes, c.node)
	c.log.mu.Unlock()
	return c.double.Run(ctx, in)
}

// TestPoolRoundRobinAndNetworkName: four runs over two nodes go to node 0,
// 1, 0, 1 (each node's own server counts them); the pool's name lists both
// nodes' names and refuses a node twice or a node of another contract.
func TestPoolRoundRobinAndNetworkName(t *testing.T) {
	ctx := context.Background()
	var eps []string
	var log runLog
	for i := range 2 {
		s := NewServer(fmt.Sprintf("node%d", i), "1.0")
		s.Add("double", countedDouble{node: i, log: &log}, 1)
		hs := httptest.NewServer(s)
		t.Cleanup(hs.Close)
		eps = append(eps, hs.URL)
	}
	p, err := DialPool(ctx, eps, Config{Model: "double"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	name, err := p.Name(ctx)
	if err != nil || !strings.HasPrefix(name, "Network SUT: node0 1.0 at ") || !strings.Contains(name, "; node1 1.0 at ") {
		t.Errorf("Name = %q, %v", name, err)
	}
	log.mu.Lock()
	before := len(log.nodes) // inferences made while dialling, if any
	log.mu.Unlock()
	// Requests go round-robin, each reporting its node's index into
	// Endpoints to a caller that asks (WithNodeReport).
	if got := p.Endpoints(); len(got) != 2 || "http://"+got[0] != eps[0] || "http://"+got[1] != eps[1] {
		t.Errorf("Endpoints %v, dialled %v", got, eps)
	}
	for i := range 4 {
		node := -1
		rctx := WithNodeReport(ctx, &node)
		in := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 3}, Data: []float32{1, 2, 3}}}
		var err error
		if i%2 == 0 {
			_, err = p.Run(rctx, in)
		} else {
			_, _, err = p.RunTimed(rctx, in)
		}
		if err != nil {
			t.Fatal(err)
		}
		if node != i%2 {
			t.Errorf("request %d went to node %d, want %d in turn", i, node, i%2)
		}
	}
	log.mu.Lock()
	got := slices.Clone(log.nodes[before:])
	log.mu.Unlock()
	if !slices.Equal(got, []int{0, 1, 0, 1}) {
		t.Errorf("runs went to nodes %v, want [0 1 0 1]", got)
	}
	// A node serving another contract is refused at dial time.
	other := NewServer("odd", "1")
	other.Add("double", &NullSession{In: []backend.Info{{Name: "q", DType: backend.Int64, Shape: []int64{1}}}}, 1)
	ho := httptest.NewServer(other)
	defer ho.Close()
	if _, err := DialPool(ctx, []string{eps[0], ho.URL}, Config{Model: "double"}); err == nil || !strings.Contains(err.Error(), "different inputs or outputs") {
		t.Errorf("mismatched nodes: %v", err)
	}
	// The same node twice has no unique name: Name refuses it.
	twice, err := DialPool(ctx, []string{eps[0], eps[0]}, Config{Model: "double"})
	if err != nil {
		t.Fatal(err)
	}
	defer twice.Close()
	if n, err := twice.Name(ctx); err == nil || !strings.Contains(err.Error(), "unique name") {
		t.Errorf("Name of one node twice = %q, %v", n, err)
	}
}

func TestNullSessionShapes(t *testing.T) {
	n := &NullSession{Out: []backend.Info{{Name: "ArgMax:0", DType: backend.Int64, Shape: []int64{-1}}, {Name: "p", DType: backend.Float32, Shape: []int64{-1, 4}}, {Name: "d", DType: backend.Float32, Shape: []int64{-1, -1, 2}}}}
	out, err := n.Run(context.Background(), []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{8, 3}, Data: make([]float32, 24)}})
	if err != nil {
		t.Fatal(err)
	}
	// The leading dynamic dimension is the batch; the others are 1.
	if len(out[0].Data.([]int64)) != 8 || len(out[1].Data.([]float32)) != 32 || !slices.Equal(out[2].Shape, []int64{8, 1, 2}) || len(out[2].Data.([]float32)) != 16 {
		t.Errorf("shapes %v %v %v", out[0].Shape, out[1].Shape, out[2].Shape)
	}
}

// TestAnswerBinaryDataMustFillTheBody: an answer whose binary part is one
// byte longer than its tensors say, or one byte shorter, is an error naming
// the difference; the exact length decodes.
func TestAnswerBinaryDataMustFillTheBody(t *testing.T) {
	ctx := context.Background()
	head := `{"outputs":[{"name":"y","shape":[1],"datatype":"FP32","parameters":{"binary_data_size":4}}]}`
	var bin []byte
	var mu sync.Mutex
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			json.NewEncoder(w).Encode(ModelMeta{Name: "m", Inputs: []TensorMeta{{Name: "x", Datatype: "FP32", Shape: []int64{1}}}, Outputs: []TensorMeta{{Name: "y", Datatype: "FP32", Shape: []int64{1}}}})
			return
		}
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		b := bin
		mu.Unlock()
		w.Header().Set(HeaderLength, fmt.Sprint(len(head)))
		w.Write(append([]byte(head), b...))
	}))
	defer fake.Close()
	sess, err := Dial(ctx, Config{Endpoint: fake.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	x := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1}, Data: []float32{1}}}
	for _, c := range []struct {
		bin  []byte
		want string // "" decodes to 1.5
	}{
		{[]byte{0, 0, 0xc0, 0x3f}, ""},
		{[]byte{0, 0, 0xc0, 0x3f, 9}, "1 bytes of binary data left over after the tensors"},
		{[]byte{0, 0, 0xc0}, "binary data runs past the body (0+4 > 3 bytes)"},
	} {
		mu.Lock()
		bin = c.bin
		mu.Unlock()
		out, err := sess.Run(ctx, x)
		switch {
		case c.want == "" && (err != nil || len(out) != 1 || out[0].Data.([]float32)[0] != 1.5):
			t.Errorf("%d binary bytes: %v, %v; want y = 1.5", len(c.bin), out, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%d binary bytes: %v, want %q", len(c.bin), err, c.want)
		}
	}
}
