package accuracy

// The scanner behind LogReader: a hand-written reader of the JSON LoadGen
// writes, with encoding/json's semantics (any whitespace and key order,
// case-insensitive keys, the last repeated key wins, null as absent,
// unknown keys skipped) and hex decoded straight from the read buffer.

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// fill reads more input after compacting buf; it reports false at the end
// of the input or on a read error (kept in r.rerr).
func (r *LogReader) fill() bool {
	if r.rerr != nil {
		return false
	}
	if r.r > 0 {
		copy(r.buf, r.buf[r.r:r.w])
		r.w -= r.r
		r.off += int64(r.r)
		r.r = 0
	}
	if r.w == len(r.buf) {
		r.buf = append(r.buf, make([]byte, len(r.buf))...)
	}
	for range 100 {
		n, err := r.src.Read(r.buf[r.w:])
		r.w += n
		if err != nil {
			r.rerr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	r.rerr = io.ErrNoProgress
	return false
}

// ensure makes at least n bytes available unless the input ends first.
func (r *LogReader) ensure(n int) {
	for r.w-r.r < n && r.fill() {
	}
}

// peek returns the next byte without consuming it.
func (r *LogReader) peek() (byte, bool) {
	if r.r == r.w && !r.fill() {
		return 0, false
	}
	return r.buf[r.r], true
}

// skipSpace skips JSON whitespace and returns the next byte, unconsumed.
func (r *LogReader) skipSpace() (byte, bool) {
	for {
		for r.r < r.w {
			switch c := r.buf[r.r]; c {
			case ' ', '\t', '\n', '\r':
				r.r++
			default:
				return c, true
			}
		}
		if !r.fill() {
			return 0, false
		}
	}
}

// syntaxError is a malformed JSON text inside an entry (or between
// entries, after >= 0): the reader stops there.
func (r *LogReader) syntaxError(after int, msg string) error {
	pos := r.off + int64(r.r)
	if after >= 0 {
		r.err = fmt.Errorf("accuracy: %s: %w after entry %d: %s at byte %d", r.name, ErrLog, after, msg, pos)
	} else {
		r.err = fmt.Errorf("accuracy: %s: %w: entry %d: %s at byte %d (the file is truncated or not written by LoadGen)", r.name, ErrLog, r.n, msg, pos)
	}
	return r.err
}

// eofError is the input ending (or failing) inside an entry.
func (r *LogReader) eofError() error {
	if r.rerr == io.EOF {
		return r.syntaxError(-1, "unexpected EOF")
	}
	return r.syntaxError(-1, r.rerr.Error())
}

// badChar describes an unexpected byte as encoding/json does.
func badChar(c byte, where string) string {
	q := strconv.Quote(string(rune(c)))
	switch {
	case c == '\'':
		q = `'\''`
	case c == '"':
		q = `'"'`
	case c < utf8.RuneSelf:
		q = "'" + q[1:len(q)-1] + "'"
	default:
		q = fmt.Sprintf("byte %#x", c)
	}
	return "invalid character " + q + " " + where
}

// Entry fields, as encoding/json matches struct fields.
const (
	fieldNone = iota
	fieldSeqID
	fieldQSLIdx
	fieldData
	fieldTokenData
	fieldTokenCount
)

// fieldOf matches an unescaped key as encoding/json matches a struct
// field: exactly, or else case-insensitively (with its Unicode folding).
func fieldOf(key []byte) int {
	switch string(key) {
	case "seq_id":
		return fieldSeqID
	case "qsl_idx":
		return fieldQSLIdx
	case "data":
		return fieldData
	case "token_data":
		return fieldTokenData
	case "token_count":
		return fieldTokenCount
	}
	if len(key) > 44 { // 4 bytes a rune at most, for 11 runes
		return fieldNone
	}
	var arr [48]byte
	folded := arr[:0]
	for i := 0; i < len(key); {
		if c := key[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			folded = append(folded, c)
			i++
			continue
		}
		ru, n := utf8.DecodeRune(key[i:])
		folded = utf8.AppendRune(folded, unicode.ToUpper(unicode.ToLower(ru)))
		i += n
	}
	switch string(folded) {
	case "SEQ_ID":
		return fieldSeqID
	case "QSL_IDX":
		return fieldQSLIdx
	case "DATA":
		return fieldData
	case "TOKEN_DATA":
		return fieldTokenData
	case "TOKEN_COUNT":
		return fieldTokenCount
	}
	return fieldNone
}

var fieldNames = [...]string{"", "seq_id", "qsl_idx", "data", "token_data", "token_count"}

// entry reads one array element (the separator is consumed).
func (r *LogReader) entry() (Entry, error) {
	c, ok := r.skipSpace()
	if !ok {
		return Entry{}, r.eofError()
	}
	if c != '{' {
		if c == 'n' {
			if err := r.literal("null"); err != nil {
				return Entry{}, err
			}
			r.n++
			return Entry{}, fmt.Errorf("accuracy: %s: %w: entry %d lacks seq_id, qsl_idx or data", r.name, ErrLog, r.n-1)
		}
		kind, err := r.skipValue(c, 1)
		if err != nil {
			return Entry{}, err
		}
		return Entry{}, fmt.Errorf("accuracy: %s: %w: entry %d: it is %s, not an object (the file is not written by LoadGen)", r.name, ErrLog, r.n, kind)
	}
	r.r++
	var (
		e                        Entry
		has                      [6]bool
		dataErr, tokErr, typeErr error
	)
	c, ok = r.skipSpace()
	if !ok {
		return Entry{}, r.eofError()
	}
	if c == '}' {
		r.r++
	} else {
		for {
			if c != '"' {
				return Entry{}, r.syntaxError(-1, badChar(c, "looking for beginning of object key string"))
			}
			r.r++
			key, err := r.readString(r.tmp[:0], true)
			if err != nil {
				return Entry{}, err
			}
			r.tmp = key
			field := fieldOf(key)
			if c, ok = r.skipSpace(); !ok {
				return Entry{}, r.eofError()
			}
			if c != ':' {
				return Entry{}, r.syntaxError(-1, badChar(c, "after object key"))
			}
			r.r++
			if c, ok = r.skipSpace(); !ok {
				return Entry{}, r.eofError()
			}
			var bad string // the kind of a value of the wrong type
			switch {
			case field == fieldNone:
				if _, err := r.skipValue(c, 2); err != nil {
					return Entry{}, err
				}
			case c == 'n':
				if err := r.literal("null"); err != nil {
					return Entry{}, err
				}
				has[field] = false
				switch field {
				case fieldData:
					e.Data, dataErr = nil, nil
				case fieldTokenData:
					e.TokenData, tokErr = nil, nil
				}
			case field == fieldData || field == fieldTokenData:
				if c != '"' {
					if bad, err = r.skipValue(c, 2); err != nil {
						return Entry{}, err
					}
					break
				}
				r.r++
				b, herr, err := r.readHex()
				if err != nil {
					return Entry{}, err
				}
				has[field] = true
				if field == fieldData {
					e.Data, dataErr = b, herr
				} else {
					e.TokenData, tokErr = b, herr
				}
			default: // a number
				if c != '-' && (c < '0' || c > '9') {
					if bad, err = r.skipValue(c, 2); err != nil {
						return Entry{}, err
					}
					break
				}
				num, err := r.number(r.tmp[:0])
				if err != nil {
					return Entry{}, err
				}
				r.tmp = num
				if field == fieldTokenCount {
					v, perr := strconv.ParseInt(string(num), 10, strconv.IntSize)
					if perr != nil {
						bad = "the number " + clip(num)
						break
					}
					e.TokenCount, has[field] = int(v), true
					break
				}
				v, okv := parseUint(num)
				if !okv {
					bad = "the number " + clip(num)
					break
				}
				if field == fieldSeqID {
					e.SeqID = v
				} else {
					e.QSLIdx = v
				}
				has[field] = true
			}
			if bad != "" && typeErr == nil {
				want := "a non-negative integer below 2^64"
				switch field {
				case fieldTokenCount:
					want = "an integer"
				case fieldData, fieldTokenData:
					want = "a hex string"
				}
				typeErr = fmt.Errorf("accuracy: %s: %w: entry %d: %s is %s, not %s (the file is not written by LoadGen)", r.name, ErrLog, r.n, fieldNames[field], bad, want)
			}
			if c, ok = r.skipSpace(); !ok {
				return Entry{}, r.eofError()
			}
			r.r++
			if c == '}' {
				break
			}
			if c != ',' {
				r.r--
				return Entry{}, r.syntaxError(-1, badChar(c, "after object key:value pair"))
			}
			if c, ok = r.skipSpace(); !ok {
				return Entry{}, r.eofError()
			}
		}
	}
	if typeErr != nil {
		return Entry{}, typeErr
	}
	r.n++
	if !has[fieldSeqID] || !has[fieldQSLIdx] || !has[fieldData] {
		return Entry{}, fmt.Errorf("accuracy: %s: %w: entry %d lacks seq_id, qsl_idx or data", r.name, ErrLog, r.n-1)
	}
	if dataErr != nil {
		return Entry{}, fmt.Errorf("accuracy: %s: %w: entry %d (seq_id %d): data is not hex: %v", r.name, ErrLog, r.n-1, e.SeqID, dataErr)
	}
	if tokErr != nil {
		return Entry{}, fmt.Errorf("accuracy: %s: %w: entry %d (seq_id %d): token_data is not hex: %v", r.name, ErrLog, r.n-1, e.SeqID, tokErr)
	}
	if !has[fieldTokenCount] { // a later null resets it
		e.TokenCount = 0
	}
	e.HasTokens = has[fieldTokenCount]
	return e, nil
}

// clip quotes a number's text for an error, shortened if long.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// parseUint parses decimal digits as a uint64, as strconv.ParseUint.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// literal consumes true, false or null.
func (r *LogReader) literal(lit string) error {
	r.ensure(len(lit))
	for i := 0; i < len(lit); i++ {
		if r.r == r.w {
			return r.eofError()
		}
		if c := r.buf[r.r]; c != lit[i] {
			return r.syntaxError(-1, badChar(c, "in literal "+lit+" (expecting '"+lit[i:i+1]+"')"))
		}
		r.r++
	}
	return nil
}

// number consumes a JSON number, appending its text to dst.
func (r *LogReader) number(dst []byte) ([]byte, error) {
	// States: 0 start, 1 after '-', 2 after a leading 0, 3 in integer
	// digits, 4 after '.', 5 in fraction digits, 6 after 'e', 7 after the
	// exponent's sign, 8 in exponent digits. 2, 3, 5 and 8 may end.
	state := 0
	for {
		c, ok := r.peek()
		if !ok {
			if r.rerr != io.EOF {
				return nil, r.eofError()
			}
			c = ' '
		}
		next := -1
		digit := c >= '0' && c <= '9'
		switch state {
		case 0:
			switch {
			case c == '-':
				next = 1
			case c == '0':
				next = 2
			case digit:
				next = 3
			}
		case 1:
			switch {
			case c == '0':
				next = 2
			case digit:
				next = 3
			}
		case 2, 3:
			switch {
			case digit && state == 3:
				next = 3
			case c == '.':
				next = 4
			case c == 'e' || c == 'E':
				next = 6
			}
		case 4, 5:
			switch {
			case digit:
				next = 5
			case state == 5 && (c == 'e' || c == 'E'):
				next = 6
			}
		case 6:
			switch {
			case c == '+' || c == '-':
				next = 7
			case digit:
				next = 8
			}
		case 7, 8:
			if digit {
				next = 8
			}
		}
		if next < 0 {
			switch state {
			case 2, 3, 5, 8:
				return dst, nil
			}
			if !ok {
				return nil, r.eofError()
			}
			where := "in numeric literal"
			switch state {
			case 4:
				where = "after decimal point in numeric literal"
			case 6, 7:
				where = "in exponent of numeric literal"
			}
			return nil, r.syntaxError(-1, badChar(c, where))
		}
		dst = append(dst, c)
		r.r++
		state = next
	}
}

// skipValue consumes any JSON value starting with c, at nesting depth
// depth (the entry's object is 1), and names its kind.
func (r *LogReader) skipValue(c byte, depth int) (string, error) {
	switch {
	case c == '"':
		r.r++
		_, err := r.readString(nil, false)
		return "a string", err
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := r.number(r.tmp[:0])
		return "a number", err
	case c == 't':
		return "a boolean", r.literal("true")
	case c == 'f':
		return "a boolean", r.literal("false")
	case c == 'n':
		return "null", r.literal("null")
	case c == '[' || c == '{':
		if depth > 10000 {
			return "", r.syntaxError(-1, badChar(c, "exceeded max depth"))
		}
		r.r++
		kind, end := "an array", byte(']')
		if c == '{' {
			kind, end = "an object", '}'
		}
		c, ok := r.skipSpace()
		if !ok {
			return "", r.eofError()
		}
		if c == end {
			r.r++
			return kind, nil
		}
		for {
			if end == '}' {
				if c != '"' {
					return "", r.syntaxError(-1, badChar(c, "looking for beginning of object key string"))
				}
				r.r++
				if _, err := r.readString(nil, false); err != nil {
					return "", err
				}
				if c, ok = r.skipSpace(); !ok {
					return "", r.eofError()
				}
				if c != ':' {
					return "", r.syntaxError(-1, badChar(c, "after object key"))
				}
				r.r++
				if c, ok = r.skipSpace(); !ok {
					return "", r.eofError()
				}
			}
			if _, err := r.skipValue(c, depth+1); err != nil {
				return "", err
			}
			if c, ok = r.skipSpace(); !ok {
				return "", r.eofError()
			}
			if c == end {
				r.r++
				return kind, nil
			}
			if c != ',' {
				where := "after array element"
				if end == '}' {
					where = "after object key:value pair"
				}
				return "", r.syntaxError(-1, badChar(c, where))
			}
			r.r++
			if c, ok = r.skipSpace(); !ok {
				return "", r.eofError()
			}
		}
	}
	return "", r.syntaxError(-1, badChar(c, "looking for beginning of value"))
}

// readString consumes the rest of a JSON string (its opening quote is
// consumed), appending its text to dst if keep, unescaped as encoding/json
// does (invalid UTF-8 and lone surrogates become U+FFFD).
func (r *LogReader) readString(dst []byte, keep bool) ([]byte, error) {
	for {
		// Plain ASCII in bulk.
		i := r.r
		for i < r.w {
			c := r.buf[i]
			if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
				break
			}
			i++
		}
		if keep {
			dst = append(dst, r.buf[r.r:i]...)
		}
		r.r = i
		if i == r.w {
			if !r.fill() {
				return nil, r.eofError()
			}
			continue
		}
		switch c := r.buf[i]; {
		case c == '"':
			r.r++
			return dst, nil
		case c < 0x20:
			return nil, r.syntaxError(-1, badChar(c, "in string literal"))
		case c >= utf8.RuneSelf:
			r.ensure(utf8.UTFMax)
			ru, n := utf8.DecodeRune(r.buf[r.r:r.w])
			if keep {
				if ru == utf8.RuneError && n == 1 {
					dst = utf8.AppendRune(dst, utf8.RuneError)
				} else {
					dst = append(dst, r.buf[r.r:r.r+n]...)
				}
			}
			r.r += n
		default: // '\\'
			r.ensure(12)
			if r.w-r.r < 2 {
				r.r = r.w
				return nil, r.eofError()
			}
			esc := r.buf[r.r+1]
			var ru rune = -1
			switch esc {
			case '"', '\\', '/':
				ru = rune(esc)
			case 'b':
				ru = '\b'
			case 'f':
				ru = '\f'
			case 'n':
				ru = '\n'
			case 'r':
				ru = '\r'
			case 't':
				ru = '\t'
			case 'u':
				r.r += 2
				for k := 0; k < 4; k++ {
					if r.r+k == r.w {
						r.r = r.w
						return nil, r.eofError()
					}
					if hexVal[r.buf[r.r+k]] > 0xf {
						r.r += k
						return nil, r.syntaxError(-1, badChar(r.buf[r.r], "in \\u hexadecimal character escape"))
					}
				}
				ru = u4(r.buf[r.r:])
				r.r += 4
				if utf16.IsSurrogate(ru) {
					next := r.buf[r.r:r.w]
					if len(next) >= 6 && next[0] == '\\' && next[1] == 'u' &&
						hexVal[next[2]]|hexVal[next[3]]|hexVal[next[4]]|hexVal[next[5]] <= 0xf {
						if d := utf16.DecodeRune(ru, u4(next[2:])); d != unicode.ReplacementChar {
							ru = d
							r.r += 6
						} else {
							ru = unicode.ReplacementChar
						}
					} else {
						ru = unicode.ReplacementChar
					}
				}
				if keep {
					dst = utf8.AppendRune(dst, ru)
				}
				continue
			default:
				r.r++
				return nil, r.syntaxError(-1, badChar(esc, "in string escape code"))
			}
			if keep {
				dst = append(dst, byte(ru))
			}
			r.r += 2
		}
	}
}

// u4 is the value of 4 hex digits.
func u4(b []byte) rune {
	return rune(hexVal[b[0]])<<12 | rune(hexVal[b[1]])<<8 | rune(hexVal[b[2]])<<4 | rune(hexVal[b[3]])
}

// hexVal maps a hex digit (either case) to its value and any other byte to
// 0xff.
var hexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
		t[c-'a'+'A'] = byte(c-'a') + 10
	}
	return t
}()

