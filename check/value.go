package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/internal/pynum"
)

// The checker is Python: what it reads from a detail log or a JSON file
// is a Python value, compared and printed with Python's rules (None is
// absent, True == 1, an int compares with a float exactly, str(1.0) is
// "1.0", and comparing None with a number raises TypeError). value models
// those rules so that check reaches the same verdicts and prints the same
// words.

type kind uint8

const (
	kNone kind = iota
	kBool
	kInt
	kFloat
	kStr
	kList
	kDict
)

// value is a JSON value as Python's json.loads returns it.
type value struct {
	k    kind
	b    bool
	i    *big.Int
	f    float64
	s    string
	list []value
	keys []string // dict keys in file order
	dict map[string]value
}

var none = value{}

func vStr(s string) value          { return value{k: kStr, s: s} }
func vInt(n int64) value           { return value{k: kInt, i: big.NewInt(n)} }
func vFloat(f float64) value       { return value{k: kFloat, f: f} }
func vBool(b bool) value           { return value{k: kBool, b: b} }
func newBigUint(n uint64) *big.Int { return new(big.Int).SetUint64(n) }
func (v value) isNone() bool       { return v.k == kNone }
func (v value) isStr() bool        { return v.k == kStr }
func (v value) isDict() bool       { return v.k == kDict }
func (v value) isNumber() bool     { return v.k == kBool || v.k == kInt || v.k == kFloat }

// errPython is an exception the checker's Python would raise at this
// point (a TypeError, KeyError, AttributeError...): inside a check it
// becomes the checker's "Execution occurred in running check" error.
type errPython struct{ msg string }

func (e *errPython) Error() string { return e.msg }

func pyErr(format string, a ...any) error { return &errPython{fmt.Sprintf(format, a...)} }

// decodeJSON parses data as Python's json.loads: objects keep their key
// order, numbers stay exact integers unless they have a fraction or an
// exponent, and NaN, Infinity and -Infinity are accepted.
func decodeJSON(data []byte) (value, error) {
	d := json.NewDecoder(bytes.NewReader(pyJSONConstants(data)))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return none, err
	}
	if d.More() {
		return none, errors.New("extra data after the JSON value")
	}
	return v, nil
}

// pyJSONConstants rewrites Python's NaN, Infinity and -Infinity (outside
// strings) into markers Go's decoder accepts.
func pyJSONConstants(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	var out []byte
	inStr, esc := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			out = append(out, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out = append(out, c)
		case bytes.HasPrefix(data[i:], []byte("NaN")):
			out = append(out, `"\u0000NaN"`...)
			i += 2
		case bytes.HasPrefix(data[i:], []byte("-Infinity")):
			out = append(out, `"\u0000-Infinity"`...)
			i += 8
		case bytes.HasPrefix(data[i:], []byte("Infinity")):
			out = append(out, `"\u0000Infinity"`...)
			i += 7
		default:
			out = append(out, c)
		}
	}
	return out
}

func decodeValue(d *json.Decoder) (value, error) {
	t, err := d.Token()
	if err != nil {
		return none, err
	}
	return decodeFrom(d, t)
}

func decodeFrom(d *json.Decoder, t json.Token) (value, error) {
	switch x := t.(type) {
	case nil:
		return none, nil
	case bool:
		return vBool(x), nil
	case string:
		switch x {
		case "\x00NaN":
			return vFloat(math.NaN()), nil
		case "\x00Infinity":
			return vFloat(math.Inf(1)), nil
		case "\x00-Infinity":
			return vFloat(math.Inf(-1)), nil
		}
		return vStr(x), nil
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			n, ok := new(big.Int).SetString(s, 10)
			if !ok {
				return none, fmt.Errorf("bad number %s", s)
			}
			return value{k: kInt, i: n}, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return none, err
		}
		return vFloat(f), nil
	case json.Delim:
		switch x {
		case '[':
			v := value{k: kList}
			for d.More() {
				e, err := decodeValue(d)
				if err != nil {
					return none, err
				}
				v.list = append(v.list, e)
			}
			_, err := d.Token()
			return v, err
		case '{':
			v := value{k: kDict, dict: map[string]value{}}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return none, err
				}
				key, _ := kt.(string)
				e, err := decodeValue(d)
				if err != nil {
					return none, err
				}
				if _, dup := v.dict[key]; !dup {
					v.keys = append(v.keys, key)
				}
				v.dict[key] = e // Python keeps the last value of a repeated key
			}
			_, err := d.Token()
			return v, err
		}
	}
	return none, fmt.Errorf("unexpected JSON token %v", t)
}

