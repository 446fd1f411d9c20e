package kserve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
)

// resnetLike is ResNet50's contract over a null engine.
func resnetLike() *NullSession {
	return &NullSession{
		In:  []backend.Info{{Name: "input_tensor:0", DType: backend.Float32, Shape: []int64{-1, 3, 224, 224}}},
		Out: []backend.Info{{Name: "ArgMax:0", DType: backend.Int64, Shape: []int64{-1}}, {Name: "softmax_tensor:0", DType: backend.Float32, Shape: []int64{-1, 1001}}},
	}
}

func TestLimitsFromTheContract(t *testing.T) {
	in := resnetLike().In
	if got := TensorBytes(in, 1); got != 3*224*224*4 {
		t.Errorf("one ResNet50 input: %d bytes", got)
	}
	if got := DefaultMaxBatch(in); got != DefaultMaxBatchCap {
		t.Errorf("ResNet50 default batch limit %d, want %d (32 × 602 kB fits 64 MiB)", got, DefaultMaxBatchCap)
	}
	unet := []backend.Info{{Name: "input", DType: backend.Float32, Shape: []int64{-1, 1, 128, 128, 128}}}
	if got := DefaultMaxBatch(unet); got != 8 {
		t.Errorf("3D U-Net default batch limit %d, want 8 (64 MiB / 8 MiB)", got)
	}
	huge := []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, -1, -1, -1}}}
	if got := TensorBytes(huge, 1<<20); got != MaxTensorBytes {
		t.Errorf("all-dynamic contract: %d bytes, want the cap %d", got, MaxTensorBytes)
	}
	if got := DefaultMaxBatch(huge); got != 1 {
		t.Errorf("all-dynamic contract: default batch %d, want 1", got)
	}
	// RetinaNet's detections: a dynamic dimension that is not the batch
	// counts as MaxDynamicDim.
	boxes := []backend.Info{{Name: "boxes", DType: backend.Float32, Shape: []int64{-1, 4}}}
	if got := answerLimit(boxes, 1, true); got != 1*4*4+HeaderMargin {
		t.Errorf("boxes answer at batch 1, binary: %d", got)
	}
	if got := answerLimit(boxes, 2, false); got != jsonFactor*2*4+HeaderMargin {
		t.Errorf("boxes answer at batch 2, JSON: %d", got)
	}
}

func TestCheckContractRefusesUnusableModels(t *testing.T) {
	x := backend.Info{Name: "x", DType: backend.Float32, Shape: []int64{-1, 3}}
	for _, c := range []struct {
		in, out []backend.Info
		want    string // "" accepted
	}{
		{[]backend.Info{x}, []backend.Info{x}, ""},
		{nil, []backend.Info{x}, "has no inputs"},
		{[]backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{1, 0, 224}}}, nil, "input \"x\" has shape [1,0,224]: a dimension of 0 makes every input empty"},
		{[]backend.Info{x}, []backend.Info{{Name: "y", DType: backend.Float32, Shape: []int64{0}}}, "output \"y\" has shape [0]"},
		{[]backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-2}}}, nil, "a dimension of -2"},
		{[]backend.Info{x, x}, nil, "two inputs named \"x\""},
		{[]backend.Info{{DType: backend.Float32, Shape: []int64{1}}}, nil, "unnamed input"},
	} {
		err := CheckContract("model m", c.in, c.out)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v %v: %v, want %q", c.in, c.out, err, c.want)
		}
	}
	s := NewServer("n", "1")
	if err := s.Add("m", &NullSession{In: []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{0}}}}, 1); err == nil {
		t.Error("a zero-dimension model was served")
	}
}

// rawPost sends a request head (and then body, if any) on a fresh
// connection and returns the status line and body of the answer.
func rawPost(t *testing.T, addr, head string, body io.Reader) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	if body != nil {
		go io.Copy(c, body) // fails once the server closes the connection
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b)
}

