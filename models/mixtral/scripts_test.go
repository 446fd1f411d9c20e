package mixtral

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mlperf-go/inference/datasets/mixtral"
	"github.com/mlperf-go/inference/internal/scripttest"
)

// r2Bucket serves R2-style metadata for one checkpoint: /metadata/NAME.uri
// → the base URL, /metadata/NAME.md5 → "MD5  FILE", /bucket/NAME/FILE →
// the bytes.
func r2Bucket(t *testing.T, name string, files map[string][]byte) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metadata/" + name + ".uri":
			fmt.Fprintf(w, "http://%s/bucket/%s\n", r.Host, name)
			return
		case "/metadata/" + name + ".md5":
			for f, b := range files {
				fmt.Fprintf(w, "%s  ./%s\n", scripttest.MD5Hex(b), f)
			}
			return
		}
		for f, b := range files {
			if r.URL.Path == "/bucket/"+name+"/"+f {
				hits.Add(1)
				w.Write(b)
				return
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

// TestDownloadModel: the checkpoint comes through the R2 downloader from
// a local server, every file checked against the MD5 list; its
// config.json must be Mixtral-8x7B's (another expert count, top-k, width
// or vocabulary is refused); an unknown source and a missing folder fail.
func TestDownloadModel(t *testing.T) {
	scripttest.NeedDownloader(t)
	const name = "mixtral-8x7b-model-checkpoint"
	config := `{
  "architectures": ["MixtralForCausalLM"],
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "max_position_embeddings": 32768,
  "num_attention_heads": 32,
  "num_experts_per_tok": 2,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "num_local_experts": 8,
  "rope_theta": 1000000.0,
  "sliding_window": null,
  "vocab_size": 32000
}`
	files := map[string][]byte{
		"config.json":                      []byte(config),
		"model-00001-of-00019.safetensors": []byte("weights 1"),
		"tokenizer.model":                  []byte("sp"),
	}
	srv, hits := r2Bucket(t, name, files)
	env := []string{"MIXTRAL_MODEL_METADATA_URL=" + srv.URL + "/metadata/" + name + ".uri"}
	dir := filepath.Join(t.TempDir(), "Mixtral-8x7B-Instruct-v0.1")
	out, ok := runScript(t, "download_model.sh", env, "-d", dir)
	if !ok || !strings.Contains(out, "describes Mixtral-8x7B") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	out, ok = runScript(t, "download_model.sh", env, "-d", dir, "-c")
	if !ok || !strings.Contains(out, "match "+name+".md5") || hits.Load() != int64(len(files)) {
		t.Fatalf("check: ok=%v, hits %d:\n%s", ok, hits.Load(), out)
	}
	os.Remove(filepath.Join(dir, name+".md5"))
	for what, cfg := range map[string]string{
		"4 experts":          strings.Replace(config, `"num_local_experts": 8`, `"num_local_experts": 4`, 1),
		"top 1":              strings.Replace(config, `"num_experts_per_tok": 2`, `"num_experts_per_tok": 1`, 1),
		"8x22B width":        strings.Replace(config, `"hidden_size": 4096`, `"hidden_size": 6144`, 1),
		"Llama 3 vocabulary": strings.Replace(config, `"vocab_size": 32000`, `"vocab_size": 128256`, 1),
		"a dense Mistral":    strings.Replace(strings.Replace(config, `"num_local_experts": 8,`, ``, 1), `"num_experts_per_tok": 2,`, ``, 1),
	} {
		os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644)
		if out, ok := runScript(t, "download_model.sh", env, "-d", dir, "-c"); ok || !strings.Contains(out, "is not Mixtral-8x7B's") {
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
	out, ok := runScript(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--scenario", "Server")
	if ok || !strings.Contains(out, "args: run mixtral --scenario Server") || !strings.Contains(out, "exit status 3") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}

// TestDataScriptsWrapTheDataSets: this folder's download_dataset.sh and
// verify_dataset.sh are datasets/mixtral's: the pickle comes from the
// server under its official name, checked by MD5, and verifies as the
// official file; a wrong MD5 fails.
func TestDataScriptsWrapTheDataSets(t *testing.T) {
	scripttest.NeedDownloader(t)
	val := []byte("validation pickle bytes")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.EscapedPath() == "/mixtral_8x7b/"+mixtral.FileName {
			w.Write(val)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	sum := scripttest.MD5Hex(val)
	env := []string{"MIXTRAL_BASE_URL=" + srv.URL, "MIXTRAL_MD5=" + sum, "MIXTRAL_SKIP_CALIBRATION=1"}
	dir := filepath.Join(t.TempDir(), "data")
	if out, ok := runScript(t, "download_dataset.sh", env, dir); !ok || !strings.Contains(out, "run it with --data") {
		t.Fatalf("download: ok=%v:\n%s", ok, out)
	}
	file := filepath.Join(dir, mixtral.FileName)
	if out, ok := runScript(t, "verify_dataset.sh", []string{"MIXTRAL_MD5=" + sum}, file); !ok || !strings.Contains(out, "official validation file") {
		t.Fatalf("verify: ok=%v:\n%s", ok, out)
	}
	if out, ok := runScript(t, "verify_dataset.sh", []string{"MIXTRAL_MD5=00000000000000000000000000000000"}, file); ok || !strings.Contains(out, "want 00000000000000000000000000000000") {
		t.Fatalf("verify, wrong sum: ok=%v:\n%s", ok, out)
	}
}
