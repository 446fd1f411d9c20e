package cnndm

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"github.com/mlperf-go/inference/internal/scripttest"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeMLPerf writes an mlperf stand-in that logs its arguments and fails
// when the file it is asked to verify contains "bad".
func fakeMLPerf(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(p, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nif grep -q bad \"$5\"; then echo 'not cnn_eval' >&2; exit 1; fi\n"), 0o755)
	return p
}

func TestDownloadDataset(t *testing.T) {
	scripttest.NeedDownloader(t)
	good := []byte(`[{"instruction": "Summarize the following news article:", "input": "a", "output": "b"}]`)
	bad := []byte(`bad`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good.json":
			w.Write(good)
		case "/bad.json":
			w.Write(bad)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	sum := md5.Sum(good)
	goodMD5 := hex.EncodeToString(sum[:])
	mlperf := fakeMLPerf(t)
	for _, tc := range []struct {
		name string
		env  []string
		ok   bool
		msg  string
	}{
		{"no url", nil, false, "download_cnndm.py"},
		{"good with md5", []string{"CNNDM_URL=" + srv.URL + "/good.json", "CNNDM_MD5=" + goodMD5}, true, "wrote"},
		{"good without md5", []string{"CNNDM_URL=" + srv.URL + "/good.json"}, true, "args: dataset verify cnndm --data"},
		{"wrong md5", []string{"CNNDM_URL=" + srv.URL + "/good.json", "CNNDM_MD5=00000000000000000000000000000000"}, false, "checksum mismatch"},
		{"not found", []string{"CNNDM_URL=" + srv.URL + "/none.json"}, false, "download of"},
		{"fails verification", []string{"CNNDM_URL=" + srv.URL + "/bad.json"}, false, "not a good cnn_eval.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			env := append([]string{"MLPERF=" + mlperf, "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1", "CNNDM_URL=", "CNNDM_MD5="}, tc.env...)
			out, ok := scripttest.Run(t, "download_dataset.sh", env, dir)
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
			if len(ents) != 1 || ents[0].Name() != FileName {
				t.Fatalf("files %v", ents)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, FileName)); !bytes.Equal(b, good) {
				t.Fatal("downloaded bytes differ")
			}
			out, ok = scripttest.Run(t, "download_dataset.sh", env, dir)
			if !ok || !strings.Contains(out, "already there") {
				t.Fatalf("second run: %v\n%s", ok, out)
			}
		})
	}
}

func TestVerifyDatasetScript(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, FileName)
	os.WriteFile(file, []byte("[]"), 0o644)
	env := []string{"MLPERF=" + fakeMLPerf(t)}
	out, ok := scripttest.Run(t, "verify_dataset.sh", env, dir)
	if !ok || !strings.Contains(out, "args: dataset verify cnndm --data "+file) {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	out, ok = scripttest.Run(t, "verify_dataset.sh", append(env, "CNNDM_MD5=00000000000000000000000000000000"), file)
	if ok || !strings.Contains(out, "want 00000000000000000000000000000000") {
		t.Fatalf("wrong md5: ok=%v:\n%s", ok, out)
	}
	out, ok = scripttest.Run(t, "verify_dataset.sh", env, filepath.Join(dir, "none.json"))
	if ok || !strings.Contains(out, "download_dataset.sh") {
		t.Fatalf("missing: ok=%v:\n%s", ok, out)
	}
}
