// Package pickle reads Python pickles (protocols 2 to 5) into inert Go
// values and decodes the pandas DataFrames and numpy arrays in them, as
// pandas' read_pickle would rebuild them; it also writes DataFrame pickles
// that pandas reads back. Nothing in a pickle is ever executed: a call of
// a Python callable becomes an Object recording the callable and its
// arguments, and only callables an allow function accepts are taken.
//
// The reader is for data sets the MLCommons references ship as pickles
// (mlcommons/inference language/mixtral-8x7b's 15k-sample DataFrame). All
// functions are safe for concurrent use.
package pickle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrPickle is wrapped by every error about a malformed or unsupported
// pickle.
var ErrPickle = errors.New("pickle: malformed or unsupported pickle")

// Global is a Python callable or class named by module and name.
type Global struct{ Module, Name string }

func (g Global) String() string { return g.Module + "." + g.Name }

// Object is a call the pickle asks for, not made: Callable(*Args) for
// REDUCE, Callable.__new__(Callable, *Args) for NEWOBJ, then State from
// BUILD (nil when none).
type Object struct {
	Callable Global
	Args     Tuple
	Kwargs   *Dict // NEWOBJ_EX only
	New      bool  // NEWOBJ or NEWOBJ_EX
	State    any
	Built    bool
}

// Tuple is a Python tuple.
type Tuple []any

// List is a Python list. While every item is an int it holds them in Ints
// (no boxing: data sets hold millions of token ids), else in Items.
type List struct {
	Ints  []int64
	Items []any
	mixed bool
}

// Len is the list's length.
func (l *List) Len() int {
	if l.mixed {
		return len(l.Items)
	}
	return len(l.Ints)
}

// At is item i.
func (l *List) At(i int) any {
	if l.mixed {
		return l.Items[i]
	}
	return l.Ints[i]
}

// Int64s returns the items when every one is an int.
func (l *List) Int64s() ([]int64, bool) { return l.Ints, !l.mixed }

func (l *List) add(v any) {
	if !l.mixed {
		if n, ok := v.(int64); ok {
			l.Ints = append(l.Ints, n)
			return
		}
		l.mixed = true
		l.Items = make([]any, len(l.Ints), len(l.Ints)+1)
		for i, n := range l.Ints {
			l.Items[i] = n
		}
		l.Ints = nil
	}
	l.Items = append(l.Items, v)
}

// Dict is a Python dict, in insertion order.
type Dict struct {
	Keys, Values []any
}

// Get returns the value of a string key.
func (d *Dict) Get(key string) (any, bool) {
	for i, k := range d.Keys {
		if s, ok := k.(string); ok && s == key {
			return d.Values[i], true
		}
	}
	return nil, false
}

func (d *Dict) set(k, v any) {
	if ks, ok := k.(string); ok {
		for i, e := range d.Keys {
			if es, ok := e.(string); ok && es == ks {
				d.Values[i] = v
				return
			}
		}
	}
	d.Keys = append(d.Keys, k)
	d.Values = append(d.Values, v)
}

// Bytes is a Python bytes or bytearray.
type Bytes []byte

type mark struct{}

// Unpickle decodes one pickle. Values are nil (None), bool, int64, float64,
// string, Bytes, Tuple, *List, *Dict, Global, *Object, and (see numpy.go)
// *NDArray, *Dtype and Scalar. allow is asked about every callable the
// pickle names; one it refuses is an error (nil allows numpy's and
// builtins.slice only).
func Unpickle(b []byte, allow func(Global) bool) (any, error) {
	if allow == nil {
		allow = func(g Global) bool { return numpyGlobal(g) != "" || g == (Global{"builtins", "slice"}) }
	}
	u := &unpickler{b: b, allow: allow, memo: map[uint64]any{}}
	v, err := u.run()
	if err != nil {
		return nil, fmt.Errorf("%w: at byte %d: %v", ErrPickle, u.pos, err)
	}
	return v, nil
}

type unpickler struct {
	b     []byte
	pos   int
	stack []any
	marks []int
	memo  map[uint64]any
	allow func(Global) bool
}

