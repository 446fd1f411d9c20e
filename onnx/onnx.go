// Package onnx writes ONNX models from Go: a Graph builder with named
// values, seeded initializers, nodes with attributes and dynamic dimensions,
// encoded by hand in the protocol-buffers wire format (no generated code).
//
// Models are written as ModelProto files that ONNX Runtime loads directly.
// Weights are either given as Go slices or generated on the fly by a
// documented, seeded generator (see Init), so the same graph always encodes
// to the same bytes, and weights are produced only while they are written:
// a model of billions of parameters streams to disk in bounded memory, with
// its weights in a side file (ONNX external data) when it exceeds the 2 GiB
// protobuf limit.
//
// A Graph is not safe for concurrent use. Building never panics: the first
// problem (an unknown input name, a duplicate value, bad tensor data) is
// recorded and returned by Err and by the write methods.
package onnx

import (
	"errors"
	"fmt"
	"slices"
)

// IR and operator-set versions written by default. ONNX Runtime 1.24 reads
// IR versions up to 11 and the default-domain opsets up to 23; opset 17 is
// the first with LayerNormalization and is supported by every execution
// provider the project uses.
const (
	DefaultIRVersion = 8
	DefaultOpset     = 17
)

// ErrGraph reports an invalid graph construction.
var ErrGraph = errors.New("onnx: invalid graph")

// DType is an ONNX tensor element type (TensorProto.DataType).
type DType int32

// Element types, numbered as in onnx.proto.
const (
	Float    DType = 1
	Uint8    DType = 2
	Int8     DType = 3
	Uint16   DType = 4
	Int16    DType = 5
	Int32    DType = 6
	Int64    DType = 7
	Bool     DType = 9
	Float16  DType = 10
	Double   DType = 11
	Uint32   DType = 12
	Uint64   DType = 13
	BFloat16 DType = 16
)

// Size is the size of one element in bytes (0 for an unknown type).
func (d DType) Size() int {
	switch d {
	case Uint8, Int8, Bool:
		return 1
	case Uint16, Int16, Float16, BFloat16:
		return 2
	case Float, Int32, Uint32:
		return 4
	case Int64, Double, Uint64:
		return 8
	}
	return 0
}

// String returns the numpy-style name of the type.
func (d DType) String() string {
	switch d {
	case Float:
		return "float32"
	case Uint8:
		return "uint8"
	case Int8:
		return "int8"
	case Uint16:
		return "uint16"
	case Int16:
		return "int16"
	case Int32:
		return "int32"
	case Int64:
		return "int64"
	case Bool:
		return "bool"
	case Float16:
		return "float16"
	case Double:
		return "float64"
	case Uint32:
		return "uint32"
	case Uint64:
		return "uint64"
	case BFloat16:
		return "bfloat16"
	}
	return fmt.Sprintf("dtype(%d)", int32(d))
}

// Dim is one dimension of a graph input or output: a fixed size, or a named
// dynamic dimension (dim_param) when Param is not empty.
type Dim struct {
	Value int64
	Param string
}

// Fix returns a fixed dimension.
func Fix(n int64) Dim { return Dim{Value: n} }

// Sym returns a named dynamic dimension, such as "N" for a batch.
func Sym(name string) Dim { return Dim{Param: name} }

// Dims returns fixed dimensions.
func Dims(n ...int64) []Dim {
	d := make([]Dim, len(n))
	for i, v := range n {
		d[i] = Dim{Value: v}
	}
	return d
}

// ValueInfo declares a graph input or output. A nil Shape means the rank is
// unknown; an empty non-nil Shape is a scalar.
type ValueInfo struct {
	Name  string
	DType DType
	Shape []Dim
}

// irFor is the IR version released with an opset (onnx/helper.py's
// VERSION_TABLE): 8 up to opset 18, 9 for 19–20, 10 for 21–22, 11 from 23.
func irFor(opset int64) int64 {
	switch {
	case opset >= 23:
		return 11
	case opset >= 21:
		return 10
	case opset >= 19:
		return 9
	}
	return DefaultIRVersion
}

// Config holds the model-level settings of a Graph.
type Config struct {
	// Name is the graph name.
	Name string
	// Opset is the default-domain operator set (DefaultOpset when 0).
	Opset int64
	// IRVersion is the ONNX IR version (when 0: the one that came with
	// Opset, DefaultIRVersion for the default opset).
	IRVersion int64
	// Seed selects the weights of every seeded initializer (see Init).
	Seed uint64
	// Producer is written as producer_name ("mlperf-go" when empty).
	Producer string
	// Doc is the graph's doc_string.
	Doc string
}

