package submission

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/check"
	"github.com/mlperf-go/inference/compliance"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// llmSUT answers sample i with 3 + i%5 int32 tokens (never the EOS id 2
// twice at the end), the first one through FirstToken.
type llmSUT struct{}

func (llmSUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	tc, _ := c.(loadgen.TokenCompleter)
	for _, s := range samples {
		n := 3 + int(s.Index%5)
		data := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(data[4*i:], uint32(int(s.Index)*10+i+3))
		}
		if tc != nil {
			tc.FirstToken(s.ID, data[:4])
		}
		c.Complete(loadgen.Response{ID: s.ID, Data: data, Tokens: n})
	}
}

func llmRun(t *testing.T, out string, sc loadgen.Scenario, mode loadgen.Mode, conf, audit string) {
	t.Helper()
	s, err := loadgen.LoadConfigs("llama2-70b", sc, mode, "", conf, audit)
	if err != nil {
		t.Fatal(err)
	}
	logs := loadgen.DefaultLogSettings()
	logs.OutDir = out
	if _, err := loadgen.Run(context.Background(), llmSUT{}, &loadgentest.MemQSL{Total: 64, Performance: 64}, s, logs); err != nil {
		t.Fatal(err)
	}
}

// An llama2-70b-99.9 tree (Offline, Server, TEST06) from token-latency
// runs: the checker's LLM checks (token latencies on, TTFT/TPOT p99 under
// the Server limits, TEST06's three lines) pass, and what fails are the
// gates a short synthetic run cannot meet.
func TestLLMTreeWithTEST06(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "user.conf")
	os.WriteFile(conf, []byte("*.*.min_duration = 100\n*.*.min_query_count = 100\n*.*.performance_sample_count_override = 64\nllama2-70b.Offline.min_query_count = 100\n*.Server.target_qps = 1000\n*.Server.min_query_count = 600\n*.Offline.target_qps = 1000\n"), 0o644)
	audit := filepath.Join(dir, "audit.config")
	a, _ := compliance.AuditConfig("TEST06", "llama2-70b")
	os.WriteFile(audit, []byte(a), 0o644)
	tree := &Tree{Out: filepath.Join(dir, "tree"), Division: "closed", Submitter: "Tester", System: "box",
		SystemJSON: SystemTemplate("box", "datacenter"), Benchmark: "llama2-70b-99.9",
		Measurements: Measurements{"llama2-70b.onnx", "no", "int64", "fp32", "none"}}
	for _, sc := range []loadgen.Scenario{loadgen.Offline, loadgen.Server} {
		runs := filepath.Join(dir, sc.String())
		llmRun(t, filepath.Join(runs, "performance"), sc, loadgen.PerformanceOnly, conf, "")
		llmRun(t, filepath.Join(runs, "accuracy"), sc, loadgen.AccuracyOnly, conf, "")
		llmRun(t, filepath.Join(runs, "TEST06"), sc, loadgen.PerformanceOnly, conf, audit)
		// The synthetic answers score nothing: an honest accuracy.txt.
		os.WriteFile(filepath.Join(runs, "accuracy", "accuracy.txt"), []byte("{'rouge1': 0.0, 'rouge2': 0.0, 'rougeL': 0.0, 'rougeLsum': 0.0, 'gen_len': 0, 'gen_num': 64, 'gen_tok_len': 320, 'tokens_per_sample': 5.0}\n"), 0o644)
		tree.Scenarios = append(tree.Scenarios, Scenario{Name: sc.String(), Performance: filepath.Join(runs, "performance"), Accuracy: filepath.Join(runs, "accuracy"),
			Compliance: map[string]string{"TEST06": filepath.Join(runs, "TEST06")}, UserConf: conf, Command: "go test ./submission -run TestLLMTreeWithTEST06"})
	}
	if _, err := tree.Write(); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "tree/closed/Tester/results/box/llama2-70b-99.9")
	for _, sc := range []string{"Offline", "Server"} {
		va, err := os.ReadFile(filepath.Join(base, sc, "TEST06/verify_accuracy.txt"))
		first := "True"
		if sc == "Offline" {
			first = "Skipped"
		}
		if want := fmt.Sprintf("First token check pass: %s\nEOS check pass: True\nSample length check pass: True\nTEST06 verification complete\n", first); err != nil || string(va) != want {
			t.Errorf("%s TEST06/verify_accuracy.txt: %v\n%s", sc, err, va)
		}
	}
	rep, err := check.Check(filepath.Join(dir, "tree"), check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	llmGates := regexp.MustCompile(`Test duration less than 600s|accurcy run does not cover all dataset|performance_sample_count, found|Required minimum samples per query|accuracy not met|^Some (performance|accuracy) checks Checks failed for|^NoResults `)
	sawAccuracy := false
	for _, l := range rep.Lines {
		if !llmGates.MatchString(l.Text) {
			t.Errorf("checker error beyond the short-run gates: %s", l)
		}
		sawAccuracy = sawAccuracy || regexp.MustCompile(`accuracy not met`).MatchString(l.Text)
	}
	if !sawAccuracy {
		t.Errorf("ROUGE 0 passed the accuracy targets: %v", rep.Lines)
	}
}

func TestNetworkDivisionSystemSaysSo(t *testing.T) {
	for _, div := range []string{"network", "closed"} {
		dir := t.TempDir()
		tree := &Tree{Out: dir, Division: div, Submitter: "Tester", System: "box", SystemJSON: SystemTemplate("box", "datacenter"), Benchmark: "resnet"}
		if _, err := tree.Write(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, div, "Tester", "systems", "box.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), `"is_network": "True"`); got != (div == "network") {
			t.Errorf("%s division: is_network True %v in\n%s", div, got, b)
		}
	}
}
