// Package querylog writes and reads the per-query record of a LoadGen
// performance run: every query's scheduled and issue times and every
// sample's completion time, with first-token times and token counts for
// LLMs and the serving endpoint for remote runs, in a compact binary file
// beside the LoadGen logs (mlperf_log_queries.bin). It is what
// `mlperf report` draws distributions and time lines from; LoadGen's own
// logs keep only percentiles.
//
// # Format, version 1
//
// All integers are little-endian. Times are nanoseconds since the run's
// time zero (the detail log's time_ms 0, TimeZero in the header). A file
// is one or more series blocks, one per performance series (one per run;
// a FindPeakPerformance run writes one per probe). A block is:
//
//	header, HeaderSize bytes (64 in version 1):
//	  0  [8]byte  magic "MLPQLOG\x00"
//	  8  uint16   version (1)
//	 10  uint16   header size
//	 12  uint16   query record size (16)
//	 14  uint16   sample record size (16, or 32 with token data)
//	 16  uint32   flags: 1 token data, 2 endpoint names follow
//	 20  uint32   samples per query
//	 24  uint64   query count Q
//	 32  uint64   sample count S (Q × samples per query)
//	 40  uint64   seq id of the block's first sample (the detail and trace logs' sample_seq)
//	 48  int64    time zero, Unix ns
//	 56  uint8    scenario: 0 SingleStream, 1 MultiStream, 2 Server, 3 Offline
//	 57  uint8    endpoint name count E (0 without flag 2)
//	 58  [6]byte  zero
//	E endpoint names, each uint16 length then that many bytes (UTF-8)
//	Q query records:
//	  0  int64    scheduled time
//	  8  int64    issue time (IssueQuery called; Server issues late by the
//	              issue lag, the other scenarios at the scheduled time)
//	S sample records, in seq order (sample i belongs to query i / samples per query):
//	  0  int64    completion time; -1 never completed
//	  8  uint32   QSL sample index
//	 12  uint8    flags: 1 the SUT reported an error
//	 13  uint8    endpoint index into the names; 255 none
//	 14  uint16   zero
//	 with token data:
//	 16  int64    first-token time; -1 none
//	 24  int32    tokens generated
//	 28  uint32   zero
//
// A sample's latency is its completion time less its query's scheduled
// time, as LoadGen measures it. Readers take the record sizes from the
// header and ignore fields past those they know, so later versions may
// append fields to a record without breaking them; a change that readers
// cannot skip raises the version.
package querylog

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Magic starts every series block.
const Magic = "MLPQLOG\x00"

// Version is the format version this package writes.
const Version = 1

// FileName is the record's name beside the LoadGen logs (with their
// default prefix).
const FileName = "mlperf_log_queries.bin"

const (
	headerSize      = 64
	queryRecordSize = 16
	sampleBaseSize  = 16
	sampleTokenSize = 32

	flagTokens    = 1
	flagEndpoints = 2

	// NoEndpoint is a sample's Endpoint where none is recorded.
	NoEndpoint = 255
	// MaxEndpoints is the most endpoint names a block holds.
	MaxEndpoints = 255
)

// Header describes one series block.
type Header struct {
	// Scenario is 0 SingleStream, 1 MultiStream, 2 Server, 3 Offline (the
	// loadgen's Scenario values).
	Scenario        uint8
	SamplesPerQuery int
	Queries         int
	FirstSeq        uint64
	TimeZero        time.Time
	// Tokens says the sample records carry first-token times and token
	// counts.
	Tokens bool
	// Endpoints names the serving endpoints samples refer to (at most
	// MaxEndpoints; nil where none).
	Endpoints []string
}

// Samples is the block's sample count.
func (h Header) Samples() int { return h.Queries * h.SamplesPerQuery }

// Sample is one sample's record. Times are ns since the time zero; -1
// where there is none.
type Sample struct {
	Completed  int64
	QSLIndex   uint32
	Failed     bool
	Endpoint   uint8 // NoEndpoint: none
	FirstToken int64
	Tokens     int32
}

// Writer writes series blocks. It encodes into its own buffer and
// writes it out in 64 KiB pieces, so that a record costs a few ns. It is
// not safe for concurrent use.
type Writer struct {
	w        io.Writer
	buf      []byte
	err      error
	h        Header
	queries  int
	samples  int
	inSeries bool
}

const bufSize = 1 << 16

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, buf: make([]byte, 0, bufSize)} }

// room makes room for n more bytes.
func (w *Writer) room(n int) {
	if len(w.buf)+n > cap(w.buf) {
		w.flush()
	}
}

func (w *Writer) flush() {
	if len(w.buf) > 0 && w.err == nil {
		_, w.err = w.w.Write(w.buf)
	}
	w.buf = w.buf[:0]
}

