package ort

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	onnxruntime "github.com/yalue/onnxruntime_go"

	"github.com/mlperf-go/inference/backend"
)

// Execution providers.
const (
	CPU      = "cpu"
	CUDA     = "cuda"
	TensorRT = "tensorrt"
)

// Providers lists the accepted execution-provider names.
var Providers = []string{CPU, CUDA, TensorRT}

// ParseProvider checks a provider name as a user types it (case-insensitive;
// "" means cpu) and returns its canonical form.
func ParseProvider(name string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return CPU, nil
	}
	if slices.Contains(Providers, n) {
		return n, nil
	}
	return "", fmt.Errorf("ort: unknown backend %q (want one of %s)", name, strings.Join(Providers, ", "))
}

// OptLevel is ONNX Runtime's graph optimisation level.
type OptLevel int

// Optimisation levels. The zero value is OptAll, ONNX Runtime's default and
// what the MLPerf reference uses.
const (
	OptAll OptLevel = iota
	OptDisable
	OptBasic
	OptExtended
)

// ParseOptLevel parses "all", "extended", "basic" or "disable".
func ParseOptLevel(s string) (OptLevel, error) {
	switch strings.ToLower(s) {
	case "", "all":
		return OptAll, nil
	case "extended":
		return OptExtended, nil
	case "basic":
		return OptBasic, nil
	case "disable", "none", "off":
		return OptDisable, nil
	}
	return 0, fmt.Errorf("ort: unknown optimisation level %q (want all, extended, basic or disable)", s)
}

func (l OptLevel) ort() onnxruntime.GraphOptimizationLevel {
	switch l {
	case OptDisable:
		return onnxruntime.GraphOptimizationLevelDisableAll
	case OptBasic:
		return onnxruntime.GraphOptimizationLevelEnableBasic
	case OptExtended:
		return onnxruntime.GraphOptimizationLevelEnableExtended
	}
	return onnxruntime.GraphOptimizationLevelEnableAll
}

// Options configure a session. The zero value runs on the CPU with ONNX
// Runtime's defaults.
type Options struct {
	// Provider is the execution provider: "cpu" (default), "cuda" or
	// "tensorrt" (with CUDA as fallback for unsupported nodes).
	Provider string
	// DeviceID selects the GPU for cuda and tensorrt (the provider's
	// device_id).
	DeviceID int
	// ProviderOptions are extra key/values for the cuda or tensorrt
	// provider, as ONNX Runtime's CUDA and TensorRT execution providers
	// take them (it refuses unknown keys), e.g. for CUDA's memory arena
	// "gpu_mem_limit": "8589934592" (bytes) and "arena_extend_strategy":
	// "kSameAsRequested" (default kNextPowerOfTwo), "cudnn_conv_algo_search":
	// "HEURISTIC", "use_tf32": "0"; for TensorRT "trt_fp16_enable": "1".
	// IO binding is not offered: onnxruntime_go v1.27.0 binds host memory
	// only (its one OrtMemoryInfo is the CPU's, with no device allocator or
	// BindOutputToDevice), so a bound run makes the same host-device copies
	// as Run; enable_cuda_graph, which needs inputs and outputs bound in
	// device memory, is therefore not usable either.
	ProviderOptions map[string]string
	// IntraOpThreads is the number of threads inside one operator (0: ONNX
	// Runtime's default, one per physical core).
	IntraOpThreads int
	// InterOpThreads is the number of threads running independent operators
	// in parallel (0: default). Values above 1 select the parallel executor.
	InterOpThreads int
	// OptLevel is the graph optimisation level.
	OptLevel OptLevel
	// Config holds ONNX Runtime session configuration entries, e.g.
	// "session.intra_op.allow_spinning": "0" to stop idle intra-op threads
	// from spinning when several sessions or workers share the cores.
	Config map[string]string
	// Outputs restricts the outputs Run computes and returns, in this order
	// (default: all, in model order). The reference ResNet50 harness, for
	// example, fetches only "ArgMax:0".
	Outputs []string
}

