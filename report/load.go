package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/internal/detaillog"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/querylog"
)

// Run is one LoadGen run folder's data.
type Run struct {
	// Dir is the folder; Rel is its path below the report's root, for
	// display.
	Dir, Rel string
	// Values are the detail log's values, the first of each key; Errors
	// its error entries.
	Values map[string]json.RawMessage
	Errors []string
	// Series is the per-sample data of the performance series: from the
	// per-query record (mlperf_log_queries.bin; its last series), else
	// from the trace (mlperf_log_trace.json: scheduled and completion
	// times only); nil without either. Source says which ("record",
	// "trace", "").
	Series *querylog.Series
	Source string
	// SeriesCount is the number of series in the record (a find-peak run
	// writes one per probe).
	SeriesCount int
	// RecordErr is why a record present could not be read.
	RecordErr error
	// AccuracyText is accuracy.txt beside the logs ("" when absent).
	AccuracyText string
}

// Str returns a string key's value ("" when absent or not a string).
func (r *Run) Str(k string) string {
	var s string
	json.Unmarshal(r.Values[k], &s)
	return s
}

// Num returns a numeric key's value and whether it is present.
func (r *Run) Num(k string) (float64, bool) {
	raw, ok := r.Values[k]
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return f, err == nil
}

// N returns a numeric key's value, 0 when absent.
func (r *Run) N(k string) float64 { f, _ := r.Num(k); return f }

// Bool returns a boolean key's value and whether it is present.
func (r *Run) Bool(k string) (bool, bool) {
	raw, ok := r.Values[k]
	if !ok {
		return false, false
	}
	return bytes.Equal(raw, []byte("true")), true
}

// Has reports whether the key is present.
func (r *Run) Has(k string) bool { _, ok := r.Values[k]; return ok }

// Scenario is the run's effective scenario.
func (r *Run) Scenario() string { return r.Str("effective_scenario") }

// Accuracy reports whether the run is an accuracy run (no performance
// result in its detail log).
func (r *Run) Accuracy() bool {
	return !r.Has("result_validity") || strings.Contains(r.Str("effective_test_mode"), "Accuracy")
}

// Tokens reports whether the run measured token latencies.
func (r *Run) Tokens() bool {
	b, _ := r.Bool("requested_use_token_latencies")
	return b || r.Has("result_first_token_50.00_percentile_latency_ns")
}

// LoadRun reads a run folder: its detail log, and beside it the per-query
// record or the trace, and accuracy.txt.
func LoadRun(dir string) (*Run, error) {
	path := filepath.Join(dir, "mlperf_log_detail.txt")
	if err := regular(path); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	l, err := detaillog.ReadFile(path, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("report: %w", err)
		}
		return nil, fmt.Errorf("report: %s: %w", dir, err)
	}
	delete(l.Values, "loaded_qsl_set") // one per load set; not a run figure
	r := &Run{Dir: dir, Values: l.Values, Errors: l.Errors}
	if b, err := readSmall(filepath.Join(dir, "accuracy.txt"), 1<<20); err == nil {
		r.AccuracyText = string(b)
	}
	rec := filepath.Join(dir, querylog.FileName)
	if _, err := os.Lstat(rec); err == nil {
		ss, err := querylog.ReadFile(rec)
		if err != nil {
			r.RecordErr = err
		}
		if len(ss) > 0 {
			r.Series, r.Source, r.SeriesCount = &ss[len(ss)-1], "record", len(ss)
		}
	}
	if r.Series == nil {
		if s := readTrace(filepath.Join(dir, "mlperf_log_trace.json")); s != nil {
			r.Series, r.Source = s, "trace"
		}
	}
	return r, nil
}

// regular returns an error unless path is a regular file (a FIFO or a
// device named like a log would block or never end).
func regular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	return nil
}

// readSmall reads a regular file of at most limit bytes.
func readSmall(path string, limit int64) ([]byte, error) {
	if err := regular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("report: %s is not a regular file", path)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("report: %s is over %d bytes", path, limit)
	}
	b := make([]byte, st.Size())
	_, err = f.ReadAt(b, 0)
	return b, err
}

