package loadgen_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// tokenSUT answers each sample with three int32 tokens: it reports the
// first through FirstToken, waits, then completes with all three.
type tokenSUT struct{ gap time.Duration }

func (s tokenSUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	tc, ok := c.(loadgen.TokenCompleter)
	for _, x := range samples {
		data := make([]byte, 12)
		for k := 0; k < 3; k++ {
			binary.LittleEndian.PutUint32(data[4*k:], uint32(x.Index)*10+uint32(k))
		}
		if ok {
			tc.FirstToken(x.ID, data[:4])
		}
		time.Sleep(s.gap)
		c.Complete(loadgen.Response{ID: x.ID, Data: data, Tokens: 3})
	}
}

func TestTokenLatenciesAndTEST06Fields(t *testing.T) {
	s := settings(t, loadgen.Server, loadgen.AccuracyOnly, "*.*.use_token_latencies = 1\n")
	q := &loadgentest.MemQSL{Total: 20, Performance: 20}
	_, dir := run(t, tokenSUT{}, q, s)
	data, err := os.ReadFile(filepath.Join(dir, "mlperf_log_accuracy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		Data       string `json:"data"`
		TokenData  string `json:"token_data"`
		TokenCount int    `json:"token_count"`
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 20 {
		t.Fatalf("%d entries", len(entries))
	}
	for _, e := range entries {
		// TEST06: the first token equals data[0] and token_count is the length.
		if e.TokenData == "" || !strings.HasPrefix(e.Data, e.TokenData) || e.TokenCount != len(e.Data)/8 {
			t.Fatalf("entry %+v breaks the TEST06 checks", e)
		}
	}

	s = settings(t, loadgen.Server, loadgen.PerformanceOnly, "*.*.use_token_latencies = 1\n*.*.min_duration = 100\n*.*.min_query_count = 50\n*.Server.target_qps = 500\n")
	res, dir := run(t, tokenSUT{gap: 200 * time.Microsecond}, q, s)
	if res.TTFT.Count != res.SampleCount || res.TPOT.Count != res.SampleCount {
		t.Fatalf("TTFT %d / TPOT %d latencies for %d samples", res.TTFT.Count, res.TPOT.Count, res.SampleCount)
	}
	if res.Tokens != int64(3*res.SampleCount) || res.TokensPerSec <= 0 {
		t.Fatalf("tokens %d, %v tokens/s", res.Tokens, res.TokensPerSec)
	}
	// TPOT is (completion - first token) / (tokens - 1): at least gap/2.
	if res.TPOT.Min < int64(100*time.Microsecond) {
		t.Fatalf("TPOT min %d ns, want at least 100000", res.TPOT.Min)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
	for _, want := range []string{"Completed tokens per second: ", "ttft_latency (ns): ", "50.00 percentile first token latency (ns)   : ", "Min Time per Output Token (ns)                : ", "99.90 percentile time to output token (ns)   : "} {
		if !strings.Contains(string(summary), want) {
			t.Errorf("summary lacks %q", want)
		}
	}
}

// With token latencies LoadGen judges early stopping on TPOT against
// Server.tpot_latency and then on TTFT against Server.ttft_latency, not on
// the whole-sample latency against target_latency (0 for llama2-70b in
// mlperf.conf); the summary and detail log name the two results.
func TestTokenEarlyStoppingUsesTTFTAndTPOTBounds(t *testing.T) {
	q := &loadgentest.MemQSL{Total: 20, Performance: 20}
	base := "*.*.use_token_latencies = 1\n*.*.min_duration = 50\n*.*.min_query_count = 500\n*.Server.target_qps = 20000\n*.Server.target_latency = 0\n"
	s := settings(t, loadgen.Server, loadgen.PerformanceOnly, base+"*.Server.ttft_latency = 10000\n*.Server.tpot_latency = 10000\n")
	res, dir := run(t, tokenSUT{}, q, s)
	if !res.EarlyStoppingMet || !res.Valid {
		t.Fatalf("generous TTFT/TPOT bounds: early stopping %v, valid %v (%v)", res.EarlyStoppingMet, res.Valid, res.InvalidReasons)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
	detail, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
	for _, want := range []string{"TTFT Early Stopping Result:\n * Run successful.\nTPOT Early Stopping Result:\n * Run successful.\n", "Completed tokens per second                 : "} {
		if !strings.Contains(string(summary), want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	for _, want := range []string{`"early_stopping_ttft_result", "value": " * Run successful."`, `"early_stopping_tpot_result", "value": " * Run successful."`} {
		if !strings.Contains(string(detail), want) {
			t.Errorf("detail log lacks %s", want)
		}
	}
	if strings.Contains(string(detail), `"early_stopping_result"`) {
		t.Error("detail log has early_stopping_result in a token-latency run")
	}

	// A TPOT bound of 1 ns puts every sample over it: TPOT early stopping
	// fails and, as in LoadGen, TTFT is not evaluated.
	s = settings(t, loadgen.Server, loadgen.PerformanceOnly, base+"*.Server.ttft_latency = 10000\n*.Server.tpot_latency = 0.000001\n")
	res, dir = run(t, tokenSUT{gap: 20 * time.Microsecond}, q, s)
	if res.EarlyStoppingMet || res.Valid || len(res.EarlyStoppingTTFT) != 0 || len(res.EarlyStoppingTPOT) == 0 || res.EarlyStoppingTPOT[0] != " * Run unsuccessful." {
		t.Fatalf("TPOT bound 1 ns: met %v, valid %v, TTFT %q, TPOT %q", res.EarlyStoppingMet, res.Valid, res.EarlyStoppingTTFT, res.EarlyStoppingTPOT)
	}
	detail, _ = os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
	if !strings.Contains(string(detail), `"early_stopping_tpot_result", "value": " * Run unsuccessful.  * Processed `) {
		t.Errorf("detail log: the TPOT result should be one line with LoadGen's spacing")
	}
}

// infer_token_latencies: LoadGen reports token_latency_scaling_factor ×
// the samples per second as the inferred token throughput.
func TestInferredTokenThroughput(t *testing.T) {
	q := &loadgentest.MemQSL{Total: 20, Performance: 20}
	s := settings(t, loadgen.Offline, loadgen.PerformanceOnly, "*.*.infer_token_latencies = 1\n*.*.token_latency_scaling_factor = 69\n*.*.min_duration = 10\n")
	res, dir := run(t, &loadgentest.NullSUT{}, q, s)
	if res.InferredTokensPerSec != 69*res.SamplesPerSec || res.InferredTokensPerSec <= 0 {
		t.Fatalf("inferred %v tokens/s for %v samples/s, want 69×", res.InferredTokensPerSec, res.SamplesPerSec)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_summary.txt"))
	detail, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_detail.txt"))
	if !strings.Contains(string(summary), "Tokens per second (inferred): ") || !strings.Contains(string(detail), `"result_inferred_tokens_per_second"`) {
		t.Errorf("no inferred token throughput in the logs:\n%s", summary)
	}
}
