package main

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
)

// TestGPTJTEST06PassesWithReportedTokens runs `mlperf compliance test06
// gptj` (the test the v5.0 checker requires of gptj) on the tiny model in
// SingleStream and Offline. GPT-J's mlperf.conf infers its token
// latencies, so without more LoadGen logs no token counts or first tokens
// and TEST06 fails; the run must turn use_token_latencies on (in a
// user.conf beside its logs), log each response's id count and (not in
// Offline) its first id, and pass all three checks read as int64.
func TestGPTJTEST06PassesWithReportedTokens(t *testing.T) {
	orttest.Need(t)
	tokDir := gptjTestTokenizer(t)
	dir := t.TempDir()
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	for _, sc := range []string{"SingleStream", "Offline"} {
		results, work := filepath.Join(dir, sc, "results"), filepath.Join(dir, sc, "work")
		if err := os.MkdirAll(results, 0o755); err != nil {
			t.Fatal(err)
		}
		code, msg := runMlperf(t, env, "compliance", "test06", "gptj", "--results", results, "--work", work, "--scenario", sc,
			"--model", "synthetic:tiny", "--data", "synthetic", "--tokenizer", tokDir, "--count", "2", "--threads", "1", "--min-queries", "2")
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", sc, code, msg)
		}
		first := "True"
		if sc == "Offline" {
			first = "Skipped"
		}
		want := "First token check pass: " + first + "\nEOS check pass: True\nSample length check pass: True\nTEST06 verification complete\n"
		if got, err := os.ReadFile(filepath.Join(results, "TEST06", "verify_accuracy.txt")); err != nil || string(got) != want {
			t.Errorf("%s: verify_accuracy.txt %q (%v), want %q", sc, got, err, want)
		}
		if conf, err := os.ReadFile(filepath.Join(work, "user.conf")); err != nil || !strings.Contains(string(conf), "\ngptj.*.use_token_latencies = 1\n") {
			t.Errorf("%s: the TEST06 run's user.conf does not turn token latencies on: %q (%v)", sc, conf, err)
		}
		detail, err := os.ReadFile(filepath.Join(work, "mlperf_log_detail.txt"))
		if err != nil || !strings.Contains(string(detail), `"key": "requested_use_token_latencies", "value": true`) {
			t.Errorf("%s: detail log lacks requested_use_token_latencies true (%v)", sc, err)
		}
		b, err := os.ReadFile(filepath.Join(work, "mlperf_log_accuracy.json"))
		if err != nil {
			t.Fatal(err)
		}
		var entries []struct {
			Data       string `json:"data"`
			TokenCount *int   `json:"token_count"`
		}
		if err := json.Unmarshal(b, &entries); err != nil || len(entries) == 0 {
			t.Fatalf("%s: accuracy log: %v, %d entries", sc, err, len(entries))
		}
		var raw []map[string]any
		json.Unmarshal(b, &raw)
		for i, e := range entries {
			data, err := hex.DecodeString(e.Data)
			if err != nil || len(data) < 8 || len(data)%8 != 0 {
				t.Fatalf("%s: entry %d: data %q is not int64 ids", sc, i, e.Data)
			}
			if e.TokenCount == nil || *e.TokenCount != len(data)/8 {
				t.Errorf("%s: entry %d: token_count %v, want %d ids", sc, i, e.TokenCount, len(data)/8)
			}
			td, has := raw[i]["token_data"].(string)
			switch {
			case sc == "Offline" && has:
				t.Errorf("Offline: entry %d has token_data %q; LoadGen asks for no first token in Offline", i, td)
			case sc != "Offline" && td != e.Data[:16]:
				t.Errorf("%s: entry %d: token_data %q, want the first id %q", sc, i, td, e.Data[:16])
			}
		}
	}
}