// get returns d[key] of a dict, none otherwise.
func (v value) get(key string) value {
	if v.k != kDict {
		return none
	}
	return v.dict[key]
}

// has reports whether a dict has key.
func (v value) has(key string) bool {
	if v.k != kDict {
		return false
	}
	_, ok := v.dict[key]
	return ok
}

// truthy is Python's bool(v).
func (v value) truthy() bool {
	switch v.k {
	case kBool:
		return v.b
	case kInt:
		return v.i.Sign() != 0
	case kFloat:
		return v.f != 0
	case kStr:
		return v.s != ""
	case kList:
		return len(v.list) > 0
	case kDict:
		return len(v.keys) > 0
	}
	return false
}

// bigFloat returns a number exactly (bool as 0 or 1).
func (v value) bigFloat() *big.Float {
	switch v.k {
	case kBool:
		if v.b {
			return big.NewFloat(1)
		}
		return big.NewFloat(0)
	case kInt:
		return new(big.Float).SetInt(v.i)
	}
	return big.NewFloat(v.f)
}

func (v value) isNaN() bool { return v.k == kFloat && math.IsNaN(v.f) }

// typeName is Python's type(v).__name__.
func (v value) typeName() string {
	return [...]string{"NoneType", "bool", "int", "float", "str", "list", "dict"}[v.k]
}

// compare is Python's ordering of two values: -1, 0 or 1, or
// TypeError where Python cannot order them. unordered reports a NaN,
// which makes every ordering false.
func compare(a, b value) (c int, unordered bool, err error) {
	if a.isNumber() && b.isNumber() {
		if a.isNaN() || b.isNaN() {
			return 0, true, nil
		}
		// big.Float holds ±Inf and an int exactly: inf > 10**400, as in
		// Python, where float64 would call them equal.
		return a.bigFloat().Cmp(b.bigFloat()), false, nil
	}
	if a.k == kStr && b.k == kStr {
		return strings.Compare(a.s, b.s), false, nil
	}
	return 0, false, pyErr("TypeError: '<' not supported between instances of '%s' and '%s'", a.typeName(), b.typeName())
}

// lt and gt are Python's < and >.
func lt(a, b value) (bool, error) { c, u, err := compare(a, b); return !u && c < 0, err }
func gt(a, b value) (bool, error) { c, u, err := compare(a, b); return !u && c > 0, err }

// eq is Python's ==.
func eq(a, b value) bool {
	if a.isNumber() && b.isNumber() {
		c, u, _ := compare(a, b)
		return !u && c == 0
	}
	if a.k != b.k {
		return false
	}
	switch a.k {
	case kNone:
		return true
	case kStr:
		return a.s == b.s
	case kList:
		if len(a.list) != len(b.list) {
			return false
		}
		for i := range a.list {
			if !eq(a.list[i], b.list[i]) {
				return false
			}
		}
		return true
	case kDict:
		if len(a.keys) != len(b.keys) {
			return false
		}
		for _, k := range a.keys {
			bv, ok := b.dict[k]
			if !ok || !eq(a.dict[k], bv) {
				return false
			}
		}
		return true
	}
	return false
}

// float is the value as a float64 (numbers only).
func (v value) float() float64 {
	switch v.k {
	case kBool:
		if v.b {
			return 1
		}
		return 0
	case kInt:
		f, _ := new(big.Float).SetInt(v.i).Float64()
		return f
	}
	return v.f
}