// Session is an ONNX Runtime session. Run and RunInto are safe for
// concurrent use (each call binds its own tensors); Close waits for calls in
// progress.
type Session struct {
	name    string
	sess    *onnxruntime.DynamicAdvancedSession
	inputs  []backend.Info
	outputs []backend.Info // the fetched outputs, in fetch order
	inIdx   map[string]int
	outIdx  map[string]int

	mu     sync.RWMutex
	closed bool
}

var _ backend.Session = (*Session)(nil)

// ErrClosed is returned by Run on a closed session.
var ErrClosed = errors.New("ort: session is closed")

// Open loads the model file at path (its external data, if any, beside it).
func Open(path string, o Options) (*Session, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("ort: model %s does not exist: %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("ort: model %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("ort: model %s is not a regular file", path)
	}
	if st.Size() == 0 {
		return nil, fmt.Errorf("ort: model %s is empty (rebuild or download it again)", path)
	}
	return open(path, nil, o)
}

// OpenBytes loads a model from memory (the model must not use external
// data). data is not retained.
func OpenBytes(data []byte, o Options) (*Session, error) {
	if len(data) == 0 {
		return nil, errors.New("ort: empty model data")
	}
	return open("", data, o)
}

func open(path string, data []byte, o Options) (*Session, error) {
	name := path
	if name == "" {
		name = "model from memory"
	}
	// Absurd counts crash ONNX Runtime (it creates every thread while the
	// session opens) instead of failing, so they are refused here.
	if err := backend.CheckThreads("intra-op threads", o.IntraOpThreads); err != nil {
		return nil, fmt.Errorf("ort: %w", err)
	}
	if err := backend.CheckThreads("inter-op threads", o.InterOpThreads); err != nil {
		return nil, fmt.Errorf("ort: %w", err)
	}
	if err := Init(); err != nil {
		return nil, err
	}
	prov, err := ParseProvider(o.Provider)
	if err != nil {
		return nil, err
	}
	if prov == CPU && len(o.ProviderOptions) > 0 {
		return nil, fmt.Errorf("ort: provider options %s are for the cuda and tensorrt providers; the cpu provider takes none", formatOptions(o.ProviderOptions))
	}
	// Introspect on the CPU with optimisations off: cheap, and needed
	// because the session binds its input and output names at creation.
	var ins, outs []onnxruntime.InputOutputInfo
	if data != nil {
		ins, outs, err = onnxruntime.GetInputOutputInfoWithONNXData(data)
	} else {
		var so *onnxruntime.SessionOptions
		so, err = onnxruntime.NewSessionOptions()
		if err == nil {
			so.SetGraphOptimizationLevel(onnxruntime.GraphOptimizationLevelDisableAll)
			so.SetIntraOpNumThreads(1)
			ins, outs, err = onnxruntime.GetInputOutputInfoWithOptions(path, so)
			so.Destroy()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("ort: load %s: %s (is the file a complete ONNX model? rebuild or download it again)", name, cleanMsg(err))
	}
	if len(ins) == 0 || len(outs) == 0 {
		// onnxruntime_go cannot run such models.
		return nil, fmt.Errorf("ort: %s has %d inputs and %d outputs; models without inputs or outputs are not supported", name, len(ins), len(outs))
	}
	s := &Session{name: name, inIdx: map[string]int{}, outIdx: map[string]int{}}
	for i, in := range ins {
		s.inputs = append(s.inputs, info(in))
		s.inIdx[in.Name] = i
	}
	all := map[string]backend.Info{}
	for _, out := range outs {
		all[out.Name] = info(out)
	}
	if len(o.Outputs) == 0 {
		for _, out := range outs {
			s.outputs = append(s.outputs, info(out))
		}
	} else {
		for _, n := range o.Outputs {
			inf, ok := all[n]
			if !ok {
				return nil, fmt.Errorf("ort: %s has no output %q (outputs: %s)", name, n, infoNames(outs))
			}
			if _, dup := s.outIdx[n]; dup {
				return nil, fmt.Errorf("ort: output %q requested twice", n)
			}
			s.outIdx[n] = len(s.outputs)
			s.outputs = append(s.outputs, inf)
		}
	}
	for i, out := range s.outputs {
		s.outIdx[out.Name] = i
	}

	so, err := sessionOptions(prov, o)
	if err != nil {
		return nil, err
	}
	defer so.Destroy()
	inNames := make([]string, len(s.inputs))
	for i, in := range s.inputs {
		inNames[i] = in.Name
	}
	outNames := make([]string, len(s.outputs))
	for i, out := range s.outputs {
		outNames[i] = out.Name
	}
	if data != nil {
		s.sess, err = onnxruntime.NewDynamicAdvancedSessionWithONNXData(data, inNames, outNames, so)
	} else {
		s.sess, err = onnxruntime.NewDynamicAdvancedSession(path, inNames, outNames, so)
	}
	if err != nil {
		return nil, fmt.Errorf("ort: create session for %s on %s: %s", name, prov, cleanMsg(err))
	}
	return s, nil
}

// cleanMsg strips onnxruntime_go's wrapping prefixes from an error.
func cleanMsg(err error) string {
	m := err.Error()
	for _, p := range []string{"Error loading temporary session: ", "Error creating temporary session: ",
		"Error creating C session from file: ", "Error creating C session: "} {
		m = strings.TrimPrefix(m, p)
	}
	return m
}

func infoNames(infos []onnxruntime.InputOutputInfo) string {
	n := make([]string, len(infos))
	for i, in := range infos {
		n[i] = strconv.Quote(in.Name)
	}
	return strings.Join(n, ", ")
}

func sessionOptions(prov string, o Options) (*onnxruntime.SessionOptions, error) {
	so, err := onnxruntime.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("ort: session options: %w", err)
	}
	fail := func(err error) (*onnxruntime.SessionOptions, error) {
		so.Destroy()
		return nil, err
	}
	if o.IntraOpThreads > 0 {
		if err := so.SetIntraOpNumThreads(o.IntraOpThreads); err != nil {
			return fail(fmt.Errorf("ort: intra-op threads: %w", err))
		}
	}
	if o.InterOpThreads > 0 {
		if err := so.SetInterOpNumThreads(o.InterOpThreads); err != nil {
			return fail(fmt.Errorf("ort: inter-op threads: %w", err))
		}
		if o.InterOpThreads > 1 {
			if err := so.SetExecutionMode(onnxruntime.ExecutionModeParallel); err != nil {
				return fail(fmt.Errorf("ort: execution mode: %w", err))
			}
		}
	}
	keys := make([]string, 0, len(o.Config))
	for k := range o.Config {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := so.AddSessionConfigEntry(k, o.Config[k]); err != nil {
			return fail(fmt.Errorf("ort: session config %s=%s: %w", k, o.Config[k], err))
		}
	}
	if err := so.SetGraphOptimizationLevel(o.OptLevel.ort()); err != nil {
		return fail(fmt.Errorf("ort: optimisation level: %w", err))
	}
	switch prov {
	case CUDA:
		if err := appendCUDA(so, o); err != nil {
			return fail(err)
		}
	case TensorRT:
		if err := appendTensorRT(so, o); err != nil {
			return fail(err)
		}
		if err := appendCUDA(so, Options{DeviceID: o.DeviceID}); err != nil {
			return fail(err)
		}
	}
	return so, nil
}

