// Package pyjson writes JSON as Python's json module does with its
// defaults (json.dump(obj, f) / json.dumps(obj)): ", " and ": " as
// separators, no newlines, ensure_ascii (every character outside
// printable ASCII as \uXXXX, lower-case hex, surrogate pairs beyond the
// BMP), floats as repr(float), integers as written.
//
// Reencode turns a JSON text into what json.dumps(json.loads(text))
// gives, which is how Python scripts that load a JSON file, filter it and
// dump it again (such as the COCO "safe" subset scripts of
// mlcommons/inference) write their output. Object keys keep their order
// (Python dicts keep insertion order); a repeated key is an error, where
// Python would keep the last value at the first key's place. Functions are
// pure and safe for concurrent use.
package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mlperf-go/inference/internal/pynum"
)

// ErrSyntax is wrapped by errors about input that is not one JSON value.
var ErrSyntax = errors.New("pyjson: not a JSON value")

// Writer is what Reencode writes to: a bufio.Writer or bytes.Buffer.
type Writer interface {
	io.Writer
	io.ByteWriter
	io.StringWriter
}

// Reencode writes the JSON value src as json.dumps(json.loads(src))
// writes it. src must hold exactly one value.
func Reencode(w Writer, src []byte) error {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	if err := value(w, dec, 0); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: data after the value", ErrSyntax)
	}
	return nil
}

// maxDepth bounds nesting (Python's default recursion limit is about
// 1000 frames; json.loads fails beyond it).
const maxDepth = 900

func value(w Writer, dec *json.Decoder, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: nested deeper than %d", ErrSyntax, maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			w.WriteByte('{')
			seen := map[string]bool{}
			for i := 0; dec.More(); i++ {
				k, err := dec.Token()
				if err != nil {
					return fmt.Errorf("%w: %v", ErrSyntax, err)
				}
				key := k.(string)
				if seen[key] {
					return fmt.Errorf("%w: key %q repeated in an object", ErrSyntax, key)
				}
				seen[key] = true
				if i > 0 {
					w.WriteString(", ")
				}
				String(w, key)
				w.WriteString(": ")
				if err := value(w, dec, depth+1); err != nil {
					return err
				}
			}
			w.WriteByte('}')
		case '[':
			w.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					w.WriteString(", ")
				}
				if err := value(w, dec, depth+1); err != nil {
					return err
				}
			}
			w.WriteByte(']')
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return fmt.Errorf("%w: %v", ErrSyntax, err)
		}
	case string:
		String(w, v)
	case json.Number:
		return Number(w, v)
	case bool:
		if v {
			w.WriteString("true")
		} else {
			w.WriteString("false")
		}
	case nil:
		w.WriteString("null")
	}
	return nil
}

// Number writes a JSON number literal as Python re-encodes it: an
// integer literal as the integer (-0 as 0), any other as repr(float(n))
// (Infinity when it overflows).
func Number(w Writer, n json.Number) error {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if strings.TrimLeft(s, "-0") == "" { // -0, 0
			w.WriteByte('0')
			return nil
		}
		w.WriteString(s)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("%w: number %q", ErrSyntax, s)
	}
	Float(w, f)
	return nil
}

// Float writes f as json.dumps does: repr(float), and NaN, Infinity,
// -Infinity for the special values.
func Float(w Writer, f float64) {
	switch {
	case math.IsNaN(f):
		w.WriteString("NaN")
	case math.IsInf(f, 1):
		w.WriteString("Infinity")
	case math.IsInf(f, -1):
		w.WriteString("-Infinity")
	default:
		w.WriteString(pynum.FloatRepr(f))
	}
}

// String writes s as a JSON string with ensure_ascii: '"' and '\\'
// escaped, \n \r \t \b \f by their short escapes, every other character
// outside ' '..'~' as \uXXXX (UTF-16, lower-case hex). Invalid UTF-8
// bytes are written as U+FFFD, as Go's JSON decoder reads them.
func String(w Writer, s string) {
	const hex = "0123456789abcdef"
	u := func(r rune) {
		w.WriteString(`\u`)
		w.WriteByte(hex[r>>12&15])
		w.WriteByte(hex[r>>8&15])
		w.WriteByte(hex[r>>4&15])
		w.WriteByte(hex[r&15])
	}
	w.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= ' ' && c <= '~' {
			switch c {
			case '"':
				w.WriteString(`\"`)
			case '\\':
				w.WriteString(`\\`)
			default:
				w.WriteByte(c)
			}
			i++
			continue
		}
		switch c {
		case '\n':
			w.WriteString(`\n`)
		case '\r':
			w.WriteString(`\r`)
		case '\t':
			w.WriteString(`\t`)
		case '\b':
			w.WriteString(`\b`)
		case '\f':
			w.WriteString(`\f`)
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r >= 0x10000 {
				r -= 0x10000
				u(0xd800 + r>>10)
				u(0xdc00 + r&0x3ff)
			} else {
				u(r)
			}
			i += size
			continue
		}
		i++
	}
	w.WriteByte('"')
}
