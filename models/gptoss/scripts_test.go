package gptoss

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

func runScript(t *testing.T, script string, env []string, args ...string) (string, bool) {
	t.Helper()
	return scripttest.Run(t, script, append([]string{"MLC_R2_NO_LOGIN=1", "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}, env...), args...)
}

var gptossSets = map[string]map[string][]byte{
	"gpt-oss-data": {
		accFile:        []byte("acc parquet"),
		perfFile:       []byte("perf parquet"),
		complianceFile: []byte("gpqa parquet"),
	},
}

// TestDownloadDataset: the script fetches the three sets into their
// folders from an R2-style server, checks them against its MD5 list, and
// verify_dataset.sh checks them against that list again.
func TestDownloadDataset(t *testing.T) {
	scripttest.NeedDownloader(t)
	srv, hits := scripttest.R2Bucket(t, gptossSets, nil)
	env := []string{"GPTOSS_METADATA_BASE=" + srv.URL + "/metadata"}
	dir := filepath.Join(t.TempDir(), "gpt-oss-120b")
	out, ok := runScript(t, "download_dataset.sh", env, "-d", dir)
	if !ok || hits.Load() != 3 {
		t.Fatalf("download failed (%d files):\n%s", hits.Load(), out)
	}
	for f, b := range gptossSets["gpt-oss-data"] {
		if got, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(got) != string(b) {
			t.Errorf("%s: %q %v", f, got, err)
		}
	}
	if out, ok := runScript(t, "verify_dataset.sh", []string{"MLPERF=true"}, dir); !ok || !strings.Contains(out, "md5 ok") {
		t.Errorf("verify of the download:\n%s", out)
	}
	os.WriteFile(filepath.Join(dir, perfFile), []byte("changed"), 0o644)
	if out, ok := runScript(t, "verify_dataset.sh", []string{"MLPERF=true"}, dir); ok {
		t.Errorf("a changed file passed:\n%s", out)
	}
}

func TestDownloadDatasetMissingSetAndBadMD5(t *testing.T) {
	scripttest.NeedDownloader(t)
	partial := map[string]map[string][]byte{"gpt-oss-data": {accFile: []byte("acc parquet")}}
	srv, _ := scripttest.R2Bucket(t, partial, nil)
	out, ok := runScript(t, "download_dataset.sh", []string{"GPTOSS_METADATA_BASE=" + srv.URL + "/metadata"}, "-d", t.TempDir())
	if ok || !strings.Contains(out, perfFile) {
		t.Errorf("a download without the perf set passed:\n%s", out)
	}
	srv2, _ := scripttest.R2Bucket(t, gptossSets, map[string]string{perfFile: "00000000000000000000000000000000"})
	dir := t.TempDir()
	if out, ok := runScript(t, "download_dataset.sh", []string{"GPTOSS_METADATA_BASE=" + srv2.URL + "/metadata"}, "-d", dir); ok {
		t.Errorf("a wrong MD5 passed:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, perfFile)); err == nil {
		t.Error("the bad file was kept")
	}
}

func TestRunAndTime(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nexit 3\n"), 0o755)
	out, ok := runScript(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--backend", "sglang")
	if ok || !strings.Contains(out, "args: run gpt-oss-120b --backend sglang") || !strings.Contains(out, "exit status 3") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}

// TestDownloadModel: the checkpoint comes from its R2 metadata with its
// MD5 list, -c checks it again, and gpt-oss-20b's config.json is refused.
func TestDownloadModel(t *testing.T) {
	scripttest.NeedDownloader(t)
	config := `{"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "num_hidden_layers": 36, "vocab_size": 201088}`
	files := map[string][]byte{"config.json": []byte(config), "model-00000-of-00014.safetensors": []byte("weights")}
	srv, hits := scripttest.R2Bucket(t, map[string]map[string][]byte{"gpt-oss-model": files}, nil)
	env := []string{"GPTOSS_MODEL_METADATA_URL=" + srv.URL + "/metadata/gpt-oss-model.uri"}
	dir := filepath.Join(t.TempDir(), "gpt-oss-120b")
	if out, ok := runScript(t, "download_model.sh", env, "-d", dir); !ok || !strings.Contains(out, "describes gpt-oss-120b") || hits.Load() != 2 {
		t.Fatalf("ok=%v hits=%d:\n%s", ok, hits.Load(), out)
	}
	if out, ok := runScript(t, "download_model.sh", env, "-d", dir, "-c"); !ok || !strings.Contains(out, "match gpt-oss-model.md5") {
		t.Errorf("check: ok=%v\n%s", ok, out)
	}
	os.Remove(filepath.Join(dir, "gpt-oss-model.md5"))
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(strings.Replace(config, `"num_hidden_layers": 36`, `"num_hidden_layers": 24`, 1)), 0o644)
	if out, ok := runScript(t, "download_model.sh", env, "-d", dir, "-c"); ok || !strings.Contains(out, "not gpt-oss-120b's") {
		t.Errorf("gpt-oss-20b passed:\n%s", out)
	}
	if out, ok := runScript(t, "download_model.sh", env, "-d", filepath.Join(t.TempDir(), "none"), "-c"); ok {
		t.Errorf("-c on a missing folder passed:\n%s", out)
	}
}