// providerOptions are the key/values given to the cuda and tensorrt
// providers: device_id from DeviceID, then ProviderOptions.
func providerOptions(o Options) map[string]string {
	m := map[string]string{"device_id": strconv.Itoa(o.DeviceID)}
	for k, v := range o.ProviderOptions {
		m[k] = v
	}
	return m
}

func appendCUDA(so *onnxruntime.SessionOptions, o Options) error {
	if err := prepareGPU(CUDA); err != nil {
		return err
	}
	co, err := onnxruntime.NewCUDAProviderOptions()
	if err != nil {
		return fmt.Errorf("ort: cuda provider options: %w", err)
	}
	defer co.Destroy()
	if err := co.Update(providerOptions(o)); err != nil {
		return fmt.Errorf("ort: cuda provider options %s: %w (see the keys of ONNX Runtime's CUDA execution provider)", formatOptions(providerOptions(o)), err)
	}
	if err := so.AppendExecutionProviderCUDA(co); err != nil {
		return fmt.Errorf("ort: enable cuda execution provider: %w", err)
	}
	return nil
}

func appendTensorRT(so *onnxruntime.SessionOptions, o Options) error {
	if err := prepareGPU(TensorRT); err != nil {
		return err
	}
	to, err := onnxruntime.NewTensorRTProviderOptions()
	if err != nil {
		return fmt.Errorf("ort: tensorrt provider options: %w", err)
	}
	defer to.Destroy()
	if err := to.Update(providerOptions(o)); err != nil {
		return fmt.Errorf("ort: tensorrt provider options %s: %w (see the keys of ONNX Runtime's TensorRT execution provider)", formatOptions(providerOptions(o)), err)
	}
	if err := so.AppendExecutionProviderTensorRT(to); err != nil {
		return fmt.Errorf("ort: enable tensorrt execution provider: %w", err)
	}
	return nil
}