func (u *unpickler) need(n uint64) ([]byte, error) {
	if n > uint64(len(u.b)-u.pos) {
		return nil, fmt.Errorf("truncated: %d bytes wanted, %d left", n, len(u.b)-u.pos)
	}
	p := u.b[u.pos : u.pos+int(n)]
	u.pos += int(n)
	return p, nil
}

func (u *unpickler) uint(n int) (uint64, error) {
	p, err := u.need(uint64(n))
	if err != nil {
		return 0, err
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(p[i])
	}
	return v, nil
}

func (u *unpickler) line() (string, error) {
	for i := u.pos; i < len(u.b); i++ {
		if u.b[i] == '\n' {
			s := string(u.b[u.pos:i])
			u.pos = i + 1
			return s, nil
		}
	}
	return "", errors.New("truncated line")
}

func (u *unpickler) push(v any) { u.stack = append(u.stack, v) }

func (u *unpickler) pop() (any, error) {
	if len(u.stack) == 0 || (len(u.marks) > 0 && len(u.stack) == u.marks[len(u.marks)-1]) {
		return nil, errors.New("pop from an empty stack")
	}
	v := u.stack[len(u.stack)-1]
	u.stack = u.stack[:len(u.stack)-1]
	return v, nil
}

func (u *unpickler) top() (any, error) {
	if len(u.stack) == 0 || (len(u.marks) > 0 && len(u.stack) == u.marks[len(u.marks)-1]) {
		return nil, errors.New("empty stack")
	}
	return u.stack[len(u.stack)-1], nil
}

