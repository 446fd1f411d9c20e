package gptj

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

func TestDownloadModel(t *testing.T) {
	scripttest.NeedDownloader(t)
	body := []byte("not really the GPT-J checkpoint")
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/index.php/s/QAZ2oM94MkFtbQx/download" {
			w.Write(body)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	sum := md5.Sum(body)
	good := hex.EncodeToString(sum[:])
	url := "GPTJ_URL=" + srv.URL + "/index.php/s/QAZ2oM94MkFtbQx/download"
	for _, tc := range []struct {
		name string
		env  []string
		ok   bool
		msg  string
	}{
		{"good", []string{url, "GPTJ_MD5=" + good}, true, "OK (MD5 " + good},
		// The published MD5 rejects the served bytes.
		{"official checksum", []string{url}, false, "want e677e28aaf03da84584bb3073b7ee315; the file was deleted"},
		{"wrong checksum", []string{url, "GPTJ_MD5=00000000000000000000000000000000"}, false, "checksum mismatch"},
		{"not found", []string{"GPTJ_URL=" + srv.URL + "/none", "GPTJ_MD5=" + good}, false, "download of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "model")
			env := append([]string{"no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1", "GPTJ_URL=", "GPTJ_MD5="}, tc.env...)
			out, ok := scripttest.Run(t, "download_model.sh", env, "-d", dir)
			if ok != tc.ok || !strings.Contains(out, tc.msg) {
				t.Fatalf("ok=%v, want %v with %q:\n%s", ok, tc.ok, tc.msg, out)
			}
			ents, _ := os.ReadDir(dir)
			if !tc.ok {
				if len(ents) != 0 {
					t.Fatalf("failed download left %v", ents)
				}
				return
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "checkpoint.zip")); !bytes.Equal(b, body) || len(ents) != 1 {
				t.Fatalf("files %v, bytes differ", ents)
			}
			before := hits.Load()
			out, ok = scripttest.Run(t, "download_model.sh", env, "-d", dir)
			if !ok || !strings.Contains(out, "already present") || hits.Load() != before {
				t.Fatalf("second run: ok=%v:\n%s", ok, out)
			}
		})
	}
}

func TestRunAndTime(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nexit 3\n"), 0o755)
	out, ok := scripttest.Run(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--scenario", "Offline")
	if ok || !strings.Contains(out, "args: run gptj --scenario Offline") || !strings.Contains(out, "exit status 3") || !strings.Contains(out, "wall-clock") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}

func TestVerifyDatasetScript(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\n"), 0o755)
	file := filepath.Join(dir, "cnn_eval.json")
	os.WriteFile(file, []byte("[]"), 0o644)
	tok := filepath.Join(dir, "tok")
	os.MkdirAll(tok, 0o755)
	os.WriteFile(filepath.Join(tok, "encoder.json"), []byte("{}"), 0o644)
	env := []string{"MLPERF=" + fake}
	out, ok := scripttest.Run(t, "verify_dataset.sh", env, file, tok)
	if !ok || !strings.Contains(out, "args: dataset verify cnndm --data "+file+" --tokenizer "+tok) {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	if out, ok := scripttest.Run(t, "verify_dataset.sh", env, file, filepath.Join(dir, "none")); ok || !strings.Contains(out, "make setup") {
		t.Fatalf("missing tokenizer: ok=%v:\n%s", ok, out)
	}
	if out, ok := scripttest.Run(t, "verify_dataset.sh", env, filepath.Join(dir, "none.json"), tok); ok || !strings.Contains(out, "download_dataset.sh") {
		t.Fatalf("missing file: ok=%v:\n%s", ok, out)
	}
}

// Run from outside the clone without a tokenizer argument, the script
// uses the tokenizer where the binary finds it (`mlperf deps`: here the
// per-user folder make setup fills), not a .deps beside the working
// directory; where the binary finds none, it says so and how to fix it.
func TestVerifyDatasetScriptFindsTheTokenizerAsTheBinaryDoes(t *testing.T) {
	dir := t.TempDir()
	userDeps := filepath.Join(dir, "per-user-deps")
	fake := scripttest.FakeMlperf(t, dir, userDeps)
	file := filepath.Join(dir, "cnn_eval.json")
	os.WriteFile(file, []byte("[]"), 0o644)
	elsewhere := t.TempDir()
	env := []string{"MLPERF=" + fake, "MLPERF_DEPS="}
	out, ok := scripttest.RunIn(t, elsewhere, "verify_dataset.sh", env, file)
	if ok || !strings.Contains(out, "GPT-2 tokenizer not installed") || !strings.Contains(out, "make setup") || !strings.Contains(out, "(per-user)") {
		t.Fatalf("no tokenizer anywhere: ok=%v:\n%s", ok, out)
	}
	os.MkdirAll(filepath.Join(userDeps, "gptj"), 0o755)
	os.WriteFile(filepath.Join(userDeps, "gptj", "encoder.json"), []byte("{}"), 0o644)
	out, ok = scripttest.RunIn(t, elsewhere, "verify_dataset.sh", env, file)
	if !ok || !strings.Contains(out, "args: dataset verify cnndm --data "+file+" --tokenizer "+filepath.Join(userDeps, "gptj")) {
		t.Fatalf("tokenizer in the per-user folder: ok=%v:\n%s", ok, out)
	}
}

func TestDownloadDatasetScript(t *testing.T) {
	// Without a URL the script explains how to make the file and fails.
	out, ok := scripttest.Run(t, "download_dataset.sh", []string{"CNNDM_URL="}, t.TempDir())
	if ok || !strings.Contains(out, "download_cnndm.py") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}
