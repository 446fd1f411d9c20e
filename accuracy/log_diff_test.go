package accuracy

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// jsonEntry and jsonLogEntries are the encoding/json decoding LogReader
// replaced, kept as the reference LogReader must agree with.
type jsonEntry struct {
	SeqID      *uint64 `json:"seq_id"`
	QSLIdx     *uint64 `json:"qsl_idx"`
	Data       *string `json:"data"`
	TokenData  *string `json:"token_data"`
	TokenCount *int    `json:"token_count"`
}

// jsonLogEntries decodes a log with encoding/json: its entries up to the
// first error, and whether there was one.
func jsonLogEntries(b []byte) (out []Entry, bad bool) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, true
	}
	for {
		if !dec.More() {
			tok, err := dec.Token()
			return out, err != nil || tok != json.Delim(']')
		}
		var raw jsonEntry
		if err := dec.Decode(&raw); err != nil {
			return out, true
		}
		if raw.SeqID == nil || raw.QSLIdx == nil || raw.Data == nil {
			return out, true
		}
		e := Entry{SeqID: *raw.SeqID, QSLIdx: *raw.QSLIdx}
		var err error
		if e.Data, err = hex.DecodeString(*raw.Data); err != nil {
			return out, true
		}
		if raw.TokenData != nil {
			if e.TokenData, err = hex.DecodeString(*raw.TokenData); err != nil {
				return out, true
			}
		}
		if raw.TokenCount != nil {
			e.TokenCount, e.HasTokens = *raw.TokenCount, true
		}
		out = append(out, e)
	}
}

// scanLogEntries decodes a log with LogReader, reading r.
func scanLogEntries(r io.Reader) (out []Entry, err error) {
	lr, err := NewLogReader(r, "diff")
	if err != nil {
		return nil, err
	}
	for {
		e, err := lr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

// checkSameAsJSON fails t unless LogReader decodes b as encoding/json
// does: the same entries, and an error at the same place or none.
func checkSameAsJSON(t *testing.T, b []byte) {
	t.Helper()
	want, bad := jsonLogEntries(b)
	for _, r := range []io.Reader{strings.NewReader(string(b)), iotest.OneByteReader(strings.NewReader(string(b)))} {
		got, err := scanLogEntries(r)
		if (err != nil) != bad || !reflect.DeepEqual(got, want) {
			t.Fatalf("log %q:\nLogReader: %+v, %v\nencoding/json: %+v, error %v", b, got, err, want, bad)
		}
		if err != nil && (!errors.Is(err, ErrLog) || !strings.HasPrefix(err.Error(), "accuracy: diff: ")) {
			t.Fatalf("log %q: error %q is not an accuracy log error", b, err)
		}
	}
}

// randomLog writes a valid log in varied JSON: whitespace, key order and
// case, escapes, nulls, repeated and unknown keys.
func randomLog(rng *rand.Rand) []byte {
	ws := func() string {
		return []string{"", "", " ", "\n", "\t", "\r\n", "  "}[rng.IntN(7)]
	}
	hexOf := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		s := hex.EncodeToString(b)
		if rng.IntN(2) == 0 {
			s = strings.ToUpper(s)
		}
		if rng.IntN(8) == 0 && len(s) > 0 {
			i := rng.IntN(len(s))
			s = s[:i] + fmt.Sprintf(`\u%04x`, s[i]) + s[i+1:]
		}
		return s
	}
	key := func(k string) string {
		switch rng.IntN(10) {
		case 0:
			k = strings.ToUpper(k)
		case 1:
			k = `\u00` + hex.EncodeToString([]byte(k[:1])) + k[1:]
		case 2:
			k = strings.Replace(k, "s", "ſ", 1)
		}
		return `"` + k + `"`
	}
	var sb strings.Builder
	sb.WriteString(ws() + "[" + ws())
	n := rng.IntN(5)
	for i := range n {
		if i > 0 {
			sb.WriteString(ws() + "," + ws())
		}
		kv := []string{
			key("seq_id") + ws() + ":" + ws() + fmt.Sprint(rng.Uint64()>>rng.IntN(64)),
			key("qsl_idx") + ws() + ":" + ws() + fmt.Sprint(rng.IntN(100)),
			key("data") + ws() + ":" + ws() + `"` + hexOf(rng.IntN(40)) + `"`,
		}
		if rng.IntN(3) == 0 {
			kv = append(kv, key("token_data")+":"+`"`+hexOf(rng.IntN(8))+`"`, key("token_count")+":"+fmt.Sprint(rng.IntN(9)-2))
		}
		extras := []string{`"x":1.5e3`, `"y":"a\"b\\\u00e9\ud83d\ude00"`, `"z":true`, `"w":null`, `"v":[1,{"a":[]},"s"]`, `"u":{}`, `"token_data":null`, `"data":"00"`, `"seq_id":null`}
		for range rng.IntN(3) {
			kv = append(kv, extras[rng.IntN(len(extras))])
		}
		rng.Shuffle(len(kv), func(i, j int) { kv[i], kv[j] = kv[j], kv[i] })
		sb.WriteString("{" + ws() + strings.Join(kv, ws()+","+ws()) + ws() + "}")
	}
	sb.WriteString(ws() + "]" + ws())
	return []byte(sb.String())
}

// mutate damages a log: bytes changed, inserted, deleted, or cut off.
func mutate(rng *rand.Rand, b []byte) []byte {
	b = append([]byte(nil), b...)
	const alphabet = "{}[],:\"\\ 0123456789-+.eEaAfFgGxnultrs\x00\x1f\xff"
	for range 1 + rng.IntN(3) {
		if len(b) == 0 {
			break
		}
		i := rng.IntN(len(b))
		switch rng.IntN(4) {
		case 0:
			b[i] = alphabet[rng.IntN(len(alphabet))]
		case 1:
			b = append(b[:i], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[i:]...)...)
		case 2:
			b = append(b[:i], b[i+1:]...)
		case 3:
			b = b[:i]
		}
	}
	return b
}

