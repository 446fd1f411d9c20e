package onnx

import "slices"

// Attribute types, numbered as AttributeProto.AttributeType.
const (
	attrFloat   = 1
	attrInt     = 2
	attrString  = 3
	attrTensor  = 4
	attrFloats  = 6
	attrInts    = 7
	attrStrings = 8
)

// Attr is a node attribute; build one with IntAttr, FloatAttr, StringAttr,
// IntsAttr, FloatsAttr, StringsAttr or TensorAttr.
type Attr struct {
	Name    string
	typ     int
	f       float32
	i       int64
	s       string
	t       *Tensor
	floats  []float32
	ints    []int64
	strings []string
}

// IntAttr returns an INT attribute.
func IntAttr(name string, v int64) Attr { return Attr{Name: name, typ: attrInt, i: v} }

// FloatAttr returns a FLOAT attribute.
func FloatAttr(name string, v float32) Attr { return Attr{Name: name, typ: attrFloat, f: v} }

// StringAttr returns a STRING attribute.
func StringAttr(name, v string) Attr { return Attr{Name: name, typ: attrString, s: v} }

// IntsAttr returns an INTS attribute.
func IntsAttr(name string, v ...int64) Attr {
	return Attr{Name: name, typ: attrInts, ints: slices.Clone(v)}
}

// FloatsAttr returns a FLOATS attribute.
func FloatsAttr(name string, v ...float32) Attr {
	return Attr{Name: name, typ: attrFloats, floats: slices.Clone(v)}
}

// StringsAttr returns a STRINGS attribute.
func StringsAttr(name string, v ...string) Attr {
	return Attr{Name: name, typ: attrStrings, strings: slices.Clone(v)}
}

// TensorAttr returns a TENSOR attribute (as used by Constant and
// ConstantOfShape). The tensor is written inline.
func TensorAttr(name string, t *Tensor) Attr { return Attr{Name: name, typ: attrTensor, t: t} }

func (a *Attr) encode() *msg {
	var m msg
	m.stringField(1, a.Name)
	switch a.typ {
	case attrFloat:
		m.float32Field(2, a.f)
	case attrInt:
		m.int64Field(3, a.i)
	case attrString:
		m.stringField(4, a.s)
	case attrTensor:
		m.message(5, encodeTensor(a.t, nil))
	case attrFloats:
		m.packedFloat32s(7, a.floats)
	case attrInts:
		m.packedInt64s(8, a.ints)
	case attrStrings:
		for _, s := range a.strings {
			m.stringField(9, s)
		}
	}
	m.int64Field(20, int64(a.typ))
	return &m
}

// Int returns the value of an INT attribute (0 for other types).
func (a Attr) Int() int64 { return a.i }

// Float returns the value of a FLOAT attribute (0 for other types).
func (a Attr) Float() float32 { return a.f }

// String returns the value of a STRING attribute ("" for other types).
func (a Attr) String() string { return a.s }

// Ints returns the values of an INTS attribute (a copy).
func (a Attr) Ints() []int64 { return slices.Clone(a.ints) }

// Floats returns the values of a FLOATS attribute (a copy).
func (a Attr) Floats() []float32 { return slices.Clone(a.floats) }

// Attr returns the node's attribute called name, if any.
func (n *Node) Attr(name string) (Attr, bool) {
	for _, a := range n.Attrs {
		if a.Name == name {
			return a, true
		}
	}
	return Attr{}, false
}