// zeros is an endless reader of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// A body larger than the model takes is refused with 413 from its
// Content-Length alone (no byte of it is read: the test never sends
// one), and a chunked body that runs past the limit is cut off the same
// way; the messages say what the limit is made of and the fix.
func TestServerBoundsRequestBodies(t *testing.T) {
	s := NewServer("n", "1")
	s.MaxBatch = 2
	if err := s.Add("resnet50", resnetLike(), 1); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	addr := strings.TrimPrefix(hs.URL, "http://")
	limit := s.RequestLimit("resnet50")
	if want := int64(2*3*224*224*4 + HeaderMargin); limit != want {
		t.Fatalf("limit %d, want %d", limit, want)
	}
	for _, claim := range []int64{1 << 30, 5 << 30, limit + 1} {
		code, msg := rawPost(t, addr, fmt.Sprintf("POST /v2/models/resnet50/infer HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n%s: 100\r\n\r\n", claim, HeaderLength), nil)
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(msg, fmt.Sprintf("the request's %d bytes exceed the %d that model resnet50 accepts", claim, limit)) || !strings.Contains(msg, "send at most 2 samples per request") {
			t.Errorf("claim of %d bytes: %d %s", claim, code, msg)
		}
	}
	// A small model's limit+1 is less than the 256 KiB net/http would
	// read of an unwanted body before answering: the answer must not wait
	// for a body that never comes.
	if err := s.Add("double", double{}, 1); err != nil {
		t.Fatal(err)
	}
	small := s.RequestLimit("double")
	if code, msg := rawPost(t, addr, fmt.Sprintf("POST /v2/models/double/infer HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", small+1), nil); code != http.StatusRequestEntityTooLarge {
		t.Errorf("claim of %d bytes to a small model: %d %s", small+1, code, msg)
	}
	code, msg := rawPost(t, addr, "POST /v2/models/resnet50/infer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"+HeaderLength+": 100\r\n\r\n", chunked{})
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(msg, fmt.Sprintf("the request's body runs past the %d bytes that model resnet50 accepts", limit)) {
		t.Errorf("endless chunked body: %d %s", code, msg)
	}
	// A request at the limit is served.
	sess, err := Dial(context.Background(), Config{Endpoint: addr, Model: "resnet50"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	x := backend.Tensor{Name: "input_tensor:0", DType: backend.Float32, Shape: []int64{2, 3, 224, 224}, Data: make([]float32, 2*3*224*224)}
	if _, err := sess.Run(context.Background(), []backend.Tensor{x}); err != nil {
		t.Errorf("a request of 2 samples (the limit): %v", err)
	}
	x.Shape[0], x.Data = 3, make([]float32, 3*3*224*224)
	if _, err := sess.Run(context.Background(), []backend.Tensor{x}); err == nil || !strings.Contains(err.Error(), "HTTP 413") {
		t.Errorf("a request of 3 samples: %v", err)
	}
}

// chunked is an endless chunked-encoding body of 16 KiB chunks.
type chunked struct{}

func (chunked) Read(p []byte) (int, error) {
	const n = 16 << 10
	head := strconv.FormatInt(n, 16) + "\r\n"
	if len(p) < len(head)+n+2 {
		return 0, io.ErrShortBuffer
	}
	k := copy(p, head)
	clear(p[k : k+n])
	copy(p[k+n:], "\r\n")
	return k + n + 2, nil
}

// Tensors that do not fit the model's inputs are refused before the model
// runs: a batch past the limit, an empty or a 10⁹ dimension (whose
// outputs a null engine would allocate), another type or rank.
func TestServerChecksRequestShapes(t *testing.T) {
	s := NewServer("n", "1")
	s.MaxBatch = 4
	if err := s.Add("m", &NullSession{
		In:  []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 3}}},
		Out: []backend.Info{{Name: "y", DType: backend.Float32, Shape: []int64{-1, 1000}}},
	}, 1); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	post := func(js string) (int, string) {
		resp, err := http.Post(hs.URL+"/v2/models/m/infer", "application/json", strings.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e ErrorResponse
		json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e.Error
	}
	for _, c := range []struct{ js, want string }{
		{`{"inputs":[{"name":"x","shape":[1000000000,0],"datatype":"FP32","data":[]}]}`, `the request carries 1000000000 samples; this node takes at most 4 per request`},
		{`{"inputs":[{"name":"x","shape":[1,0],"datatype":"FP32","data":[]}]}`, `has shape [N,3]; the request sends [1,0]`},
		{`{"inputs":[{"name":"x","shape":[0,3],"datatype":"FP32","data":[]}]}`, `dimension 0 of the request's shape [0,3] is 0`},
		{`{"inputs":[{"name":"x","shape":[5,3],"datatype":"FP32","data":[1,2,3,1,2,3,1,2,3,1,2,3,1,2,3]}]}`, `the request carries 5 samples; this node takes at most 4 per request`},
		{`{"inputs":[{"name":"x","shape":[1,3],"datatype":"INT64","data":[1,2,3]}]}`, `input "x" is FP32; the request sends INT64`},
		{`{"inputs":[{"name":"x","shape":[3],"datatype":"FP32","data":[1,2,3]}]}`, `another rank`},
		{`{"inputs":[]}`, `takes 1 inputs (x FP32 [N,3]); the request sends 0`},
	} {
		code, msg := post(c.js)
		if code != http.StatusBadRequest || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %s, want 400 saying %q", c.js, code, msg, c.want)
		}
	}
	if code, msg := post(`{"inputs":[{"name":"x","shape":[4,3],"datatype":"FP32","data":[1,2,3,1,2,3,1,2,3,1,2,3]}]}`); code != http.StatusOK {
		t.Errorf("a batch of 4 (the limit): %d %s", code, msg)
	}
}