// readTrace reads the "Sample" begin events of a Chrome trace (this
// suite's and LoadGen's carry sample_seq, query_seq, issue_start_ns and
// complete_ns) into a series: the last series of the trace (a submission
// run traces its accuracy series first), its samples grouped into their
// queries. nil without a trace or samples.
func readTrace(path string) *querylog.Series {
	if regular(path) != nil {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	type sample struct {
		seq, query  uint64
		issue, done int64
	}
	var ss []sample
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := bytes.TrimSuffix(bytes.TrimSpace(sc.Bytes()), []byte(","))
		if !bytes.Contains(line, []byte(`"issue_start_ns"`)) {
			continue
		}
		var e struct {
			Args struct {
				Seq      uint64 `json:"sample_seq"`
				Query    uint64 `json:"query_seq"`
				Issue    int64  `json:"issue_start_ns"`
				Complete int64  `json:"complete_ns"`
			} `json:"args"`
		}
		if json.Unmarshal(line, &e) == nil && e.Args.Complete >= e.Args.Issue {
			ss = append(ss, sample{e.Args.Seq, e.Args.Query, e.Args.Issue, e.Args.Complete})
		}
	}
	if len(ss) == 0 {
		return nil
	}
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].seq < ss[j].seq })
	// A series starts where the query index falls back.
	for i := len(ss) - 1; i > 0; i-- {
		if ss[i].query < ss[i-1].query {
			ss = ss[i:]
			break
		}
	}
	// Group the samples into queries; a trace whose queries differ in
	// size (or that lost samples) is read as one sample a query.
	spq := 1
	for spq < len(ss) && ss[spq].query == ss[0].query {
		spq++
	}
	for i := range ss {
		if len(ss)%spq != 0 || ss[i].query != ss[i-i%spq].query || (i%spq == 0 && i > 0 && ss[i].query == ss[i-1].query) {
			spq = 1
			break
		}
	}
	s := &querylog.Series{Header: querylog.Header{SamplesPerQuery: spq, Queries: len(ss) / spq}}
	s.Scheduled, s.Issued, s.Samples = make([]int64, len(ss)/spq), make([]int64, len(ss)/spq), make([]querylog.Sample, len(ss))
	for i, x := range ss {
		if i%spq == 0 {
			s.Scheduled[i/spq], s.Issued[i/spq] = x.issue, x.issue
		}
		s.Samples[i] = querylog.Sample{Completed: x.done, Endpoint: querylog.NoEndpoint, FirstToken: -1}
	}
	return s
}

// Find returns the run folders under root (every folder holding a
// mlperf_log_detail.txt), sorted. root is a run folder, a results tree or
// a mlperf_log_detail.txt itself; any other file, or a path that does not
// exist, is an error saying what to give instead.
func Find(root string) ([]string, error) {
	if err := checkRoot(root); err != nil {
		return nil, err
	}
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "mlperf_log_detail.txt" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	sort.Strings(dirs)
	return dirs, err
}

// checkRoot refuses a root that cannot hold runs: a missing path or a
// file other than a detail log.
func checkRoot(root string) error {
	st, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist; give a run folder (holding mlperf_log_detail.txt) or a results tree", root)
	case err != nil:
		return err
	case st.IsDir() || filepath.Base(root) == "mlperf_log_detail.txt":
		return nil
	case strings.HasPrefix(filepath.Base(root), "mlperf_log_"):
		return fmt.Errorf("%s is a file; give the run folder that holds it (%s) or a results tree", root, filepath.Dir(root))
	}
	return fmt.Errorf("%s is a file, not a folder; give a run folder (holding mlperf_log_detail.txt) or a results tree", root)
}

// The extra detail log keys of this suite's runs (loadgen.LogSettings.Extra,
// written by the benchmark package): distributions in ns.
const (
	keyIssueLag     = loadgen.ExtraKeyPrefix + loadgen.IssueLagName
	keyQueueWait    = loadgen.ExtraKeyPrefix + "queue_wait_ns"
	keySendLag      = loadgen.ExtraKeyPrefix + "send_lag_ns"
	keyServerTiming = loadgen.ExtraKeyPrefix + "server_timing_ns"
	keyEndpoints    = loadgen.ExtraKeyPrefix + "endpoints"
	keyBenchmark    = loadgen.ExtraKeyPrefix + "benchmark"
)

// dist decodes a loadgen.Dist entry; ok is false where it is absent or
// empty.
func (r *Run) dist(key string) (loadgen.Dist, bool) {
	var d loadgen.Dist
	raw, ok := r.Values[key]
	if !ok || json.Unmarshal(raw, &d) != nil || d.Count == 0 {
		return d, false
	}
	return d, true
}