var logDiffCases = []string{
	loadgenLog,
	"[\n]\n",
	"[]garbage",
	"",
	" ",
	"[",
	"[,]",
	`[{"seq_id":1,"qsl_idx":2,"data":"ab"},]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"ab"}}`,
	`[{"seq_id":1,"qsl_idx":2,"data":"ab"} {"seq_id":1,"qsl_idx":2,"data":"ab"}]`,
	`[null]`, `[1]`, `["x"]`, `[[]]`, `[{}]`, `[true]`,
	`[{"seq_id":-1,"qsl_idx":2,"data":"ab"}]`,
	`[{"seq_id":-0,"qsl_idx":2,"data":"ab"}]`,
	`[{"seq_id":1.0,"qsl_idx":2,"data":"ab"}]`,
	`[{"seq_id":1e2,"qsl_idx":2,"data":"ab"}]`,
	`[{"seq_id":18446744073709551615,"qsl_idx":2,"data":"ab"}]`,
	`[{"seq_id":18446744073709551616,"qsl_idx":2,"data":"ab"}]`,
	`[{"seq_id":"1","qsl_idx":2,"data":"ab"}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":12}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"ab","token_count":-3}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"ab","token_count":9223372036854775808}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"ab","token_count":2,"token_count":null}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"a"}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"ag"}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"\u0061b"}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"\u00e9"}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"ab\x"}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"a` + "\n" + `b"}]`,
	"[{\"seq_id\":1,\"qsl_idx\":2,\"data\":\"\xff\"}]",
	`[{"seq_id":1,"qsl_idx":2,"data":"zz","data":"00"}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"00","data":null}]`,
	`[{"SEQ_ID":1,"Qsl_Idx":2,"DATA":""}]`,
	`[{"ſeq_id":1,"qsl_idx":2,"data":""}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"","x":{"a":[1,2,{"b":null}]}}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"","x":01}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"","x":"\ud800"}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"","x":nul}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"" "x":1}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":"",}]`,
	`[{"seq_id" 1,"qsl_idx":2,"data":""}]`,
	`[{"seq_id":1,"qsl_idx":2,"data":""}` + "\n",
	`[{"seq_id":1,"qsl_idx":2,"data":"0`,
	`[{"seq_id":1,"qsl_idx":1,"data":"0G"},{"seq_id":2,"qsl_idx":2,"data":"00"}]`,
	"[" + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "]",
	`[{"seq_id":1,"qsl_idx":2,"data":"","x":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + "}]",
	`[{"seq_id":1,"qsl_idx":2,"data":"","x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}]",
}

func TestLogReaderMatchesJSON(t *testing.T) {
	for _, c := range logDiffCases {
		checkSameAsJSON(t, []byte(c))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		b := randomLog(rng)
		checkSameAsJSON(t, b)
		checkSameAsJSON(t, mutate(rng, b))
	}
}

// TestLogReaderLongEntries decodes entries longer than the read buffer,
// and with escapes and errors across its refills.
func TestLogReaderLongEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{64<<10 - 1, 64 << 10, 200_001} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		h := hex.EncodeToString(data)
		for _, s := range []string{h, h[:len(h)-1], h[:len(h)-7] + "\\u0030" + h[len(h)-6:], h[:len(h)/2] + "x" + h[len(h)/2+1:]} {
			checkSameAsJSON(t, []byte(`[{"seq_id":1,"qsl_idx":2,"data":"`+s+`"},{"seq_id":2,"qsl_idx":3,"data":"`+s[:100]+`"}]`))
		}
	}
}