// Begin starts a series block: h's header, then exactly h.Queries Query
// calls and h.Samples() Sample calls, in order.
func (w *Writer) Begin(h Header) error {
	if w.inSeries {
		return errors.New("querylog: Begin before the last series was complete")
	}
	if h.SamplesPerQuery < 1 || h.Queries < 0 {
		return fmt.Errorf("querylog: %d queries of %d samples", h.Queries, h.SamplesPerQuery)
	}
	if len(h.Endpoints) > MaxEndpoints {
		return fmt.Errorf("querylog: %d endpoints, at most %d", len(h.Endpoints), MaxEndpoints)
	}
	le := binary.LittleEndian
	flags, size := uint32(0), sampleBaseSize
	if h.Tokens {
		flags, size = flags|flagTokens, sampleTokenSize
	}
	if len(h.Endpoints) > 0 {
		flags |= flagEndpoints
	}
	w.room(headerSize)
	b := w.buf
	b = append(b, Magic...)
	b = le.AppendUint16(b, Version)
	b = le.AppendUint16(b, headerSize)
	b = le.AppendUint16(b, queryRecordSize)
	b = le.AppendUint16(b, uint16(size))
	b = le.AppendUint32(b, flags)
	b = le.AppendUint32(b, uint32(h.SamplesPerQuery))
	b = le.AppendUint64(b, uint64(h.Queries))
	b = le.AppendUint64(b, uint64(h.Samples()))
	b = le.AppendUint64(b, h.FirstSeq)
	b = le.AppendUint64(b, uint64(h.TimeZero.UnixNano()))
	b = append(b, h.Scenario, uint8(len(h.Endpoints)), 0, 0, 0, 0, 0, 0)
	w.buf = b
	for _, e := range h.Endpoints {
		if len(e) > 1<<16-1 {
			e = e[:1<<16-1]
		}
		w.room(2 + len(e))
		w.buf = append(le.AppendUint16(w.buf, uint16(len(e))), e...)
	}
	w.h, w.queries, w.samples, w.inSeries = h, 0, 0, true
	return nil
}

// Query writes the next query's scheduled and issue times.
func (w *Writer) Query(scheduled, issued int64) {
	w.room(queryRecordSize)
	le := binary.LittleEndian
	w.buf = le.AppendUint64(le.AppendUint64(w.buf, uint64(scheduled)), uint64(issued))
	w.queries++
}

// Sample writes the next sample's record.
func (w *Writer) Sample(s Sample) {
	w.room(sampleTokenSize)
	le := binary.LittleEndian
	b := le.AppendUint64(w.buf, uint64(s.Completed))
	b = le.AppendUint32(b, s.QSLIndex)
	var f uint8
	if s.Failed {
		f = 1
	}
	b = append(b, f, s.Endpoint, 0, 0)
	if w.h.Tokens {
		b = le.AppendUint64(b, uint64(s.FirstToken))
		b = le.AppendUint32(b, uint32(s.Tokens))
		b = append(b, 0, 0, 0, 0)
	}
	w.buf = b
	w.samples++
}

// End ends the series block and writes it out.
func (w *Writer) End() error {
	if !w.inSeries {
		return errors.New("querylog: End without Begin")
	}
	w.inSeries = false
	w.flush()
	if w.queries != w.h.Queries || w.samples != w.h.Samples() {
		return fmt.Errorf("querylog: a series of %d queries and %d samples got %d and %d", w.h.Queries, w.h.Samples(), w.queries, w.samples)
	}
	if w.err != nil {
		return fmt.Errorf("querylog: %w", w.err)
	}
	return nil
}

// Series is one decoded series block.
type Series struct {
	Header
	// Scheduled and Issued are per query.
	Scheduled, Issued []int64
	Samples           []Sample
}

// Latency returns sample i's latency (completion − its query's scheduled
// time) in ns, and false where it never completed.
func (s *Series) Latency(i int) (int64, bool) {
	c := s.Samples[i].Completed
	if c < 0 {
		return 0, false
	}
	return c - s.Scheduled[i/s.SamplesPerQuery], true
}

// ErrFormat marks a file that is not a per-query record this package
// reads.
var ErrFormat = errors.New("not a per-query record")

