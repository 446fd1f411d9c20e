// Package samplelog writes CSV logs of what a loadgen run does with the
// samples, in the form the scripts compare with the C++ LoadGen's: every
// sample issued (query, position, sample index, scheduled time) and every
// set the QSL is asked to load (set, position, sample index).
package samplelog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/mlperf-go/inference/loadgen"
)

// The header lines of the two logs.
const (
	IssueHeader = "query,position,sample_index,scheduled_ns"
	LoadHeader  = "set,position,sample_index"
)

// File is a CSV log being written. Its rows are buffered; Close flushes
// and closes it.
type File struct {
	f    *os.File
	w    *bufio.Writer
	done bool
}

// Create makes path (and its folder) and writes the header line.
func Create(path, header string) (*File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(header + "\n")
	return &File{f: f, w: w}, nil
}

// Close flushes and closes the file; the error names it. Calls after the
// first do nothing and return nil.
func (l *File) Close() error {
	if l.done {
		return nil
	}
	l.done = true
	if err := errors.Join(l.w.Flush(), l.f.Close()); err != nil {
		return fmt.Errorf("writing %s: %w (is the disk full?)", l.f.Name(), err)
	}
	return nil
}

// RecordLoads returns qsl with every LoadSamples call written to l as
// rows set,position,sample_index (sets numbered from 0), before the call
// is passed on. It is safe for concurrent use.
func RecordLoads(qsl loadgen.QSL, l *File) loadgen.QSL {
	return &recordingQSL{QSL: qsl, w: l.w}
}

type recordingQSL struct {
	loadgen.QSL
	mu  sync.Mutex
	w   *bufio.Writer
	set int
}

func (q *recordingQSL) LoadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	q.mu.Lock()
	for i, s := range idx {
		fmt.Fprintf(q.w, "%d,%d,%d\n", q.set, i, s)
	}
	q.set++
	q.mu.Unlock()
	return q.QSL.LoadSamples(ctx, idx)
}

// RecordIssues returns a loadgen.LogSettings.OnIssue hook that writes to
// l a row query,position,sample_index,scheduled_ns for every sample
// issued. The loadgen calls it from its one issuing goroutine.
func RecordIssues(l *File) func(q int, sched int64, samples []loadgen.Sample) {
	var buf []byte
	return func(q int, sched int64, samples []loadgen.Sample) {
		for i, x := range samples {
			buf = strconv.AppendInt(buf[:0], int64(q), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(i), 10)
			buf = append(buf, ',')
			buf = strconv.AppendUint(buf, uint64(x.Index), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, sched, 10)
			buf = append(buf, '\n')
			l.w.Write(buf)
		}
	}
}