func FuzzLogReaderMatchesJSON(f *testing.F) {
	for _, c := range logDiffCases {
		if len(c) < 4096 { // the deep nestings only slow the fuzzer
			f.Add([]byte(c))
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		f.Add(randomLog(rng))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkSameAsJSON(t, b)
	})
}

func TestLogReaderErrorsNamePlace(t *testing.T) {
	for _, c := range []struct{ log, want string }{
		{`[{"seq_id":0,"qsl_idx":0,"data":"00"},` + "\n" + `{"seq_id":1,"qsl_idx":1,"data":"0` + "\x01" + `"}]`, "entry 1: invalid character '\\x01' in string literal at byte 72"},
		{`[{"seq_id":0,"qsl_idx":0,"data":"00"} {}]`, "after entry 1: invalid character '{' after array element at byte 38"},
		{`[{"seq_id":0,"qsl_idx":0,"data":"00"},{"seq_id":3,"qsl_idx":0,"data":"0"}]`, "entry 1 (seq_id 3): data is not hex: encoding/hex: odd length hex string"},
		{`[{"seq_id":3,"qsl_idx":0,"data":"00","token_data":"0x"}]`, "entry 0 (seq_id 3): token_data is not hex: encoding/hex: invalid byte: U+0078 'x'"},
		{`[{"seq_id":-3,"qsl_idx":0,"data":"00"}]`, "entry 0: seq_id is the number -3, not a non-negative integer"},
		{`[{"seq_id":3,"qsl_idx":0,"data":"00"`, "entry 0: unexpected EOF at byte 36 (the file is truncated"},
		{`[{"seq_id":3,"qsl_idx":0,"data":"00"},`, "entry 1: unexpected EOF at byte 38 (the file is truncated"},
		{`[{"seq_id":3,"qsl_idx":0,"data":"00"}` + "\n", "after entry 1: EOF (the file is truncated"},
	} {
		r, err := NewLogReader(strings.NewReader(c.log), "x.json")
		for err == nil {
			_, err = r.Next()
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "accuracy: x.json: malformed accuracy log") {
			t.Errorf("%s: err = %v, want %q", c.log, err, c.want)
		}
	}
}