func (u *unpickler) popMark() ([]any, error) {
	if len(u.marks) == 0 {
		return nil, errors.New("no MARK")
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	items := append([]any(nil), u.stack[m:]...)
	u.stack = u.stack[:m]
	return items, nil
}

func (u *unpickler) global(g Global) error {
	// Protocols 0 to 2 name Python 2's modules (pickle's fix_imports).
	switch g.Module {
	case "__builtin__":
		g.Module = "builtins"
	case "copy_reg":
		g.Module = "copyreg"
	}
	if !u.allow(g) {
		return fmt.Errorf("the pickle calls %s, which a data set pickle does not", g)
	}
	u.push(g)
	return nil
}

func (u *unpickler) run() (any, error) {
	for {
		if u.pos >= len(u.b) {
			return nil, errors.New("truncated (no STOP)")
		}
		op := u.b[u.pos]
		u.pos++
		if err := u.step(op); err != nil {
			if err == errStop {
				if len(u.stack) != 1 || len(u.marks) != 0 {
					return nil, fmt.Errorf("%d values and %d marks left at STOP", len(u.stack), len(u.marks))
				}
				return u.stack[0], nil
			}
			return nil, fmt.Errorf("opcode 0x%02x: %w", op, err)
		}
	}
}

var errStop = errors.New("stop")

func (u *unpickler) step(op byte) error {
	switch op {
	case '.': // STOP
		return errStop
	case 0x80: // PROTO
		p, err := u.need(1)
		if err == nil && p[0] > 5 {
			err = fmt.Errorf("protocol %d", p[0])
		}
		return err
	case 0x95: // FRAME
		_, err := u.need(8)
		return err
	case '(': // MARK
		if u.fastAppends() {
			return nil
		}
		u.marks = append(u.marks, len(u.stack))
	case '0': // POP
		if len(u.marks) > 0 && len(u.stack) == u.marks[len(u.marks)-1] {
			u.marks = u.marks[:len(u.marks)-1]
			return nil
		}
		_, err := u.pop()
		return err
	case '1': // POP_MARK
		_, err := u.popMark()
		return err
	case '2': // DUP
		v, err := u.top()
		if err == nil {
			u.push(v)
		}
		return err
	case 0x94: // MEMOIZE
		v, err := u.top()
		if err == nil {
			u.memo[uint64(len(u.memo))] = v
		}
		return err
	case 'q', 'r', 'p': // BINPUT, LONG_BINPUT, PUT
		var k uint64
		var err error
		switch op {
		case 'q':
			k, err = u.uint(1)
		case 'r':
			k, err = u.uint(4)
		default:
			var s string
			if s, err = u.line(); err == nil {
				k, err = strconv.ParseUint(s, 10, 32)
			}
		}
		if err != nil {
			return err
		}
		v, err := u.top()
		if err == nil {
			u.memo[k] = v
		}
		return err
	case 'h', 'j', 'g': // BINGET, LONG_BINGET, GET
		var k uint64
		var err error
		switch op {
		case 'h':
			k, err = u.uint(1)
		case 'j':
			k, err = u.uint(4)
		default:
			var s string
			if s, err = u.line(); err == nil {
				k, err = strconv.ParseUint(s, 10, 32)
			}
		}
		if err != nil {
			return err
		}
		v, ok := u.memo[k]
		if !ok {
			return fmt.Errorf("memo %d not set", k)
		}
		u.push(v)
	case 'N':
		u.push(nil)
	case 0x88, 0x89: // NEWTRUE, NEWFALSE
		u.push(op == 0x88)
	case 'K', 'M', 'J': // BININT1, BININT2, BININT
		n := map[byte]int{'K': 1, 'M': 2, 'J': 4}[op]
		v, err := u.uint(n)
		if err != nil {
			return err
		}
		if op == 'J' {
			u.push(int64(int32(uint32(v))))
		} else {
			u.push(int64(v))
		}
	case 0x8a, 0x8b: // LONG1, LONG4
		var n uint64
		var err error
		if op == 0x8a {
			n, err = u.uint(1)
		} else {
			n, err = u.uint(4)
		}
		if err != nil {
			return err
		}
		p, err := u.need(n)
		if err != nil {
			return err
		}
		if len(p) > 8 {
			return fmt.Errorf("integer of %d bytes (beyond int64)", len(p))
		}
		var v int64
		for i := len(p) - 1; i >= 0; i-- {
			v = v<<8 | int64(p[i])
		}
		if len(p) > 0 && len(p) < 8 && p[len(p)-1]&0x80 != 0 {
			v -= 1 << (8 * len(p))
		}
		u.push(v)
	case 'I', 'L': // INT, LONG (protocol 0)
		s, err := u.line()
		if err != nil {
			return err
		}
		s = strings.TrimSuffix(s, "L")
		switch s {
		case "00":
			u.push(false)
		case "01":
			u.push(true)
		default:
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return fmt.Errorf("integer %q", s)
			}
			u.push(v)
		}
	case 'G': // BINFLOAT
		p, err := u.need(8)
		if err != nil {
			return err
		}
		u.push(math.Float64frombits(binary.BigEndian.Uint64(p)))
	case 'F': // FLOAT
		s, err := u.line()
		if err != nil {
			return err
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("float %q", s)
		}
		u.push(v)
	case 0x8c, 'X', 0x8d, 'C', 'B', 0x8e, 0x96, 'U', 'T': // strings, bytes, bytearray
		n := map[byte]int{0x8c: 1, 'X': 4, 0x8d: 8, 'C': 1, 'B': 4, 0x8e: 8, 0x96: 8, 'U': 1, 'T': 4}[op]
		l, err := u.uint(n)
		if err != nil {
			return err
		}
		p, err := u.need(l)
		if err != nil {
			return err
		}
		switch op {
		case 0x8c, 'X', 0x8d:
			u.push(string(p))
		case 'U', 'T': // SHORT_BINSTRING, BINSTRING: Python 2 str, read as latin-1 text
			u.push(latin1(p))
		default:
			u.push(Bytes(append([]byte(nil), p...)))
		}
	case ']':
		u.push(&List{})
	case '}':
		u.push(&Dict{})
	case ')':
		u.push(Tuple{})
	case 0x8f: // EMPTY_SET
		u.push(&Object{Callable: Global{"builtins", "set"}, Built: true, State: &List{}})
	case 0x85, 0x86, 0x87: // TUPLE1..3
		n := int(op-0x85) + 1
		items := make(Tuple, n)
		for i := n - 1; i >= 0; i-- {
			v, err := u.pop()
			if err != nil {
				return err
			}
			items[i] = v
		}
		u.push(items)
	case 't', 'l', 0x91: // TUPLE, LIST, FROZENSET
		items, err := u.popMark()
		if err != nil {
			return err
		}
		switch op {
		case 't':
			u.push(Tuple(items))
		case 'l':
			l := &List{}
			for _, v := range items {
				l.add(v)
			}
			u.push(l)
		default:
			l := &List{}
			for _, v := range items {
				l.add(v)
			}
			u.push(&Object{Callable: Global{"builtins", "frozenset"}, Built: true, State: l})
		}
	case 'd': // DICT
		items, err := u.popMark()
		if err != nil {
			return err
		}
		if len(items)%2 != 0 {
			return errors.New("DICT of an odd number of items")
		}
		d := &Dict{}
		for i := 0; i < len(items); i += 2 {
			d.set(items[i], items[i+1])
		}
		u.push(d)
	case 'a', 'e': // APPEND, APPENDS
		var items []any
		if op == 'a' {
			v, err := u.pop()
			if err != nil {
				return err
			}
			items = []any{v}
		} else {
			var err error
			if items, err = u.popMark(); err != nil {
				return err
			}
		}
		t, err := u.top()
		if err != nil {
			return err
		}
		l, ok := t.(*List)
		if !ok {
			return fmt.Errorf("APPEND to a %T", t)
		}
		for _, v := range items {
			l.add(v)
		}
	case 's', 'u': // SETITEM, SETITEMS
		var items []any
		if op == 's' {
			v, err := u.pop()
			if err != nil {
				return err
			}
			k, err := u.pop()
			if err != nil {
				return err
			}
			items = []any{k, v}
		} else {
			var err error
			if items, err = u.popMark(); err != nil {
				return err
			}
			if len(items)%2 != 0 {
				return errors.New("SETITEMS of an odd number of items")
			}
		}
		t, err := u.top()
		if err != nil {
			return err
		}
		d, ok := t.(*Dict)
		if !ok {
			return fmt.Errorf("SETITEM on a %T", t)
		}
		for i := 0; i < len(items); i += 2 {
			d.set(items[i], items[i+1])
		}
	case 0x90: // ADDITEMS
		items, err := u.popMark()
		if err != nil {
			return err
		}
		t, err := u.top()
		if err != nil {
			return err
		}
		o, ok := t.(*Object)
		if !ok || o.Callable.Name != "set" {
			return fmt.Errorf("ADDITEMS to a %T", t)
		}
		l := o.State.(*List)
		for _, v := range items {
			l.add(v)
		}
	case 'c': // GLOBAL
		m, err := u.line()
		if err != nil {
			return err
		}
		n, err := u.line()
		if err != nil {
			return err
		}
		return u.global(Global{m, n})
	case 0x93: // STACK_GLOBAL
		n, err := u.pop()
		if err != nil {
			return err
		}
		m, err := u.pop()
		if err != nil {
			return err
		}
		ms, ok1 := m.(string)
		ns, ok2 := n.(string)
		if !ok1 || !ok2 {
			return errors.New("STACK_GLOBAL of non-strings")
		}
		return u.global(Global{ms, ns})
	case 'R', 0x81, 0x92: // REDUCE, NEWOBJ, NEWOBJ_EX
		var kw *Dict
		if op == 0x92 {
			v, err := u.pop()
			if err != nil {
				return err
			}
			d, ok := v.(*Dict)
			if !ok {
				return fmt.Errorf("NEWOBJ_EX keywords of a %T", v)
			}
			kw = d
		}
		a, err := u.pop()
		if err != nil {
			return err
		}
		f, err := u.pop()
		if err != nil {
			return err
		}
		g, ok := f.(Global)
		if !ok {
			return fmt.Errorf("call of a %T", f)
		}
		args, ok := a.(Tuple)
		if !ok {
			return fmt.Errorf("call of %s with %T arguments", g, a)
		}
		v, err := call(g, args, op != 'R')
		if err != nil {
			return fmt.Errorf("%s: %w", g, err)
		}
		if o, ok := v.(*Object); ok {
			o.Kwargs = kw
		}
		u.push(v)
	case 'b': // BUILD
		state, err := u.pop()
		if err != nil {
			return err
		}
		t, err := u.top()
		if err != nil {
			return err
		}
		return build(t, state)
	case 0x97, 0x98: // NEXT_BUFFER, READONLY_BUFFER
		return errors.New("out-of-band buffers (the pickle was written with a buffer_callback)")
	default:
		return errors.New("unknown or unsupported opcode")
	}
	return nil
}