// formatOptions prints key/values sorted by key, for messages.
func formatOptions(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, " ")
}

func dtypeOf(t onnxruntime.TensorElementDataType) backend.DType {
	switch t {
	case onnxruntime.TensorElementDataTypeFloat:
		return backend.Float32
	case onnxruntime.TensorElementDataTypeFloat16:
		return backend.Float16
	case onnxruntime.TensorElementDataTypeInt64:
		return backend.Int64
	case onnxruntime.TensorElementDataTypeInt32:
		return backend.Int32
	case onnxruntime.TensorElementDataTypeUint8:
		return backend.Uint8
	case onnxruntime.TensorElementDataTypeBool:
		return backend.Bool
	}
	return 0
}

func info(in onnxruntime.InputOutputInfo) backend.Info {
	return backend.Info{Name: in.Name, DType: dtypeOf(in.DataType), Shape: slices.Clone([]int64(in.Dimensions))}
}

// Name is the model path the session was opened from.
func (s *Session) Name() string { return s.name }

// Inputs describes the model's inputs in order. The result is a copy.
func (s *Session) Inputs() []backend.Info { return cloneInfos(s.inputs) }

// Outputs describes the outputs Run returns, in order. The result is a copy.
func (s *Session) Outputs() []backend.Info { return cloneInfos(s.outputs) }

func cloneInfos(in []backend.Info) []backend.Info {
	out := make([]backend.Info, len(in))
	for i, x := range in {
		out[i] = backend.Info{Name: x.Name, DType: x.DType, Shape: slices.Clone(x.Shape)}
	}
	return out
}

