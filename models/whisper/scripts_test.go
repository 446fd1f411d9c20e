package whisper

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

const largeV3Config = `{"d_model": 1280, "decoder_attention_heads": 20, "decoder_layers": 32,
 "encoder_attention_heads": 20, "encoder_layers": 32, "num_mel_bins": 128, "vocab_size": 51866}`

// r2 serves an R2-style bucket of files for the downloader: the .uri
// metadata, the MD5 list (sums may lie) and the files.
func r2(t *testing.T, files map[string]string, sums map[string]string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/metadata/whisper-model.uri":
			fmt.Fprintf(w, "http://%s/bucket/whisper-model\n", r.Host)
		case r.URL.Path == "/metadata/whisper-model.md5":
			for p, b := range files {
				sum := scripttest.MD5Hex([]byte(b))
				if s, ok := sums[p]; ok {
					sum = s
				}
				fmt.Fprintf(w, "%s  %s\n", sum, p)
			}
		case strings.HasPrefix(r.URL.Path, "/bucket/whisper-model/"):
			if b, ok := files[strings.TrimPrefix(r.URL.Path, "/bucket/whisper-model/")]; ok {
				fmt.Fprint(w, b)
				return
			}
			http.NotFound(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/metadata/whisper-model.uri"
}

func runScript(t *testing.T, env []string, args ...string) (string, bool) {
	t.Helper()
	return scripttest.Run(t, "download_model.sh", append([]string{"MLC_R2_NO_LOGIN=1", "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}, env...), args...)
}

// TestDownloadModelScript: the R2 download checks every file's MD5 and
// then config.json's large-v3 architecture; a lying MD5 list and another
// model's config fail; -c checks a folder without downloading.
func TestDownloadModelScript(t *testing.T) {
	scripttest.NeedDownloader(t)
	files := map[string]string{"config.json": largeV3Config, "model.safetensors": "weights"}
	dir := filepath.Join(t.TempDir(), "m")
	out, ok := runScript(t, []string{"WHISPER_METADATA_URL=" + r2(t, files, nil)}, "-d", dir)
	if !ok || !strings.Contains(out, "describes whisper-large-v3") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "model.safetensors")); string(b) != "weights" {
		t.Error("model.safetensors not downloaded")
	}
	out, ok = runScript(t, []string{"WHISPER_METADATA_URL=" + r2(t, files, map[string]string{"model.safetensors": "00000000000000000000000000000000"})}, "-d", filepath.Join(t.TempDir(), "m"))
	if ok {
		t.Fatalf("lying MD5 list accepted:\n%s", out)
	}
	small := map[string]string{"config.json": strings.Replace(largeV3Config, `"d_model": 1280`, `"d_model": 384`, 1)}
	out, ok = runScript(t, []string{"WHISPER_METADATA_URL=" + r2(t, small, nil)}, "-d", filepath.Join(t.TempDir(), "m"))
	if ok || !strings.Contains(out, "d_model is '384', whisper-large-v3 has 1280") {
		t.Fatalf("whisper-tiny's config accepted: ok=%v:\n%s", ok, out)
	}
	out, ok = runScript(t, nil, "-c", "-d", dir)
	if !ok || !strings.Contains(out, "match whisper-model.md5") {
		t.Fatalf("-c: ok=%v:\n%s", ok, out)
	}
	out, ok = runScript(t, nil, "-c", "-d", t.TempDir())
	if ok || !strings.Contains(out, "no config.json") {
		t.Fatalf("-c on an empty folder: ok=%v:\n%s", ok, out)
	}
	out, ok = runScript(t, nil, "-s", "elsewhere")
	if ok || !strings.Contains(out, "unknown source") {
		t.Fatalf("-s elsewhere: ok=%v:\n%s", ok, out)
	}
}

// TestModelFiles: findModelFiles: a folder or one of its files names the three files; a
// folder with only the merged decoder gets the export's fix.
func TestModelFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{encoderFile, decoderFile, decoderWithPastFile} {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	for _, p := range []string{dir, filepath.Join(dir, encoderFile)} {
		f, err := findModelFiles(p)
		if err != nil || f.DecoderWithPast != filepath.Join(dir, decoderWithPastFile) {
			t.Errorf("%s: %+v %v", p, f, err)
		}
	}
	os.Remove(filepath.Join(dir, decoderWithPastFile))
	os.WriteFile(filepath.Join(dir, "decoder_model_merged.onnx"), nil, 0o644)
	if _, err := findModelFiles(dir); err == nil || !strings.Contains(err.Error(), "--no-post-process") {
		t.Errorf("merged only: %v", err)
	}
	if _, err := findModelFiles(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// The data set scripts reach datasets/librispeech's: verification of a
// folder without the manifest names the download; with it, both run
// `mlperf dataset verify librispeech` on the folder.
func TestDatasetScripts(t *testing.T) {
	dir := t.TempDir()
	fake := scripttest.FakeMlperf(t, t.TempDir(), t.TempDir())
	env := []string{"MLPERF=" + fake}
	if out, ok := scripttest.Run(t, "verify_dataset.sh", env, dir); ok || !strings.Contains(out, "download_dataset.sh") {
		t.Fatalf("verify without a manifest: ok=%v:\n%s", ok, out)
	}
	os.WriteFile(filepath.Join(dir, "dev-all-repack.json"), []byte("[]"), 0o644)
	if out, ok := scripttest.Run(t, "verify_dataset.sh", env, dir); !ok || !strings.Contains(out, "args: dataset verify librispeech --data "+dir+" -n 0") {
		t.Fatalf("verify: ok=%v:\n%s", ok, out)
	}
	if out, ok := scripttest.Run(t, "download_dataset.sh", env, dir); !ok || !strings.Contains(out, "already there") || !strings.Contains(out, "args: dataset verify librispeech --data "+dir) {
		t.Fatalf("download of a prepared folder: ok=%v:\n%s", ok, out)
	}
}

// run_and_time.sh runs `mlperf run whisper` with its arguments, passes on
// its exit status and reports the wall-clock time.
func TestRunAndTime(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nexit 3\n"), 0o755)
	out, ok := scripttest.Run(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--scenario", "Offline")
	if ok || !strings.Contains(out, "args: run whisper --scenario Offline") || !strings.Contains(out, "exit status 3") || !strings.Contains(out, "wall-clock") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}
