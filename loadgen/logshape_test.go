package loadgen_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// The log-shape goldens (testdata/logshape) come from the C++ LoadGen
// 6.0.17 run with the same settings and SUT behaviour (README.md there):
// the detail log's keys in order with their error/warning flags and the
// text of string and boolean values, the summary's lines and the accuracy
// log's fields, digits replaced by N. make_golden.py there writes them;
// shape below applies the same rules to our logs.

// shapeTokenSUT emits, for sample i, 3 + i%5 int32 tokens i*10, i*10+1, ...:
// the first one through FirstToken (except Offline, where LoadGen does not
// ask for it), then all of them with Complete.
type shapeTokenSUT struct{ offline bool }

func (s *shapeTokenSUT) Name() string { return "NullSUT" }

func (s *shapeTokenSUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	tc, _ := c.(loadgen.TokenCompleter)
	for _, q := range samples {
		n := 3 + int(q.Index%5)
		data := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(data[4*i:], uint32(int(q.Index)*10+i))
		}
		if !s.offline && tc != nil {
			tc.FirstToken(q.ID, data[:4])
		}
		c.Complete(loadgen.Response{ID: q.ID, Data: data, Tokens: n})
	}
}

// digits matches a number (integer, decimal or C++ %g exponent form).
var digits = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)?(?:e[+-][0-9]+)?`)

// volatileKeys depend on the build, the clock or the machine.
var volatileKeys = map[string]bool{
	"loadgen_version": true, "loadgen_build_date_local": true, "loadgen_build_date_utc": true,
	"loadgen_git_commit_date": true, "loadgen_git_log_message": true,
	"loadgen_git_status_message": true, "loadgen_file_sha1": true, "test_datetime": true,
	"power_begin": true, "power_end": true, "qsl_name": true, "sut_name": true,
}

// jsonQuote writes s as Python's json.dumps does (ASCII only here).
func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// shape renders a log folder as make_golden.py does.
func shape(t *testing.T, dir, mode string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("== detail\n")
	f, err := os.Open(filepath.Join(dir, "mlperf_log_detail.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), ":::MLLOG ")
		if !ok {
			continue
		}
		var e struct {
			Key      string          `json:"key"`
			Value    json.RawMessage `json:"value"`
			Metadata struct {
				IsError   bool `json:"is_error"`
				IsWarning bool `json:"is_warning"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("detail log line %q: %v", line, err)
		}
		b.WriteString(e.Key)
		flags := ""
		if e.Metadata.IsError {
			flags += "E"
		}
		if e.Metadata.IsWarning {
			flags += "W"
		}
		if flags != "" {
			b.WriteString(" [" + flags + "]")
		}
		if !volatileKeys[e.Key] {
			var v any
			json.Unmarshal(e.Value, &v)
			switch x := v.(type) {
			case bool:
				fmt.Fprintf(&b, " = %t", x)
			case string:
				b.WriteString(" = " + jsonQuote(digits.ReplaceAllString(x, "N")))
			}
		}
		b.WriteByte('\n')
	}
	b.WriteString("== summary\n")
	sum, err := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(digits.ReplaceAllString(string(sum), "N"))
	b.WriteString("== accuracy\n")
	acc, err := os.ReadFile(filepath.Join(dir, "mlperf_log_accuracy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(acc, &entries); err != nil {
		t.Fatalf("accuracy log: %v", err)
	}
	if len(entries) > 0 {
		b.WriteString("fields " + strings.Join(jsonKeys(t, entries[0]), " ") + "\n")
	}
	if mode != "performance" {
		fmt.Fprintf(&b, "entries %d\n", len(entries))
	}
	return b.String()
}

// jsonKeys returns an object's keys in their order in the text.
func jsonKeys(t *testing.T, raw json.RawMessage) []string {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.Token() // {
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	return keys
}