// Node is one operator application.
type Node struct {
	Name    string
	OpType  string
	Domain  string
	Inputs  []string
	Outputs []string
	Attrs   []Attr
}

// Graph builds one ONNX model: a graph plus the model-level settings.
type Graph struct {
	cfg       Config
	nodes     []*Node
	inputs    []ValueInfo
	outputs   []ValueInfo
	inits     []*Tensor
	valueInfo []ValueInfo
	defined   map[string]bool
	counters  map[string]int
	domains   map[string]int64
	err       error
}

// NewGraph returns an empty graph.
func NewGraph(cfg Config) *Graph {
	if cfg.Opset == 0 {
		cfg.Opset = DefaultOpset
	}
	if cfg.IRVersion == 0 {
		cfg.IRVersion = irFor(cfg.Opset)
	}
	if cfg.Producer == "" {
		cfg.Producer = "mlperf-go"
	}
	if cfg.Name == "" {
		cfg.Name = "graph"
	}
	return &Graph{cfg: cfg, defined: map[string]bool{}, counters: map[string]int{}, domains: map[string]int64{}}
}

// Opset is the graph's default-domain operator set version.
func (g *Graph) Opset() int64 { return g.cfg.Opset }

// Seed is the graph's weight seed.
func (g *Graph) Seed() uint64 { return g.cfg.Seed }

// Err returns the first construction error, or nil.
func (g *Graph) Err() error { return g.err }

func (g *Graph) fail(format string, args ...any) {
	if g.err == nil {
		g.err = fmt.Errorf("%w: "+format, append([]any{ErrGraph}, args...)...)
	}
}

// Defined reports whether name is a graph input, an initializer or a node
// output.
func (g *Graph) Defined(name string) bool { return g.defined[name] }

func (g *Graph) define(name string) {
	if name == "" {
		g.fail("empty value name")
		return
	}
	if g.defined[name] {
		g.fail("value %q defined twice", name)
		return
	}
	g.defined[name] = true
}

// Unique returns a fresh value name starting with prefix.
func (g *Graph) Unique(prefix string) string {
	for {
		n := g.counters[prefix]
		g.counters[prefix] = n + 1
		name := fmt.Sprintf("%s_%d", prefix, n)
		if !g.defined[name] {
			return name
		}
	}
}

// Input declares a graph input and returns its name.
func (g *Graph) Input(name string, dt DType, shape ...Dim) string {
	g.define(name)
	if shape == nil {
		shape = []Dim{}
	}
	g.inputs = append(g.inputs, ValueInfo{Name: name, DType: dt, Shape: slices.Clone(shape)})
	return name
}

// Output declares the existing value name as a graph output with the given
// type and shape.
func (g *Graph) Output(name string, dt DType, shape ...Dim) {
	if !g.defined[name] {
		g.fail("output %q is not defined", name)
	}
	if shape == nil {
		shape = []Dim{}
	}
	g.outputs = append(g.outputs, ValueInfo{Name: name, DType: dt, Shape: slices.Clone(shape)})
}

// OutputUnknownShape declares the existing value name as a graph output of
// unknown rank.
func (g *Graph) OutputUnknownShape(name string, dt DType) {
	if !g.defined[name] {
		g.fail("output %q is not defined", name)
	}
	g.outputs = append(g.outputs, ValueInfo{Name: name, DType: dt})
}

// Annotate records the type and shape of an intermediate value (value_info).
func (g *Graph) Annotate(name string, dt DType, shape ...Dim) {
	g.valueInfo = append(g.valueInfo, ValueInfo{Name: name, DType: dt, Shape: slices.Clone(shape)})
}

// AddInitializer adds the initializer t and returns its name. t must not be changed
// afterwards.
func (g *Graph) AddInitializer(t *Tensor) string {
	if t == nil {
		g.fail("nil initializer")
		return ""
	}
	if t.err != nil {
		g.fail("%v", t.err)
	}
	g.define(t.Name)
	g.inits = append(g.inits, t)
	return t.Name
}

// Const adds an initializer holding values (a slice of float32, float64,
// int64, int32, int16, int8, uint8, uint16 (raw Float16 bits when dt is
// Float16), uint32, uint64 or bool) and returns its name. An empty name picks
// a fresh one.
func (g *Graph) Const(name string, dt DType, dims []int64, values any) string {
	if name == "" {
		name = g.Unique("const")
	}
	return g.AddInitializer(NewTensor(name, dt, dims, values))
}