// fastAppends handles MARK, ints, APPENDS onto a list (how pickle writes
// a list of ints, in batches of 1000) without boxing each int: data sets
// hold millions of token ids. It reports false, consuming nothing, when
// what follows the MARK is anything else.
func (u *unpickler) fastAppends() bool {
	if len(u.stack) == 0 || (len(u.marks) > 0 && len(u.stack) == u.marks[len(u.marks)-1]) {
		return false
	}
	l, ok := u.stack[len(u.stack)-1].(*List)
	if !ok || l.mixed {
		return false
	}
	b := u.b
	start := len(l.Ints)
	for p := u.pos; p < len(b); {
		var v int64
		switch {
		case b[p] == 'K' && p+2 <= len(b):
			v, p = int64(b[p+1]), p+2
		case b[p] == 'M' && p+3 <= len(b):
			v, p = int64(binary.LittleEndian.Uint16(b[p+1:])), p+3
		case b[p] == 'J' && p+5 <= len(b):
			v, p = int64(int32(binary.LittleEndian.Uint32(b[p+1:]))), p+5
		case b[p] == 'e':
			u.pos = p + 1
			return true
		default:
			l.Ints = l.Ints[:start]
			return false
		}
		l.Ints = append(l.Ints, v)
	}
	l.Ints = l.Ints[:start]
	return false
}