func TestLogShapesMatchLoadGen(t *testing.T) {
	cases, err := os.ReadFile("testdata/logshape/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(cases), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		name, scName, modeName, tokens, model, conf, audit := fields[0], fields[1], fields[2], fields[3] == "1", fields[4], fields[5], fields[6]
		var total, perf int
		fmt.Sscan(fields[7], &total)
		fmt.Sscan(fields[8], &perf)
		t.Run(name, func(t *testing.T) {
			sc, err := loadgen.ParseScenario(scName)
			if err != nil {
				t.Fatal(err)
			}
			mode, err := loadgen.ParseMode(modeName)
			if err != nil {
				t.Fatal(err)
			}
			auditPath := ""
			if audit != "-" {
				auditPath = filepath.Join("testdata/logshape", audit)
			}
			s, err := loadgen.LoadConfigs(model, sc, mode, "", filepath.Join("testdata/logshape", conf), auditPath)
			if err != nil {
				t.Fatal(err)
			}
			var sut loadgen.SUT = &loadgentest.NullSUT{}
			if tokens {
				sut = &shapeTokenSUT{offline: sc == loadgen.Offline}
			}
			dir := t.TempDir()
			logs := loadgen.DefaultLogSettings()
			logs.OutDir = dir
			if _, err := loadgen.Run(context.Background(), sut, &loadgentest.MemQSL{Total: total, Performance: perf}, s, logs); err != nil {
				t.Fatal(err)
			}
			got := shape(t, dir, modeName)
			want, err := os.ReadFile(filepath.Join("testdata/logshape", name+".shape"))
			if err != nil {
				t.Fatal(err)
			}
			if d := firstDiff(string(want), got); d != "" {
				t.Errorf("log shape differs from the C++ LoadGen's:\n%s", d)
			}
		})
	}
}

// stallSUT is a NullSUT whose first query waits for stall before it
// completes, as a run does when the machine's load takes the CPU away.
type stallSUT struct {
	loadgentest.NullSUT
	stall time.Duration
	once  sync.Once
}

func (s *stallSUT) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	s.once.Do(func() { time.Sleep(s.stall) })
	s.NullSUT.IssueQuery(ctx, samples, c)
}

// TestValidSingleStreamShapeHoldsWhenTheRunStalls runs the valid
// SingleStream case with its first query held past the min duration, so the
// run ends at min_query_count, the fewest queries a loaded machine can give:
// the shape must still be the C++ LoadGen's (both early-stopping estimates).
// With min_query_count 600 it was not: 600 queries are too few for the 99th
// percentile estimate.
func TestValidSingleStreamShapeHoldsWhenTheRunStalls(t *testing.T) {
	s, err := loadgen.LoadConfigs("resnet50", loadgen.SingleStream, loadgen.PerformanceOnly, "", "testdata/logshape/valid.conf", "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = dir
	sut := &stallSUT{stall: 2 * time.Duration(s.MinDurationMs) * time.Millisecond}
	r, err := loadgen.Run(context.Background(), sut, &loadgentest.MemQSL{Total: 1024, Performance: 1024}, s, logs)
	if err != nil {
		t.Fatal(err)
	}
	if r.QueryCount != int(s.MinQueryCount) {
		t.Fatalf("the stalled run processed %d queries, want exactly min_query_count %d", r.QueryCount, s.MinQueryCount)
	}
	want, err := os.ReadFile("testdata/logshape/resnet_SingleStream_valid.shape")
	if err != nil {
		t.Fatal(err)
	}
	if d := firstDiff(string(want), shape(t, dir, "performance")); d != "" {
		t.Errorf("log shape of the stalled run differs from the C++ LoadGen's:\n%s", d)
	}
}

// firstDiff reports the first differing line of two shapes with context.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			lo := max(0, i-3)
			return fmt.Sprintf("line %d:\n  context: %s\n  LoadGen: %s\n  ours:    %s", i+1, strings.Join(w[lo:i], " | "), wl, gl)
		}
	}
	return ""
}
