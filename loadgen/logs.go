package loadgen

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/mlperf-go/inference/loadgen/querylog"
	"github.com/mlperf-go/inference/loadgen/rng"
)

// Version is the LoadGen version whose behaviour and logs this package
// reproduces, as written in the detail log's loadgen_version.
const Version = "6.0.17 @ mlperf-go"

// auditConfigWarning is LoadGen's warning_generic_message when an
// audit.config overrides the settings (loadgen/loadgen.cc StartTest);
// reviewers look for it in compliance logs.
const auditConfigWarning = "Found Audit Config file (audit.config). Overriding TestSettings from audit.config file."

// Namer is implemented by SUTs and QSLs that have a name for the logs.
type Namer interface {
	Name() string
}

// logWriter owns the files of one run. Detail and summary writes happen on
// the run goroutine; accuracy entries come from completers and are
// serialised by accMu.
type logWriter struct {
	base     time.Time
	wall     time.Time
	dir      string
	names    map[string]string
	detail   *bufio.Writer
	detailF  *os.File
	tokens   bool
	scenario Scenario
	settings LogSettings
	pid      int

	warnings, errors int
	nextSeq          uint64

	accMu     sync.Mutex
	accuracy  *bufio.Writer
	accF      *os.File
	accCount  int
	accHexBuf []byte
	firstTok  map[uint64][]byte

	// accuracy-log sampling: one uniform draw per sample, in seq order,
	// from a default-seeded mt19937 (LoadGen never seeds it).
	accRNG      *rng.MT19937
	accRNGDrawn uint64

	sutName  string
	trace    *bufio.Writer // Chrome trace, when enabled
	traceF   *os.File
	queries  *querylog.Writer // the per-query record, from the first performance series
	queriesF *os.File
	closed   bool
	closeErr error
	wroteSum bool
}

func (s LogSettings) path(kind, ext string, now time.Time) string {
	prefix := s.Prefix
	if s.PrefixWithDatetime {
		prefix += now.Format("2006-01-02T15:04:05Z") + "_"
	}
	dir := s.OutDir
	if dir == "" {
		dir = "."
	}
	return filepath.Join(dir, prefix+kind+s.Suffix+ext)
}

// openLogs creates the output folder and the detail and accuracy logs.
func openLogs(s LogSettings, tokens bool, sc Scenario) (*logWriter, error) {
	if s.Prefix == "" && s.Suffix == "" {
		s.Prefix = "mlperf_log_"
	}
	if s.OutDir == "" {
		s.OutDir = "."
	}
	if err := os.MkdirAll(s.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("loadgen: cannot create the log folder %s: %w (choose a writable output folder)", s.OutDir, err)
	}
	now := time.Now()
	lw := &logWriter{base: now, wall: now.UTC(), dir: s.OutDir, tokens: tokens, scenario: sc, settings: s, pid: os.Getpid(), firstTok: map[uint64][]byte{}}
	lw.names = map[string]string{
		"detail":   s.path("detail", ".txt", now),
		"summary":  s.path("summary", ".txt", now),
		"accuracy": s.path("accuracy", ".json", now),
		"trace":    s.path("trace", ".json", now),
		"queries":  s.path("queries", ".bin", now),
	}
	var err error
	if lw.detailF, err = os.Create(lw.names["detail"]); err != nil {
		return nil, fmt.Errorf("loadgen: cannot write the detail log: %w (choose a writable output folder)", err)
	}
	lw.detail = bufio.NewWriterSize(lw.detailF, 1<<16)
	if lw.accF, err = os.Create(lw.names["accuracy"]); err != nil {
		lw.detailF.Close()
		return nil, fmt.Errorf("loadgen: cannot write the accuracy log: %w (choose a writable output folder)", err)
	}
	lw.accuracy = bufio.NewWriterSize(lw.accF, 1<<16)
	lw.accuracy.WriteString("[")
	if s.EnableTrace {
		f, err := os.Create(lw.names["trace"])
		if err != nil {
			lw.detailF.Close()
			lw.accF.Close()
			return nil, fmt.Errorf("loadgen: cannot write the trace: %w (choose a writable output folder)", err)
		}
		lw.traceF, lw.trace = f, bufio.NewWriterSize(f, 1<<20)
		lw.trace.WriteString("{\"traceEvents\":[\n")
	}
	return lw, nil
}

func (lw *logWriter) entry(key string, value any, isErr, isWarn bool) {
	if isErr {
		lw.errors++
	}
	if isWarn {
		lw.warnings++
	}
	_, file, line, _ := runtime.Caller(2)
	ms := float64(time.Since(lw.base).Nanoseconds()) / 1e6
	fmt.Fprintf(lw.detail, `:::MLLOG {"key": %s, "value": %s, "time_ms": %.6f, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": %t, "is_warning": %t, "file": %s, "line_no": %d, "pid": %d, "tid": %d}}`+"\n",
		jsonString(key), formatValue(value), ms, isErr, isWarn, jsonString(filepath.Base(file)), line, lw.pid, lw.pid)
	if lw.settings.CopyDetailToStdout {
		lw.detail.Flush()
	}
}

func (lw *logWriter) log(key string, value any) { lw.entry(key, value, false, false) }

func (lw *logWriter) message(msg string) { lw.entry("generic_message", msg, false, false) }

func (lw *logWriter) errorf(format string, a ...any) {
	lw.entry("error_runtime", fmt.Sprintf(format, a...), true, false)
}

func name(x any, def string) string {
	if n, ok := x.(Namer); ok {
		return n.Name()
	}
	return def
}

// close flushes and closes every file; it is safe to call twice.
func (lw *logWriter) close() error {
	if lw.closed {
		return lw.closeErr
	}
	lw.closed = true
	if !lw.wroteSum {
		lw.writeSummary(nil, nil)
	}
	// Each file's first write error (bufio keeps it), flush and close
	// are checked, and named.
	var errs []error
	done := func(name string, flush func() error, f *os.File) {
		if err := errors.Join(flush(), f.Close()); err != nil {
			errs = append(errs, fileError(lw.names[name], err))
		}
	}
	lw.accMu.Lock()
	if lw.accuracy != nil {
		lw.accuracy.WriteString("\n]\n")
		done("accuracy", lw.accuracy.Flush, lw.accF)
		lw.accuracy = nil
	}
	lw.accMu.Unlock()
	if lw.trace != nil {
		fmt.Fprintf(lw.trace, "{\"name\":\"LastTrace\"}\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"ts\":%d,\"version\":\"MLPerf LoadGen v1.0\"}}\n", lw.base.UnixNano())
		done("trace", lw.trace.Flush, lw.traceF)
	}
	if lw.queriesF != nil {
		done("queries", func() error { return nil }, lw.queriesF) // the record flushes each series itself
	}
	done("detail", lw.detail.Flush, lw.detailF)
	errs = append(errs, lw.closeErr)
	if err := errors.Join(errs...); err != nil {
		lw.closeErr = fmt.Errorf("loadgen: %w", err)
	}
	return lw.closeErr
}
