package submission

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/compliance"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// int64SUT answers sample i with 3 + i%5 int64 ids (as GPT-J's
// responses), the first one through FirstToken.
type int64SUT struct{}

func (int64SUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	tc, _ := c.(loadgen.TokenCompleter)
	for _, s := range samples {
		n := 3 + int(s.Index%5)
		data := make([]byte, 8*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint64(data[8*i:], uint64(int(s.Index)*10+i+3))
		}
		if tc != nil {
			tc.FirstToken(s.ID, data[:8])
		}
		c.Complete(loadgen.Response{ID: s.ID, Data: data, Tokens: n})
	}
}

// The tree verifies TEST06 reading the responses as Tree.TEST06DType
// (run_verification.py's -d): int64 responses pass as int64 and fail the
// length check read as the script's default int32 (twice the ids).
func TestTreeVerifiesTEST06AsTheBenchmarksDType(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "user.conf")
	os.WriteFile(conf, []byte("*.*.min_duration = 10\n*.*.min_query_count = 20\n*.*.performance_sample_count_override = 64\n*.Server.target_qps = 1000\n"), 0o644)
	audit := filepath.Join(dir, "audit.config")
	a, _ := compliance.AuditConfig("TEST06", "llama2-70b")
	os.WriteFile(audit, []byte(a), 0o644)
	runs := filepath.Join(dir, "runs")
	for _, r := range []struct {
		out   string
		mode  loadgen.Mode
		audit string
	}{{"performance", loadgen.PerformanceOnly, ""}, {"accuracy", loadgen.AccuracyOnly, ""}, {"TEST06", loadgen.PerformanceOnly, audit}} {
		s, err := loadgen.LoadConfigs("llama2-70b", loadgen.Server, r.mode, "", conf, r.audit)
		if err != nil {
			t.Fatal(err)
		}
		logs := loadgen.DefaultLogSettings()
		logs.OutDir = filepath.Join(runs, r.out)
		if _, err := loadgen.Run(context.Background(), int64SUT{}, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(runs, "accuracy", "accuracy.txt"), []byte("{'rouge1': 0.0}\n"), 0o644)
	for _, tc := range []struct{ dtype, length string }{{"int64", "True"}, {"", "False"}} {
		out := filepath.Join(dir, "tree-"+tc.dtype)
		tree := &Tree{Out: out, Division: "closed", Submitter: "Tester", System: "box",
			SystemJSON: SystemTemplate("box", "datacenter"), Benchmark: "llama2-70b-99.9", TEST06DType: tc.dtype, EOS: 50256,
			Measurements: Measurements{"m.onnx", "no", "int64", "fp32", "none"},
			Scenarios: []Scenario{{Name: "Server", Performance: filepath.Join(runs, "performance"), Accuracy: filepath.Join(runs, "accuracy"),
				Compliance: map[string]string{"TEST06": filepath.Join(runs, "TEST06")}, UserConf: conf, Command: "go test ./submission"}}}
		if _, err := tree.Write(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, "closed/Tester/results/box/llama2-70b-99.9/Server/TEST06/verify_accuracy.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if want := "Sample length check pass: " + tc.length + "\n"; !strings.Contains(string(got), want) {
			t.Errorf("TEST06DType %q: verify_accuracy.txt\n%s\nwant %q", tc.dtype, got, want)
		}
	}
}