// ReadFile reads every series block of the file at path.
func ReadFile(path string) ([]Series, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("querylog: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("querylog: %s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("querylog: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("querylog: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("querylog: %s is not a regular file", path)
	}
	out, err := Read(f, st.Size())
	if err != nil {
		return out, fmt.Errorf("querylog: %s: %w", path, err)
	}
	return out, nil
}

// Read reads every series block from r, which holds size bytes; counts
// in a header that need more bytes than remain are an error, so a corrupt
// or hostile header cannot make it allocate more than the file's size.
func Read(r io.Reader, size int64) ([]Series, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	le := binary.LittleEndian
	var out []Series
	left := size
	for {
		var b [headerSize]byte
		n, err := io.ReadFull(br, b[:])
		if err == io.EOF && n == 0 {
			if len(out) == 0 {
				return nil, fmt.Errorf("%w: the file is empty", ErrFormat)
			}
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%w: a truncated header after %d series", ErrFormat, len(out))
		}
		if string(b[:8]) != Magic {
			return out, fmt.Errorf("%w: no %q at series %d", ErrFormat, Magic[:7], len(out))
		}
		if v := le.Uint16(b[8:]); v != Version {
			return out, fmt.Errorf("%w: version %d (this build reads %d; a newer mlperf wrote it)", ErrFormat, v, Version)
		}
		hs, qs, ss := int64(le.Uint16(b[10:])), int64(le.Uint16(b[12:])), int64(le.Uint16(b[14:]))
		flags := le.Uint32(b[16:])
		tokens := flags&flagTokens != 0
		if hs < headerSize || qs < queryRecordSize || ss < sampleBaseSize || (tokens && ss < sampleTokenSize) {
			return out, fmt.Errorf("%w: record sizes %d/%d/%d are below version %d's", ErrFormat, hs, qs, ss, Version)
		}
		if _, err := br.Discard(int(hs - headerSize)); err != nil {
			return out, fmt.Errorf("%w: a truncated header", ErrFormat)
		}
		left -= hs
		spq := int64(le.Uint32(b[20:]))
		nq, ns := le.Uint64(b[24:]), le.Uint64(b[32:])
		if spq < 1 || nq > uint64(left/qs) || ns > uint64(left/ss) || ns != nq*uint64(spq) {
			return out, fmt.Errorf("%w: series %d claims %d queries of %d samples (%d samples), more than the %d bytes left hold", ErrFormat, len(out), nq, spq, ns, left)
		}
		s := Series{Header: Header{
			Scenario: b[56], SamplesPerQuery: int(spq), Queries: int(nq), FirstSeq: le.Uint64(b[40:]),
			TimeZero: time.Unix(0, int64(le.Uint64(b[48:]))), Tokens: tokens,
		}}
		if flags&flagEndpoints != 0 {
			for range int(b[57]) {
				var lb [2]byte
				if _, err := io.ReadFull(br, lb[:]); err != nil {
					return out, fmt.Errorf("%w: truncated endpoint names", ErrFormat)
				}
				l := int64(le.Uint16(lb[:]))
				if l > left {
					return out, fmt.Errorf("%w: an endpoint name longer than the file", ErrFormat)
				}
				name := make([]byte, l)
				if _, err := io.ReadFull(br, name); err != nil {
					return out, fmt.Errorf("%w: truncated endpoint names", ErrFormat)
				}
				s.Endpoints = append(s.Endpoints, string(name))
				left -= 2 + l
			}
		}
		if nq > uint64(left/qs) || ns > uint64((left-int64(nq)*qs)/ss) {
			return out, fmt.Errorf("%w: series %d is truncated", ErrFormat, len(out))
		}
		s.Scheduled, s.Issued = make([]int64, nq), make([]int64, nq)
		rec := make([]byte, max(qs, ss))
		for i := range s.Scheduled {
			if _, err := io.ReadFull(br, rec[:qs]); err != nil {
				return out, fmt.Errorf("%w: series %d is truncated in its queries", ErrFormat, len(out))
			}
			s.Scheduled[i], s.Issued[i] = int64(le.Uint64(rec[0:])), int64(le.Uint64(rec[8:]))
		}
		s.Samples = make([]Sample, ns)
		for i := range s.Samples {
			if _, err := io.ReadFull(br, rec[:ss]); err != nil {
				return out, fmt.Errorf("%w: series %d is truncated in its samples", ErrFormat, len(out))
			}
			x := &s.Samples[i]
			x.Completed, x.QSLIndex, x.Failed, x.Endpoint = int64(le.Uint64(rec[0:])), le.Uint32(rec[8:]), rec[12]&1 != 0, rec[13]
			x.FirstToken = -1
			if tokens {
				x.FirstToken, x.Tokens = int64(le.Uint64(rec[16:])), int32(le.Uint32(rec[24:]))
			}
			if x.Endpoint != NoEndpoint && int(x.Endpoint) >= len(s.Endpoints) {
				return out, fmt.Errorf("%w: sample %d names endpoint %d of %d", ErrFormat, i, x.Endpoint, len(s.Endpoints))
			}
		}
		left -= int64(nq)*qs + int64(ns)*ss
		out = append(out, s)
	}
}
