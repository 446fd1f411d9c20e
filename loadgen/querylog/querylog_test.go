package querylog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, blocks ...Series) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, s := range blocks {
		if err := w.Begin(s.Header); err != nil {
			t.Fatal(err)
		}
		for i := range s.Scheduled {
			w.Query(s.Scheduled[i], s.Issued[i])
		}
		for _, x := range s.Samples {
			w.Sample(x)
		}
		if err := w.End(); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func series(tokens bool, endpoints []string) Series {
	s := Series{Header: Header{Scenario: 1, SamplesPerQuery: 2, Queries: 3, FirstSeq: 7, TimeZero: time.Unix(0, 1_700_000_000_123_456_789), Tokens: tokens, Endpoints: endpoints},
		Scheduled: []int64{10, 2_000, 3_000_000_000}, Issued: []int64{15, 2_500, 3_000_000_100}}
	for i := range 6 {
		x := Sample{Completed: int64(100 * (i + 1)), QSLIndex: uint32(40 + i), Endpoint: NoEndpoint, FirstToken: -1}
		if i == 3 {
			x.Completed, x.Failed = -1, true
		}
		if tokens {
			x.FirstToken, x.Tokens = int64(50*(i+1)), int32(i*3)
		}
		if endpoints != nil {
			x.Endpoint = uint8(i % len(endpoints))
		}
		s.Samples = append(s.Samples, x)
	}
	return s
}

// What is written is read back field by field, in every combination of
// token data and endpoints, several blocks to a file; the sizes are the
// documented ones (16 bytes a query, 16 a sample, 32 with token data).
func TestRoundTrip(t *testing.T) {
	blocks := []Series{series(false, nil), series(true, nil), series(true, []string{"a:1", "bb:2"}), series(false, []string{"c:3"})}
	b := write(t, blocks...)
	got, err := Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range blocks {
		want := blocks[i]
		if !got[i].TimeZero.Equal(want.TimeZero) {
			t.Errorf("block %d time zero %v, want %v", i, got[i].TimeZero, want.TimeZero)
		}
		got[i].TimeZero = want.TimeZero
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("block %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
	if n := len(write(t, series(false, nil))); n != 64+3*16+6*16 {
		t.Errorf("a plain block is %d bytes, want 64 + 16 a query + 16 a sample", n)
	}
	if n := len(write(t, series(true, nil))); n != 64+3*16+6*32 {
		t.Errorf("a token block is %d bytes, want 64 + 16 a query + 32 a sample", n)
	}
	s := got[0]
	if l, ok := s.Latency(1); !ok || l != 200-10 {
		t.Errorf("latency of sample 1: %d %v, want 190 (completion − its query's scheduled time)", l, ok)
	}
	if _, ok := s.Latency(3); ok {
		t.Error("a sample that never completed has a latency")
	}
}

// A later version may append fields to the header and the records: this
// reader skips them and reads the fields it knows.
func TestReaderSkipsFieldsAddedLater(t *testing.T) {
	s := series(true, nil)
	le := binary.LittleEndian
	var b bytes.Buffer
	h := make([]byte, 72) // 8 bytes more header
	copy(h, Magic)
	le.PutUint16(h[8:], Version)
	le.PutUint16(h[10:], 72)
	le.PutUint16(h[12:], 24) // queries: 8 bytes more
	le.PutUint16(h[14:], 40) // samples: 8 bytes more
	le.PutUint32(h[16:], flagTokens)
	le.PutUint32(h[20:], 2)
	le.PutUint64(h[24:], 3)
	le.PutUint64(h[32:], 6)
	le.PutUint64(h[40:], 7)
	le.PutUint64(h[48:], uint64(s.TimeZero.UnixNano()))
	h[56] = 1
	b.Write(h)
	for i := range 3 {
		q := make([]byte, 24)
		le.PutUint64(q, uint64(s.Scheduled[i]))
		le.PutUint64(q[8:], uint64(s.Issued[i]))
		b.Write(q)
	}
	for _, x := range s.Samples {
		r := make([]byte, 40)
		le.PutUint64(r, uint64(x.Completed))
		le.PutUint32(r[8:], x.QSLIndex)
		if x.Failed {
			r[12] = 1
		}
		r[13] = x.Endpoint
		le.PutUint64(r[16:], uint64(x.FirstToken))
		le.PutUint32(r[24:], uint32(x.Tokens))
		b.Write(r)
	}
	got, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	got[0].TimeZero = s.TimeZero
	if !reflect.DeepEqual(got[0], s) {
		t.Fatalf("got %+v\nwant %+v", got[0], s)
	}
}

// Damaged, foreign, newer and hostile files are errors naming what is
// wrong; a header claiming more records than the file holds allocates
// nothing for them.
func TestReadRefusesBadFiles(t *testing.T) {
	good := write(t, series(true, []string{"a:1"}))
	le := binary.LittleEndian
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "empty"},
		{"foreign", []byte(`{"traceEvents":[]}` + strings.Repeat(" ", 64)), "no \"MLPQLOG\""},
		{"newer", mod(func(b []byte) []byte { le.PutUint16(b[8:], 2); return b }), "version 2"},
		{"truncated samples", good[:len(good)-5], "truncated"},
		{"truncated header", good[:30], "truncated header"},
		{"huge query count", mod(func(b []byte) []byte { le.PutUint64(b[24:], 1<<60); return b }), "more than the"},
		{"count mismatch", mod(func(b []byte) []byte { le.PutUint64(b[32:], 5); return b }), "claims"},
		{"small records", mod(func(b []byte) []byte { le.PutUint16(b[14:], 8); return b }), "record sizes"},
		{"bad endpoint", mod(func(b []byte) []byte { b[len(b)-32+13] = 9; return b }), "names endpoint 9 of 1"},
	} {
		_, err := Read(bytes.NewReader(c.b), int64(len(c.b)))
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrFormat with %q", c.name, err, c.want)
		}
	}
	dir := t.TempDir()
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a folder: %v", err)
	}
	p := filepath.Join(dir, FileName)
	os.WriteFile(p, good[:40], 0o644)
	if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("a truncated file: %v, want its path", err)
	}
}

// The writer refuses a series whose record counts do not match its
// header.
func TestWriterChecksCounts(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	w.Begin(Header{SamplesPerQuery: 1, Queries: 2})
	w.Query(1, 1)
	w.Sample(Sample{})
	if err := w.End(); err == nil {
		t.Fatal("a short series ended without an error")
	}
	if err := w.Begin(Header{SamplesPerQuery: 0, Queries: 1}); err == nil {
		t.Fatal("0 samples per query accepted")
	}
}

// BenchmarkWrite is the cost of the record after a run (outside the
// timed section): ns/sample is one query's and one sample's record, as a
// Server or SingleStream run writes them.
func BenchmarkWrite(b *testing.B) {
	w := NewWriter(io.Discard)
	const n = 4096
	for b.Loop() {
		w.Begin(Header{SamplesPerQuery: 1, Queries: n})
		for i := range n {
			w.Query(int64(i), int64(i))
		}
		for i := range n {
			w.Sample(Sample{Completed: int64(i), QSLIndex: uint32(i), Endpoint: NoEndpoint})
		}
		w.End()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sample")
}
