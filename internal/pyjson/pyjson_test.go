package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// Reencode gives what Python's json.dumps(json.loads(text)) gives
// (testdata/golden.json, from gen_golden.py): key order, separators,
// integers as written and -0 as 0, floats as repr (fixed and exponent
// forms, both sides of 1e16 and 1e-4, overflow to Infinity), and
// ensure_ascii escapes including surrogate pairs and DEL.
func TestReencodeMatchesPython(t *testing.T) {
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ In, Out string }
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 10 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		var got bytes.Buffer
		if err := Reencode(&got, []byte(c.In)); err != nil {
			t.Errorf("%s: %v", c.In, err)
			continue
		}
		if got.String() != c.Out {
			t.Errorf("%s:\n got %s\nwant %s", c.In, got.String(), c.Out)
		}
	}
}

// Input that is not exactly one JSON value is refused, as is a key
// repeated in an object.
func TestReencodeRefuses(t *testing.T) {
	for _, in := range []string{"", "[1,", "{} {}", `{"a":1,"a":2}`, "[1 2]", "NaN", "{1:2}"} {
		var b bytes.Buffer
		if err := Reencode(&b, []byte(in)); !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: %v, want ErrSyntax", in, err)
		}
	}
}