// When requests in flight hold the whole memory budget, a further one
// waits BudgetWait for its share, then is answered 503 without its body
// being read; once the budget is free it is served.
func TestServerMemoryBudget(t *testing.T) {
	s := NewServer("n", "1")
	s.MaxBatch = 1
	s.BudgetWait = 50 * time.Millisecond
	if err := s.Add("m", &NullSession{
		In:  []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 3}}},
		Out: []backend.Info{{Name: "y", DType: backend.Float32, Shape: []int64{-1}}},
	}, 2); err != nil {
		t.Fatal(err)
	}
	want := int64(MemoryFactor * 2 * ((12 + HeaderMargin) + (4 + HeaderMargin)))
	if got := s.MemoryBudget(); got != want {
		t.Fatalf("budget %d, want %d", got, want)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	if err := s.reserve(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	js := `{"inputs":[{"name":"x","shape":[1,3],"datatype":"FP32","data":[1,2,3]}]}`
	resp, err := http.Post(hs.URL+"/v2/models/m/infer", "application/json", strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "the node is busy") {
		t.Errorf("with the budget taken: %d %s", resp.StatusCode, b)
	}
	s.release(want)
	resp, err = http.Post(hs.URL+"/v2/models/m/infer", "application/json", strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("with the budget free: %d", resp.StatusCode)
	}
}

// A body that stops arriving holds its share of the memory budget no
// longer than BodyWait: the request is answered 408.
func TestServerDropsATricklingBody(t *testing.T) {
	s := NewServer("n", "1")
	s.BodyWait = 100 * time.Millisecond
	if err := s.Add("resnet50", resnetLike(), 1); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	code, msg := rawPost(t, strings.TrimPrefix(hs.URL, "http://"), "POST /v2/models/resnet50/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"inputs\":", nil)
	if code != http.StatusRequestTimeout || !strings.Contains(msg, "did not arrive within 100ms") {
		t.Errorf("a stalled body: %d %s", code, msg)
	}
}

// TestTensorBytesAndCheckInputsAtTheirBounds: only the leading dynamic
// dimension is the batch; the others count MaxDynamicDim. A request fills
// the batch limit and MaxDynamicDim exactly; one more of either is refused
// with its message, as is an empty dimension.
func TestTensorBytesAndCheckInputsAtTheirBounds(t *testing.T) {
	f32 := func(shape ...int64) []backend.Info {
		return []backend.Info{{Name: "x", DType: backend.Float32, Shape: shape}}
	}
	for _, c := range []struct {
		in    []backend.Info
		batch int64
		want  int64
	}{
		{f32(-1, 5), 3, 3 * 5 * 4},
		{f32(7, -1), 3, 7 * MaxDynamicDim * 4},
		{f32(-1, -1), 2, 2 * MaxDynamicDim * 4},
		{f32(2, 3), 9, 2 * 3 * 4},
		{f32(0, 5), 3, 0}, // a leading 0 is no batch: no bytes
	} {
		if got := TensorBytes(c.in, c.batch); got != c.want {
			t.Errorf("TensorBytes(%v, batch %d) = %d, want %d", c.in[0].Shape, c.batch, got, c.want)
		}
	}
	want := f32(-1, -1)
	req := func(shape ...int64) []backend.Tensor {
		n := int64(1)
		for _, d := range shape {
			n *= max(d, 0)
		}
		return []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: shape, Data: make([]float32, n)}}
	}
	for _, c := range []struct {
		in   []backend.Tensor
		want string // "" accepted
	}{
		{req(2, MaxDynamicDim), ""},
		{req(1, 1), ""},
		{req(3, 1), "the request carries 3 samples; this node takes at most 2 per request"},
		{req(1, 3), ""},
		{req(1, MaxDynamicDim+1), "dimension 1 of the request's shape [1,65537] exceeds 65536"},
		{req(1, 0), "dimension 1 of the request's shape [1,0] is 0"},
		{req(0, 1), "dimension 0 of the request's shape [0,1] is 0"},
	} {
		err := checkInputs("m", want, c.in, 2)
		if (c.want == "" && err != nil) || (c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want))) {
			t.Errorf("request %v: %v, want %q", c.in[0].Shape, err, c.want)
		}
	}
}