// Run executes the model on in (matched by name; every model input must be
// given exactly once) and returns the fetched outputs in Outputs order, in
// new Go slices owned by the caller. Inputs are read in place, without a
// copy: in's Data must not change until Run returns. Cancelling ctx aborts
// the run. Safe for concurrent use.
func (s *Session) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	out := make([]backend.Tensor, len(s.outputs))
	for i, o := range s.outputs {
		out[i].Name = o.Name
	}
	if err := s.RunInto(ctx, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// RunInto is Run with caller-provided outputs: out names every fetched output
// once, in any order. An entry with Data set (and its full Shape) receives
// the output in place, without allocation or copy; an entry with nil Data is
// filled with a new slice, its DType and Shape. Float16 outputs of dynamic
// shape must be provided this way. Safe for concurrent use.
func (s *Session) RunInto(ctx context.Context, in, out []backend.Tensor) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("ort: run %s: %w", s.name, err)
	}
	if len(in) != len(s.inputs) {
		return fmt.Errorf("ort: run %s: got %d inputs, the model takes %d (%s)", s.name, len(in), len(s.inputs), infoList(s.inputs))
	}
	if len(out) != len(s.outputs) {
		return fmt.Errorf("ort: run %s: got %d outputs, the session fetches %d (%s)", s.name, len(out), len(s.outputs), infoList(s.outputs))
	}
	inVals := make([]onnxruntime.Value, len(s.inputs))
	outVals := make([]onnxruntime.Value, len(s.outputs))
	outPos := make([]int, len(s.outputs)) // session output index → out index
	defer func() {
		for _, v := range inVals {
			if v != nil {
				v.Destroy()
			}
		}
		for _, v := range outVals {
			if v != nil && !reflect.ValueOf(v).IsNil() {
				v.Destroy()
			}
		}
	}()
	for _, t := range in {
		i, ok := s.inIdx[t.Name]
		if !ok {
			return fmt.Errorf("ort: run %s: unknown input %q (inputs: %s)", s.name, t.Name, infoList(s.inputs))
		}
		if inVals[i] != nil {
			return fmt.Errorf("ort: run %s: input %q given twice", s.name, t.Name)
		}
		v, err := s.value("input", t, s.inputs[i])
		if err != nil {
			return err
		}
		inVals[i] = v
	}
	seen := make([]bool, len(s.outputs))
	for j, t := range out {
		i, ok := s.outIdx[t.Name]
		if !ok {
			return fmt.Errorf("ort: run %s: unknown output %q (fetched outputs: %s)", s.name, t.Name, infoList(s.outputs))
		}
		if seen[i] {
			return fmt.Errorf("ort: run %s: output %q given twice", s.name, t.Name)
		}
		seen[i] = true
		outPos[i] = j
		if t.Data == nil && s.outputs[i].DType == backend.Float16 {
			// onnxruntime_go cannot copy float16 outputs that ONNX Runtime
			// allocates, so bind our own buffer when the shape is known.
			n := backend.Elements(s.outputs[i].Shape)
			if n < 0 {
				return fmt.Errorf("ort: run %s: float16 output %q has dynamic shape %s: give it a buffer of the right shape with RunInto",
					s.name, t.Name, backend.FormatShape(s.outputs[i].Shape))
			}
			t = backend.Tensor{Name: t.Name, DType: backend.Float16, Shape: slices.Clone(s.outputs[i].Shape), Data: make([]uint16, n)}
			out[j] = t
		}
		if t.Data == nil {
			continue
		}
		v, err := s.value("output", t, s.outputs[i])
		if err != nil {
			return err
		}
		outVals[i] = v
	}
	preset := make([]bool, len(outVals))
	for i, v := range outVals {
		preset[i] = v != nil
	}

	var err error
	if ctx.Done() == nil {
		err = s.sess.Run(inVals, outVals)
	} else {
		err = s.runCancellable(ctx, inVals, outVals)
	}
	runtime.KeepAlive(in)
	runtime.KeepAlive(out)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("ort: run %s: %w", s.name, cerr)
		}
		return fmt.Errorf("ort: run %s: %s", s.name, strings.TrimPrefix(err.Error(), "Error running network: "))
	}
	for i, v := range outVals {
		if preset[i] || v == nil {
			continue
		}
		t, err := tensorOf(v)
		if err != nil {
			return fmt.Errorf("ort: run %s: output %q: %w", s.name, s.outputs[i].Name, err)
		}
		t.Name = s.outputs[i].Name
		out[outPos[i]] = t
	}
	return nil
}

func (s *Session) runCancellable(ctx context.Context, in, out []onnxruntime.Value) error {
	ro, err := onnxruntime.NewRunOptions()
	if err != nil {
		return err
	}
	var mu sync.Mutex
	released := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !released {
			ro.Terminate()
		}
	})
	err = s.sess.RunWithOptions(in, out, ro)
	stop()
	mu.Lock()
	released = true
	ro.Destroy()
	mu.Unlock()
	return err
}

