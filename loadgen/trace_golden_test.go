package loadgen_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
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
// trace_harness.cc with a SUT that completes inside IssueQuery) and
// requires the same calls with the same samples in the same order.
func TestEventTracesMatchCppLoadGen(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "cpptrace", "*.trace"))
	if len(files) == 0 {
		t.Fatal("no traces in testdata/cpptrace")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, args, conf := readTrace(t, f)
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
			s := settings(t, sc, mode, conf)
			log := &traceLog{}
			lg := loadgen.DefaultLogSettings()
			lg.OutDir = t.TempDir()
			if _, err := loadgen.Run(context.Background(), traceSUT{log}, &traceQSL{total, perf, log}, s, lg); err != nil {
				t.Fatal(err)
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

// readTrace reads a .trace file: "# args: SCENARIO MODE TOTAL PERF",
// "# conf: LINE" lines (the user.conf), then the event lines.
func readTrace(t *testing.T, path string) (events, args []string, conf string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# args: "):
			args = strings.Fields(strings.TrimPrefix(line, "# args: "))
		case strings.HasPrefix(line, "# conf: "):
			conf += strings.TrimPrefix(line, "# conf: ") + "\n"
		case strings.HasPrefix(line, "#"), line == "":
		default:
			events = append(events, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(args) != 4 {
		t.Fatalf("%s: want a '# args: SCENARIO MODE TOTAL PERF' line", path)
	}
	return events, args, conf
}