func latin1(p []byte) string {
	r := make([]rune, len(p))
	for i, c := range p {
		r[i] = rune(c)
	}
	return string(r)
}

// call makes what a REDUCE or NEWOBJ stands for: numpy arrays, dtypes and
// scalars, bytes (protocol 2's _codecs.encode, builtins.bytearray), and an
// inert Object for anything else.
func call(g Global, args Tuple, isNew bool) (any, error) {
	if !isNew {
		switch numpyGlobal(g) {
		case "_reconstruct":
			return &NDArray{}, nil
		case "dtype":
			return newDtype(args)
		case "_frombuffer":
			return frombuffer(args)
		case "scalar":
			return newScalar(args)
		}
		switch g {
		case Global{"_codecs", "encode"}:
			if len(args) == 2 && args[1] == "latin1" {
				s, ok := args[0].(string)
				if !ok {
					return nil, fmt.Errorf("of a %T", args[0])
				}
				out := make(Bytes, 0, len(s))
				for _, r := range s {
					if r > 255 {
						return nil, fmt.Errorf("latin1 text with rune %U", r)
					}
					out = append(out, byte(r))
				}
				return out, nil
			}
		case Global{"builtins", "bytearray"}:
			if len(args) == 0 {
				return Bytes{}, nil
			}
			if b, ok := args[0].(Bytes); ok && len(args) == 1 {
				return b, nil
			}
		}
	}
	return &Object{Callable: g, Args: args, New: isNew}, nil
}

// build applies BUILD's state to the object on the stack.
func build(t, state any) error {
	switch o := t.(type) {
	case *Object:
		if o.Built {
			return fmt.Errorf("second BUILD of %s", o.Callable)
		}
		o.State, o.Built = state, true
		return nil
	case *NDArray:
		return o.setState(state)
	case *Dtype:
		return o.setState(state)
	}
	return fmt.Errorf("BUILD of a %T", t)
}
