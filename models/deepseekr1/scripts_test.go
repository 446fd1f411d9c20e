package deepseekr1

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

var dsSets = map[string]map[string][]byte{
	"deepseek-r1-datasets-fp8-eval": {
		dataFileName:        []byte("eval pickle"),
		calibrationFileName: []byte("calibration pickle"),
	},
}

// TestDownloadDataset: the script fetches both files of the reference's
// metadata from an R2-style server, checks them against its MD5 list, and
// fetches nothing again on a second run.
func TestDownloadDataset(t *testing.T) {
	scripttest.NeedDownloader(t)
	srv, hits := scripttest.R2Bucket(t, dsSets, nil)
	env := []string{"DEEPSEEK_R1_METADATA_BASE=" + srv.URL + "/metadata"}
	dir := filepath.Join(t.TempDir(), "deepseek-r1")
	out, ok := runScript(t, "download_dataset.sh", env, "-d", dir)
	if !ok || !strings.Contains(out, dataFileName) {
		t.Fatalf("download failed:\n%s", out)
	}
	for f, b := range dsSets["deepseek-r1-datasets-fp8-eval"] {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || string(got) != string(b) {
			t.Errorf("%s: %q %v", f, got, err)
		}
	}
	before := hits.Load()
	if out, ok := runScript(t, "download_dataset.sh", env, "-d", dir); !ok || hits.Load() != before {
		t.Errorf("second run: ok=%v, %d new downloads:\n%s", ok, hits.Load()-before, out)
	}
	if out, ok := runScript(t, "download_dataset.sh", env, "-d", dir, "extra"); ok {
		t.Errorf("an extra argument was accepted:\n%s", out)
	}
}

func TestDownloadDatasetChecksumMismatch(t *testing.T) {
	scripttest.NeedDownloader(t)
	srv, _ := scripttest.R2Bucket(t, dsSets, map[string]string{dataFileName: "00000000000000000000000000000000"})
	dir := t.TempDir()
	out, ok := runScript(t, "download_dataset.sh", []string{"DEEPSEEK_R1_METADATA_BASE=" + srv.URL + "/metadata"}, "-d", dir)
	if ok {
		t.Fatalf("a file with the wrong MD5 was accepted:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, dataFileName)); err == nil {
		t.Error("the bad download was kept")
	}
}

func TestVerifyDatasetChecksMD5List(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, dataFileName)
	os.WriteFile(file, []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "deepseek-r1-datasets-fp8-eval.md5"), []byte("00000000000000000000000000000000  ./"+dataFileName+"\n"), 0o644)
	if out, ok := runScript(t, "verify_dataset.sh", []string{"MLPERF=true"}, file); ok || !strings.Contains(out, "md5") {
		t.Errorf("MD5 mismatch passed:\n%s", out)
	}
	os.WriteFile(filepath.Join(dir, "deepseek-r1-datasets-fp8-eval.md5"), []byte(scripttest.MD5Hex([]byte("x"))+"  ./"+dataFileName+"\n"), 0o644)
	if out, ok := runScript(t, "verify_dataset.sh", []string{"MLPERF=true"}, file); !ok || !strings.Contains(out, "md5 ok") {
		t.Errorf("good MD5 failed:\n%s", out)
	}
	if out, ok := runScript(t, "verify_dataset.sh", nil, filepath.Join(dir, "absent.pkl")); ok || !strings.Contains(out, "download_dataset.sh") {
		t.Errorf("missing file:\n%s", out)
	}
}

func TestRunAndTime(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nexit 3\n"), 0o755)
	out, ok := runScript(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--backend", "sglang")
	if ok || !strings.Contains(out, "args: run deepseek-r1 --backend sglang") || !strings.Contains(out, "exit status 3") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}

// TestDownloadModel: the checkpoint comes from its R2 metadata with its
// MD5 list, -c checks it again, and a config.json of another model is
// refused.
func TestDownloadModel(t *testing.T) {
	scripttest.NeedDownloader(t)
	config := `{"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "num_hidden_layers": 61, "vocab_size": 129280}`
	files := map[string][]byte{"config.json": []byte(config), "model-00001-of-000163.safetensors": []byte("weights")}
	srv, hits := scripttest.R2Bucket(t, map[string]map[string][]byte{"deepseek-r1": files}, nil)
	env := []string{"DEEPSEEK_R1_MODEL_METADATA_URL=" + srv.URL + "/metadata/deepseek-r1.uri"}
	dir := filepath.Join(t.TempDir(), "DeepSeek-R1")
	if out, ok := runScript(t, "download_model.sh", env, "-d", dir); !ok || !strings.Contains(out, "describes DeepSeek-R1") || hits.Load() != 2 {
		t.Fatalf("ok=%v hits=%d:\n%s", ok, hits.Load(), out)
	}
	if out, ok := runScript(t, "download_model.sh", env, "-d", dir, "-c"); !ok || !strings.Contains(out, "match deepseek-r1.md5") {
		t.Errorf("check: ok=%v\n%s", ok, out)
	}
	os.WriteFile(filepath.Join(dir, "model-00001-of-000163.safetensors"), []byte("changed"), 0o644)
	if out, ok := runScript(t, "download_model.sh", env, "-d", dir, "-c"); ok {
		t.Errorf("a changed file passed:\n%s", out)
	}
	os.Remove(filepath.Join(dir, "deepseek-r1.md5"))
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(strings.Replace(config, "129280", "102400", 1)), 0o644)
	if out, ok := runScript(t, "download_model.sh", env, "-d", dir, "-c"); ok || !strings.Contains(out, "not DeepSeek-R1's") {
		t.Errorf("DeepSeek-V2's vocabulary passed:\n%s", out)
	}
}
