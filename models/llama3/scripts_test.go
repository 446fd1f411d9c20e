package llama3

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

// r2Bucket serves R2-style metadata for several data sets:
// /metadata/NAME.uri → the base URL, /metadata/NAME.md5 → "MD5  FILE",
// /bucket/NAME/FILE → the bytes; lie replaces a listed MD5.
func r2Bucket(t *testing.T, files map[string]map[string][]byte, lie map[string]string) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for name, fs := range files {
			switch r.URL.Path {
			case "/metadata/" + name + ".uri":
				fmt.Fprintf(w, "http://%s/bucket/%s\n", r.Host, name)
				return
			case "/metadata/" + name + ".md5":
				for f, b := range fs {
					sum := scripttest.MD5Hex(b)
					if v, ok := lie[f]; ok {
						sum = v
					}
					fmt.Fprintf(w, "%s  ./%s\n", sum, f)
				}
				return
			}
			for f, b := range fs {
				if r.URL.Path == "/bucket/"+name+"/"+f {
					hits.Add(1)
					w.Write(b)
					return
				}
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func runScript(t *testing.T, script string, env []string, args ...string) (string, bool) {
	t.Helper()
	return scripttest.Run(t, script, append([]string{"MLC_R2_NO_LOGIN=1", "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}, env...), args...)
}

var llama3Sets = map[string]map[string][]byte{
	"llama3-1-8b-cnn-eval":                  {"cnn_eval.json": []byte(`[{"datacenter": 1}]`)},
	"llama3-1-8b-sample-cnn-eval-5000":      {"sample_cnn_eval_5000.json": []byte(`[{"edge": 1}]`)},
	"llama3-1-8b-cnn-dailymail-calibration": {"cnn_dailymail_calibration.json": []byte(`[{"calibration": 1}]`)},
}

func TestDownloadDataset(t *testing.T) {
	scripttest.NeedDownloader(t)
	srv, hits := r2Bucket(t, llama3Sets, nil)
	env := []string{"LLAMA3_METADATA_BASE=" + srv.URL + "/metadata"}
	dir := filepath.Join(t.TempDir(), "llama3.1-8b")
	out, ok := runScript(t, "download_dataset.sh", env, "-d", dir)
	if !ok {
		t.Fatalf("download failed:\n%s", out)
	}
	for _, f := range []string{"cnn_eval.json", "sample_cnn_eval_5000.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s missing: %v\n%s", f, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "cnn_dailymail_calibration.json")); err == nil {
		t.Error("calibration downloaded without being asked for")
	}
	before := hits.Load()
	if out, ok := runScript(t, "download_dataset.sh", env, "-d", dir, "datacenter", "calibration"); !ok || hits.Load() != before+1 {
		t.Errorf("second run: ok=%v, %d new downloads (want 1, the calibration file):\n%s", ok, hits.Load()-before, out)
	}
	if out, ok := runScript(t, "download_dataset.sh", env, "-d", dir, "mixtral"); ok || !strings.Contains(out, "unknown data set") {
		t.Errorf("unknown set: ok=%v\n%s", ok, out)
	}
}

func TestDownloadDatasetChecksumMismatch(t *testing.T) {
	scripttest.NeedDownloader(t)
	srv, _ := r2Bucket(t, llama3Sets, map[string]string{"cnn_eval.json": "00000000000000000000000000000000"})
	dir := t.TempDir()
	out, ok := runScript(t, "download_dataset.sh", []string{"LLAMA3_METADATA_BASE=" + srv.URL + "/metadata"}, "-d", dir, "datacenter")
	if ok {
		t.Fatalf("a file with the wrong MD5 was accepted:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "cnn_eval.json")); err == nil {
		t.Error("the bad download was kept")
	}
}

func TestVerifyDatasetChecksMD5List(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cnn_eval.json")
	os.WriteFile(file, []byte("[]"), 0o644)
	os.WriteFile(filepath.Join(dir, "llama3-1-8b-cnn-eval.md5"), []byte("00000000000000000000000000000000  ./cnn_eval.json\n"), 0o644)
	if out, ok := runScript(t, "verify_dataset.sh", []string{"MLPERF=true"}, file); ok || !strings.Contains(out, "md5") {
		t.Errorf("MD5 mismatch passed:\n%s", out)
	}
	os.WriteFile(filepath.Join(dir, "llama3-1-8b-cnn-eval.md5"), []byte(scripttest.MD5Hex([]byte("[]"))+"  cnn_eval.json\n"), 0o644)
	if out, ok := runScript(t, "verify_dataset.sh", []string{"MLPERF=true"}, file); !ok || !strings.Contains(out, "md5 ok") {
		t.Errorf("good MD5 failed:\n%s", out)
	}
	if out, ok := runScript(t, "verify_dataset.sh", nil, filepath.Join(dir, "absent.json")); ok || !strings.Contains(out, "download_dataset.sh") {
		t.Errorf("missing file:\n%s", out)
	}
}

func TestDownloadModel(t *testing.T) {
	scripttest.NeedDownloader(t)
	const name = "llama3-1-8b-instruct"
	config := `{
  "architectures": ["LlamaForCausalLM"],
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "max_position_embeddings": 131072,
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0,
  "vocab_size": 128256
}`
	files := map[string][]byte{
		"config.json":                      []byte(config),
		"model-00001-of-00004.safetensors": []byte("weights 1"),
		"tokenizer.json":                   []byte("{}"),
	}
	srv, hits := r2Bucket(t, map[string]map[string][]byte{name: files}, nil)
	env := []string{"LLAMA3_MODEL_METADATA_URL=" + srv.URL + "/metadata/" + name + ".uri"}
	dir := filepath.Join(t.TempDir(), "Llama-3.1-8B-Instruct")
	out, ok := runScript(t, "download_model.sh", env, "-d", dir)
	if !ok || !strings.Contains(out, "describes Llama-3.1-8B") || !strings.Contains(out, "llama3-1.mlcommons.org") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	out, ok = runScript(t, "download_model.sh", env, "-d", dir, "-c")
	if !ok || !strings.Contains(out, "match "+name+".md5") || hits.Load() != int64(len(files)) {
		t.Fatalf("check: ok=%v, hits %d:\n%s", ok, hits.Load(), out)
	}
	os.Remove(filepath.Join(dir, name+".md5"))
	for what, cfg := range map[string]string{
		"Llama 3 (no llama3 rope)": strings.Replace(config, `"rope_type": "llama3"`, `"rope_type": "default"`, 1),
		"Llama 2 vocabulary":       strings.Replace(config, `"vocab_size": 128256`, `"vocab_size": 32000`, 1),
		"70B":                      strings.Replace(config, `"num_hidden_layers": 32`, `"num_hidden_layers": 80`, 1),
	} {
		os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644)
		if out, ok := runScript(t, "download_model.sh", env, "-d", dir, "-c"); ok || !strings.Contains(out, "is not Llama-3.1-8B's") {
			t.Errorf("%s accepted:\n%s", what, out)
		}
	}
	for _, args := range [][]string{{"-s", "kaggle"}, {"-d", filepath.Join(t.TempDir(), "none"), "-c"}} {
		if out, ok := runScript(t, "download_model.sh", env, args...); ok {
			t.Errorf("%v succeeded:\n%s", args, out)
		}
	}
}

func TestRunAndTime(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nexit 3\n"), 0o755)
	out, ok := runScript(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--model-name", "llama3_1-8b-edge")
	if ok || !strings.Contains(out, "args: run llama3.1-8b --model-name llama3_1-8b-edge") || !strings.Contains(out, "exit status 3") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}
