package loadgen_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

// traceQSL and traceSUT print the same event lines as the C++ harness
// testdata/cpptrace/trace_harness.cc: "load N i..." for each LoadSamples
// call and "issue N i..." for each IssueQuery call.
type traceLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *traceLog) add(kind string, idx []uint64) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d", kind, len(idx))
	for _, i := range idx {
		fmt.Fprintf(&b, " %d", i)
	}
	l.mu.Lock()
	l.lines = append(l.lines, b.String())
	l.mu.Unlock()
}

type traceQSL struct {
	total, perf int
	log         *traceLog
}

func (q *traceQSL) TotalSampleCount() int       { return q.total }
func (q *traceQSL) PerformanceSampleCount() int { return q.perf }
func (q *traceQSL) LoadSamples(_ context.Context, idx []loadgen.SampleIndex) error {
	u := make([]uint64, len(idx))
	for i, v := range idx {
		u[i] = uint64(v)
	}
	q.log.add("load", u)
	return nil
}
func (q *traceQSL) UnloadSamples(_ context.Context, idx []loadgen.SampleIndex) error {
	q.log.mu.Lock()
	q.log.lines = append(q.log.lines, fmt.Sprintf("unload %d", len(idx)))
	q.log.mu.Unlock()
	return nil
}

type traceSUT struct{ log *traceLog }

func (s traceSUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	u := make([]uint64, len(samples))
	resp := make([]loadgen.Response, len(samples))
	for i, v := range samples {
		u[i] = uint64(v.Index)
		resp[i] = loadgen.Response{ID: v.ID}
	}
	s.log.add("issue", u)
	c.Complete(resp...)
}

// TestEventTracesMatchCppLoadGen replays each run of testdata/cpptrace
// (the C++ LoadGen's LoadSamplesToRam and IssueQuery calls, recorded by
// trace_harness.cc with a SUT that completes inside IssueQuery, with the
// run's user.conf and audit.config) and requires the same calls with the
// same samples in the same order, the same detail-log entries that the
// settings decide (effective settings, generated_query_count and
// _duration, the end message, errors, the validity flags) and the same
// samples in the accuracy log.
func TestEventTracesMatchCppLoadGen(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "cpptrace", "*.trace"))
	if len(files) == 0 {
		t.Fatal("no traces in testdata/cpptrace")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tr := readTrace(t, f)
			want, args, conf := tr.events, tr.args, tr.conf
			sc, err := loadgen.ParseScenario(args[0])
			if err != nil {
				t.Fatal(err)
			}
			mode, err := loadgen.ParseMode(args[1])
			if err != nil {
				t.Fatal(err)
			}
			total, _ := strconv.Atoi(args[2])
			perf, _ := strconv.Atoi(args[3])
			s := traceSettings(t, sc, mode, conf, tr.audit)
			log := &traceLog{}
			lg := loadgen.DefaultLogSettings()
			lg.OutDir = t.TempDir()
			if _, err := loadgen.Run(context.Background(), traceSUT{log}, &traceQSL{total, perf, log}, s, lg); err != nil {
				t.Fatal(err)
			}
			if tr.outcome != nil {
				got := traceOutcome(t, lg.OutDir)
				for i := range max(len(got), len(tr.outcome)) {
					var g, w string
					if i < len(got) {
						g = got[i]
					}
					if i < len(tr.outcome) {
						w = tr.outcome[i]
					}
					if g != w {
						t.Errorf("outcome line %d:\n got  %.300s\n want %.300s", i, g, w)
					}
				}
			}
			got := log.lines
			for i := range max(len(got), len(want)) {
				var g, w string
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				if g != w {
					t.Fatalf("event %d of %d (want %d):\n got  %.200s\n want %.200s", i, len(got), len(want), g, w)
				}
			}
		})
	}
}

// trace is one .trace golden.
type trace struct {
	args        []string // SCENARIO MODE TOTAL PERF
	conf, audit string   // user.conf and audit.config text ("" for none)
	events      []string // load / issue / unload lines
	outcome     []string // detail and accuracy lines; nil in older goldens
}

// readTrace reads a .trace file: "# args: SCENARIO MODE TOTAL PERF",
// "# conf: LINE" lines (the user.conf), "# audit: LINE" lines (the
// audit.config), then the event lines and the outcome lines ("detail KEY
// VALUE", "accuracy N SEQ...").
func readTrace(t *testing.T, path string) trace {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tr trace
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# args: "):
			tr.args = strings.Fields(strings.TrimPrefix(line, "# args: "))
		case strings.HasPrefix(line, "# conf: "):
			tr.conf += strings.TrimPrefix(line, "# conf: ") + "\n"
		case strings.HasPrefix(line, "# audit: "):
			tr.audit += strings.TrimPrefix(line, "# audit: ") + "\n"
		case strings.HasPrefix(line, "#"), line == "":
		case strings.HasPrefix(line, "detail "), strings.HasPrefix(line, "accuracy "):
			tr.outcome = append(tr.outcome, line)
		default:
			tr.events = append(tr.events, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tr.args) != 4 {
		t.Fatalf("%s: want a '# args: SCENARIO MODE TOTAL PERF' line", path)
	}
	return tr
}

// traceSettings loads the settings as trace_harness.cc does: the
// embedded mlperf.conf and user under model "synthetic", then audit (if
// any) as StartTest applies audit.config.
func traceSettings(t *testing.T, sc loadgen.Scenario, mode loadgen.Mode, user, audit string) loadgen.Settings {
	t.Helper()
	dir := t.TempDir()
	userPath, auditPath := filepath.Join(dir, "user.conf"), ""
	if err := os.WriteFile(userPath, []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	if audit != "" {
		auditPath = filepath.Join(dir, "audit.config")
		if err := os.WriteFile(auditPath, []byte(audit), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := loadgen.LoadConfigs("synthetic", sc, mode, "", userPath, auditPath)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	detailLine = regexp.MustCompile(`"key": "([^"]*)", "value": (.*), "time_ms": `)
	seqID      = regexp.MustCompile(`"seq_id" : ([0-9]+)`)
)

// traceOutcome renders a run's logs in dir as trace_harness.cc prints
// them: the detail entries that settings decide, then the accuracy
// log's seq_ids, sorted.
func traceOutcome(t *testing.T, dir string) []string {
	t.Helper()
	detail, err := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(detail), "\n") {
		m := detailLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key, val := m[1], m[2]
		if strings.HasPrefix(key, "effective_") || strings.HasPrefix(key, "generated_") || strings.HasPrefix(key, "error_") ||
			key == "result_validity" || key == "result_min_queries_met" || key == "result_min_duration_met" ||
			(key == "generic_message" && strings.Contains(val, "Ending")) {
			out = append(out, "detail "+key+" "+val)
		}
	}
	acc, err := os.ReadFile(filepath.Join(dir, "mlperf_log_accuracy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var seq []int
	for _, m := range seqID.FindAllSubmatch(acc, -1) {
		n, _ := strconv.Atoi(string(m[1]))
		seq = append(seq, n)
	}
	slices.Sort(seq)
	line := fmt.Sprintf("accuracy %d", len(seq))
	for _, n := range seq {
		line += " " + strconv.Itoa(n)
	}
	return append(out, line)
}