// toFloat is Python's float(v).
func toFloat(v value) (float64, error) {
	switch v.k {
	case kBool, kInt, kFloat:
		return v.float(), nil
	case kStr:
		return pyParseFloat(v.s)
	}
	return 0, pyErr("TypeError: float() argument must be a string or a real number, not '%s'", v.typeName())
}

// pyParseFloat is float(str) of Python: surrounding white space, an
// optional sign, digits with underscores between them, inf, infinity and
// nan in any case.
func pyParseFloat(s string) (float64, error) {
	t := strings.TrimSpace(s)
	body := strings.TrimLeft(t, "+-")
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	if !underscoresBetweenDigits(t) || strings.HasPrefix(body, "0x") || strings.HasPrefix(body, "0X") {
		return 0, pyErr("ValueError: could not convert string to float: %s", pyRepr(vStr(s)))
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, pyErr("ValueError: could not convert string to float: %s", pyRepr(vStr(s)))
	}
	return f, nil
}

// underscoresBetweenDigits reports whether every _ of s stands between two
// ASCII digits, the only place Python's float() takes one ("1_e5" and
// "1._5" are ValueError).
func underscoresBetweenDigits(s string) bool {
	digit := func(i int) bool { return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9' }
	for i := range len(s) {
		if s[i] == '_' && (!digit(i-1) || !digit(i+1)) {
			return false
		}
	}
	return true
}

// pyStr is Python's str(v).
func pyStr(v value) string {
	switch v.k {
	case kNone:
		return "None"
	case kBool:
		if v.b {
			return "True"
		}
		return "False"
	case kInt:
		return v.i.String()
	case kFloat:
		return pynum.FloatRepr(v.f)
	case kStr:
		return v.s
	case kList:
		parts := make([]string, len(v.list))
		for i, e := range v.list {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case kDict:
		parts := make([]string, len(v.keys))
		for i, k := range v.keys {
			parts[i] = pyRepr(vStr(k)) + ": " + pyRepr(v.dict[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}

// pyRepr is Python's repr(v) (strings quoted as Python quotes them).
func pyRepr(v value) string {
	if v.k != kStr {
		return pyStr(v)
	}
	q := byte('\'')
	if strings.Contains(v.s, "'") && !strings.Contains(v.s, `"`) {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range v.s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyList is str() of a Python list of strings, e.g. ['server'].
func pyList(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = pyRepr(vStr(s))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// pySet is str() of a Python set of strings: {'a', 'b'}, or set() when
// empty. Python orders a set by hash; this keeps the given order, and
// the golden comparison sorts set members.
func pySet(items []string) string {
	if len(items) == 0 {
		return "set()"
	}
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = pyRepr(vStr(s))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// pyFormatD is Python's "%d" of a value: an int, a bool or a float
// (truncated); anything else makes logging fail (ok false).
func pyFormatD(v value) (string, bool) {
	switch v.k {
	case kBool, kInt:
		return new(big.Int).Set(v.bigInt()).String(), true
	case kFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return "", false
		}
		bf := big.NewFloat(v.f)
		n, _ := bf.Int(nil)
		return n.String(), true
	}
	return "", false
}

func (v value) bigInt() *big.Int {
	if v.k == kBool {
		if v.b {
			return big.NewInt(1)
		}
		return big.NewInt(0)
	}
	return v.i
}

// pyFormatF is Python's "%.<prec>f" of a number; ok false where logging
// would fail.
func pyFormatF(v value, prec int) (string, bool) {
	if !v.isNumber() {
		return "", false
	}
	f := v.float()
	switch {
	case math.IsNaN(f):
		return "nan", true
	case math.IsInf(f, 1):
		return "inf", true
	case math.IsInf(f, -1):
		return "-inf", true
	}
	return strconv.FormatFloat(f, 'f', prec, 64), true
}
