package bert

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

func TestDownloadModel(t *testing.T) {
	scripttest.NeedDownloader(t)
	files := map[string][]byte{
		"/record/3733910/files/model.onnx":                      []byte("not really the fp32 model"),
		"/record/3750364/files/bert_large_v1_1_fake_quant.onnx": []byte("not really the int8 model"),
		"/record/3733868/files/vocab.txt":                       []byte("[PAD]\n[UNK]\n"),
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if b, ok := files[r.URL.Path]; ok {
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	goodMD5 := []string{
		"BERT_FP32_MD5=" + scripttest.MD5Hex(files["/record/3733910/files/model.onnx"]),
		"BERT_INT8_MD5=" + scripttest.MD5Hex(files["/record/3750364/files/bert_large_v1_1_fake_quant.onnx"]),
		"BERT_VOCAB_MD5=" + scripttest.MD5Hex(files["/record/3733868/files/vocab.txt"]),
	}
	for _, tc := range []struct {
		name    string
		args    []string
		env     []string
		ok      bool
		files   []string
		message string
	}{
		{"fp32 and vocab", nil, goodMD5, true, []string{"model.onnx", "vocab.txt"}, "OK"},
		{"int8 and vocab", []string{"-f", "int8"}, goodMD5, true, []string{"bert_large_v1_1_fake_quant.onnx", "vocab.txt"}, "OK"},
		{"all", []string{"-f", "all"}, goodMD5, true, []string{"bert_large_v1_1_fake_quant.onnx", "model.onnx", "vocab.txt"}, "OK"},
		// The served bytes are not the official files: the published MD5s
		// reject them.
		{"official checksum rejects other bytes", []string{"-f", "vocab"}, nil, false, nil, "want 64800d5d8528ce344256daf115d4965e"},
		{"official fp32 checksum", nil, goodMD5[2:], false, nil, "want 819b25b19cd8e59080c10892689750ca"},
		// The vocab comes second: the model is kept, the bad vocab deleted.
		{"bad vocab checksum", nil, append(goodMD5[:1:1], "BERT_VOCAB_MD5=00000000000000000000000000000000"), false, []string{"model.onnx"}, "checksum mismatch"},
		{"unknown choice", []string{"-f", "tf"}, goodMD5, false, nil, "unknown choice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "models")
			env := append([]string{"BERT_BASE_URL=" + srv.URL + "/", "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}, tc.env...)
			out, ok := scripttest.Run(t, "download_model.sh", env, append([]string{"-d", dir}, tc.args...)...)
			if ok != tc.ok || !strings.Contains(out, tc.message) {
				t.Fatalf("ok=%v, want %v with %q; output:\n%s", ok, tc.ok, tc.message, out)
			}
			ents, _ := os.ReadDir(dir)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, tc.files) {
				t.Fatalf("files %v, want %v", names, tc.files)
			}
			for _, n := range names {
				got, _ := os.ReadFile(filepath.Join(dir, n))
				var want []byte
				for p, b := range files {
					if strings.HasSuffix(p, "/"+n) {
						want = b
					}
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: downloaded bytes differ", n)
				}
			}
			if !tc.ok {
				return
			}
			// A second run finds the files and does not download again.
			before := hits.Load()
			out, ok = scripttest.Run(t, "download_model.sh", env, append([]string{"-d", dir}, tc.args...)...)
			if !ok || !strings.Contains(out, "already present") || hits.Load() != before {
				t.Fatalf("second run: ok=%v, hits %d→%d:\n%s", ok, before, hits.Load(), out)
			}
		})
	}
	// A file in the way with another MD5 is not overwritten.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "vocab.txt"), []byte("mine"), 0o644)
	out, ok := scripttest.Run(t, "download_model.sh", append([]string{"BERT_BASE_URL=" + srv.URL}, goodMD5...), "-d", dir, "-f", "vocab")
	if ok || !strings.Contains(out, "delete it and run again") {
		t.Fatalf("existing file: ok=%v:\n%s", ok, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "vocab.txt")); string(b) != "mine" {
		t.Fatal("existing file overwritten")
	}
}

func TestDownloadDataset(t *testing.T) {
	scripttest.NeedDownloader(t)
	body := []byte(`{"version": "1.1", "data": []}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	dir := t.TempDir()
	env := []string{"SQUAD_URL=" + srv.URL + "/dev-v1.1.json", "SQUAD_MD5=" + scripttest.MD5Hex(body), "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}
	out, ok := scripttest.Run(t, "download_dataset.sh", env, dir)
	if !ok {
		t.Fatalf("download failed:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "dev-v1.1.json")); !bytes.Equal(b, body) {
		t.Fatal("downloaded bytes differ")
	}
	// A server that answers 404: the script says what failed and what to
	// do, exits 1 (not the downloader's own status) and leaves nothing.
	dir = t.TempDir()
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	env[0] = "SQUAD_URL=" + missing.URL + "/dev-v1.1.json"
	cmd := exec.Command("bash", "download_dataset.sh", dir)
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("a 404: %v, want exit status 1:\n%s", err, b)
	}
	if out := string(b); !strings.Contains(out, "squad: could not download "+missing.URL) || !strings.Contains(out, "SQUAD_URL") {
		t.Fatalf("a 404 does not say what failed and the fix:\n%s", out)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a failed download left %v", ents)
	}
}

func TestRunAndTime(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nexit 3\n"), 0o755)
	out, ok := scripttest.Run(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--scenario", "Offline")
	if ok || !strings.Contains(out, "args: run bert --scenario Offline") || !strings.Contains(out, "exit status 3") || !strings.Contains(out, "wall-clock") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}

// Run from outside the clone without a vocabulary argument, the script
// uses the vocabulary where the binary finds it (`mlperf deps`).
func TestVerifyDatasetFindsTheVocabularyAsTheBinaryDoes(t *testing.T) {
	dir := t.TempDir()
	userDeps := filepath.Join(dir, "per-user-deps")
	fake := scripttest.FakeMlperf(t, dir, userDeps)
	file := filepath.Join(dir, "dev-v1.1.json")
	os.WriteFile(file, []byte(`{"version": "1.1", "data": []}`), 0o644)
	elsewhere := t.TempDir()
	env := []string{"MLPERF=" + fake, "MLPERF_DEPS="}
	out, ok := scripttest.RunIn(t, elsewhere, "verify_dataset.sh", env, file)
	if ok || !strings.Contains(out, "BERT vocabulary not installed") || !strings.Contains(out, "make setup") {
		t.Fatalf("no vocabulary anywhere: ok=%v:\n%s", ok, out)
	}
	vocab := filepath.Join(userDeps, "bert", "vocab.txt")
	os.MkdirAll(filepath.Dir(vocab), 0o755)
	os.WriteFile(vocab, []byte("[PAD]\n"), 0o644)
	out, ok = scripttest.RunIn(t, elsewhere, "verify_dataset.sh", env, file)
	if !ok || !strings.Contains(out, "args: dataset verify squad --data "+file+" --features --vocab "+vocab) {
		t.Fatalf("vocabulary in the per-user folder: ok=%v:\n%s", ok, out)
	}
}

func TestVerifyDataset(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\n"), 0o755)
	file := filepath.Join(dir, "dev-v1.1.json")
	os.WriteFile(file, []byte(`{"version": "1.1", "data": []}`), 0o644)
	vocab := filepath.Join(dir, "vocab.txt")
	os.WriteFile(vocab, []byte("[PAD]\n"), 0o644)
	env := []string{"MLPERF=" + fake}
	out, ok := scripttest.Run(t, "verify_dataset.sh", env, file, vocab)
	if !ok || !strings.Contains(out, "args: dataset verify squad --data "+file+" --features --vocab "+vocab) || !strings.Contains(out, "not the official") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	out, ok = scripttest.Run(t, "verify_dataset.sh", env, file, filepath.Join(dir, "none.txt"))
	if ok || !strings.Contains(out, "make setup") {
		t.Fatalf("missing vocab: ok=%v:\n%s", ok, out)
	}
	out, ok = scripttest.Run(t, "verify_dataset.sh", env, filepath.Join(dir, "none.json"), vocab)
	if ok || !strings.Contains(out, "download_dataset.sh") {
		t.Fatalf("missing file: ok=%v:\n%s", ok, out)
	}
}