// Int64s adds a 1-D int64 constant (shapes, axes, indices) and returns its
// name.
func (g *Graph) Int64s(v ...int64) string {
	return g.Const("", Int64, []int64{int64(len(v))}, slices.Clone(v))
}

// Scalar adds a 0-D constant of type dt holding v and returns its name.
func (g *Graph) Scalar(dt DType, v float64) string {
	return g.AddInitializer(NewFilled(g.Unique("scalar"), dt, []int64{}, v))
}

// Param adds a seeded initializer (see Init) and returns its name.
func (g *Graph) Param(name string, dt DType, dims []int64, init Init) string {
	return g.AddInitializer(NewSeeded(name, dt, dims, init, g.cfg.Seed))
}

// Node appends a node with explicit output names and returns them. An empty
// input name marks an omitted optional input.
func (g *Graph) Node(op string, inputs, outputs []string, attrs ...Attr) []string {
	return g.NodeIn("", op, inputs, outputs, attrs...)
}

// NodeIn is Node for an operator of another domain, such as "com.microsoft"
// (imported at version 1).
func (g *Graph) NodeIn(domain, op string, inputs, outputs []string, attrs ...Attr) []string {
	for _, in := range inputs {
		if in != "" && !g.defined[in] {
			g.fail("%s node: input %q is not defined", op, in)
		}
	}
	for _, out := range outputs {
		g.define(out)
	}
	if domain != "" {
		g.domains[domain] = 1
	}
	g.nodes = append(g.nodes, &Node{
		Name:    g.Unique(op),
		OpType:  op,
		Domain:  domain,
		Inputs:  slices.Clone(inputs),
		Outputs: slices.Clone(outputs),
		Attrs:   slices.Clone(attrs),
	})
	return outputs
}

// Op appends a single-output node with a fresh output name and returns it.
func (g *Graph) Op(op string, inputs []string, attrs ...Attr) string {
	return g.Node(op, inputs, []string{g.Unique(op)}, attrs...)[0]
}

// OpN appends a node with n fresh outputs and returns them.
func (g *Graph) OpN(op string, n int, inputs []string, attrs ...Attr) []string {
	outs := make([]string, n)
	for i := range outs {
		outs[i] = g.Unique(op)
	}
	return g.Node(op, inputs, outs, attrs...)
}

// Rename renames the value old, produced by a node, to name, in that node and
// in every node that reads it. It is how a helper's output gets a contract
// name such as "softmax_tensor:0".
func (g *Graph) Rename(old, name string) string {
	if !g.defined[old] {
		g.fail("rename: %q is not defined", old)
		return name
	}
	if g.defined[name] {
		g.fail("rename: %q is already defined", name)
		return name
	}
	found := false
	for _, n := range g.nodes {
		for i, o := range n.Outputs {
			if o == old {
				n.Outputs[i] = name
				found = true
			}
		}
		for i, in := range n.Inputs {
			if in == old {
				n.Inputs[i] = name
			}
		}
	}
	if !found {
		g.fail("rename: %q is not a node output", old)
		return name
	}
	for i := range g.outputs {
		if g.outputs[i].Name == old {
			g.outputs[i].Name = name
		}
	}
	delete(g.defined, old)
	g.defined[name] = true
	return name
}

// Nodes returns the graph's nodes (owned by the graph).
func (g *Graph) Nodes() []*Node { return g.nodes }

// Initializers returns the graph's initializers (owned by the graph).
func (g *Graph) Initializers() []*Tensor { return g.inits }

// Inputs returns the declared graph inputs.
func (g *Graph) Inputs() []ValueInfo { return slices.Clone(g.inputs) }

// Outputs returns the declared graph outputs.
func (g *Graph) Outputs() []ValueInfo { return slices.Clone(g.outputs) }

// ParamCount is the number of elements over all initializers.
func (g *Graph) ParamCount() int64 {
	var n int64
	for _, t := range g.inits {
		n += t.Elements()
	}
	return n
}

// check validates the whole graph before writing.
func (g *Graph) check() error {
	if g.err != nil {
		return g.err
	}
	if len(g.outputs) == 0 {
		return fmt.Errorf("%w: graph %q has no outputs", ErrGraph, g.cfg.Name)
	}
	return nil
}