// decodeHexPairs decodes whole pairs of hex digits of src into dst
// (len(dst) >= len(src)/2) up to the first pair with a non-hex byte, and
// returns how many bytes of src it decoded.
func decodeHexPairs(dst, src []byte) int {
	n := min(len(src)/2, len(dst))
	if i, err := hex.Decode(dst[:n], src[:2*n]); err != nil {
		return 2 * i
	}
	return 2 * n
}

// readHex consumes the rest of a JSON string (its opening quote is
// consumed) and decodes it as hex into a new slice, as hex.DecodeString
// decodes the string encoding/json unescapes. herr is the hex error, err a
// syntax error.
func (r *LogReader) readHex() (out []byte, herr, err error) {
	out = []byte{}
	for {
		win := r.buf[r.r:r.w]
		q := bytes.IndexByte(win, '"')
		span := win[:len(win)&^1]
		if q >= 0 {
			span = win[:q]
			if cap(out) == 0 {
				out = make([]byte, 0, len(span)/2)
			}
		}
		n := len(out)
		out = slices.Grow(out, len(span)/2)[:n+len(span)/2]
		k := decodeHexPairs(out[n:], span)
		out = out[:n+k/2]
		r.r += k
		if q >= 0 && k == q {
			r.r++
			return out, nil, nil
		}
		if k < len(span)-1 || q >= 0 {
			break // a non-hex byte (maybe an escape), or an odd length
		}
		if !r.fill() {
			return nil, nil, r.eofError()
		}
	}
	// The slow path: unescape the rest, then decode it.
	rest, err := r.readString(r.tmp[:0], true)
	if err != nil {
		return nil, nil, err
	}
	r.tmp = rest
	out = slices.Grow(out, len(rest)/2)
	k := decodeHexPairs(out[len(out):len(out)+len(rest)/2], rest)
	out = out[:len(out)+k/2]
	if k < len(rest) {
		c := rest[k]
		if hexVal[c] <= 0xf && k+1 < len(rest) {
			c = rest[k+1]
		}
		if hexVal[c] > 0xf {
			return nil, hex.InvalidByteError(c), nil
		}
		return nil, hex.ErrLength, nil
	}
	return out, nil, nil
}