func infoList(infos []backend.Info) string {
	parts := make([]string, len(infos))
	for i, in := range infos {
		parts[i] = fmt.Sprintf("%q %v %s", in.Name, in.DType, backend.FormatShape(in.Shape))
	}
	return strings.Join(parts, ", ")
}

// value wraps t's Go slice in an ONNX Runtime tensor without copying,
// checking it against the model's declaration.
func (s *Session) value(kind string, t backend.Tensor, want backend.Info) (onnxruntime.Value, error) {
	errf := func(format string, args ...any) error {
		return fmt.Errorf("ort: run %s: %s %q: %s", s.name, kind, t.Name, fmt.Sprintf(format, args...))
	}
	if t.DType != want.DType {
		return nil, errf("dtype %v, the model wants %v", t.DType, want.DType)
	}
	if len(t.Shape) != len(want.Shape) {
		return nil, errf("shape %s, the model wants %s", backend.FormatShape(t.Shape), backend.FormatShape(want.Shape))
	}
	for i, d := range t.Shape {
		if d < 0 || (want.Shape[i] >= 0 && d != want.Shape[i]) {
			return nil, errf("shape %s, the model wants %s", backend.FormatShape(t.Shape), backend.FormatShape(want.Shape))
		}
	}
	n := backend.Elements(t.Shape)
	got := backend.DataLen(t.DType, t.Data)
	if got < 0 {
		return nil, errf("data is %T, want the Go slice type of %v", t.Data, t.DType)
	}
	if int64(got) != n {
		return nil, errf("%d elements of data for shape %s (%d elements)", got, backend.FormatShape(t.Shape), n)
	}
	shape := onnxruntime.NewShape(t.Shape...)
	var v onnxruntime.Value
	var err error
	switch d := t.Data.(type) {
	case []float32:
		v, err = onnxruntime.NewTensor(shape, d)
	case []int64:
		v, err = onnxruntime.NewTensor(shape, d)
	case []int32:
		v, err = onnxruntime.NewTensor(shape, d)
	case []uint8:
		v, err = onnxruntime.NewTensor(shape, d)
	case []bool:
		v, err = onnxruntime.NewTensor(shape, d)
	case []uint16:
		if len(d) == 0 {
			return nil, errf("empty float16 tensors are not supported")
		}
		b := unsafe.Slice((*byte)(unsafe.Pointer(&d[0])), 2*len(d))
		v, err = onnxruntime.NewCustomDataTensor(shape, b, onnxruntime.TensorElementDataTypeFloat16)
	}
	if err != nil {
		return nil, errf("%v", err)
	}
	return v, nil
}

// tensorOf converts an output allocated by ONNX Runtime (already copied into
// Go memory by onnxruntime_go) and releases the ONNX Runtime value.
func tensorOf(v onnxruntime.Value) (backend.Tensor, error) {
	defer v.Destroy()
	t := backend.Tensor{Shape: slices.Clone([]int64(v.GetShape()))}
	switch x := v.(type) {
	case *onnxruntime.Tensor[float32]:
		t.DType, t.Data = backend.Float32, x.GetData()
	case *onnxruntime.Tensor[int64]:
		t.DType, t.Data = backend.Int64, x.GetData()
	case *onnxruntime.Tensor[int32]:
		t.DType, t.Data = backend.Int32, x.GetData()
	case *onnxruntime.Tensor[uint8]:
		t.DType, t.Data = backend.Uint8, x.GetData()
	case *onnxruntime.Tensor[bool]:
		t.DType, t.Data = backend.Bool, x.GetData()
	default:
		return t, fmt.Errorf("unsupported output type %v", v.DataType())
	}
	return t, nil
}

// Close releases the session after calls in progress return. Later calls
// return ErrClosed. Close is idempotent.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.sess.Destroy(); err != nil {
		return fmt.Errorf("ort: close %s: %w", s.name, err)
	}
	return nil
}
