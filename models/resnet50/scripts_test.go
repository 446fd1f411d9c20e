package resnet50

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
	body := []byte("not really an onnx file, but bytes with a known MD5")
	sum := md5.Sum(body)
	goodMD5 := hex.EncodeToString(sum[:])
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/record/4735647/files/resnet50_v1.onnx", "/record/2592612/files/resnet50_v1.onnx":
			w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	for _, tc := range []struct {
		name    string
		args    []string
		md5     string // RESNET50_MODEL_MD5; "" keeps the official one
		ok      bool
		file    string
		message string
	}{
		{"good checksum", nil, goodMD5, true, "resnet50_v1.onnx", "OK"},
		// The served bytes are not the official file: its published MD5
		// rejects them.
		{"official checksum rejects other bytes", []string{"-f", "onnx-opset8"}, "", false, "", "want a638cf028b5870da29e09ccc2f7182e7"},
		{"bad checksum", nil, "00000000000000000000000000000000", false, "", "checksum mismatch"},
		{"not found", []string{"-f", "tf"}, "", false, "", "download of"},
		{"unknown format", []string{"-f", "pytorch"}, "", false, "", "unknown format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "models")
			env := []string{"RESNET50_BASE_URL=" + srv.URL + "/", "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}
			if tc.md5 != "" {
				env = append(env, "RESNET50_MODEL_MD5="+tc.md5)
			}
			out, ok := scripttest.Run(t, "download_model.sh", env, append([]string{"-d", dir}, tc.args...)...)
			if ok != tc.ok || !strings.Contains(out, tc.message) {
				t.Fatalf("ok=%v, want %v; output:\n%s", ok, tc.ok, out)
			}
			ents, _ := os.ReadDir(dir)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			if tc.file == "" {
				if len(names) != 0 {
					t.Fatalf("failed download left %v behind", names)
				}
				return
			}
			if len(names) != 1 || names[0] != tc.file {
				t.Fatalf("files %v, want [%s]", names, tc.file)
			}
			got, _ := os.ReadFile(filepath.Join(dir, tc.file))
			if !bytes.Equal(got, body) {
				t.Fatal("downloaded bytes differ")
			}
			// A second run finds the file and does not download again.
			before := hits.Load()
			out, ok = scripttest.Run(t, "download_model.sh", env, append([]string{"-d", dir}, tc.args...)...)
			if !ok || !strings.Contains(out, "already present") || hits.Load() != before {
				t.Fatalf("second run: ok=%v, hits %d→%d:\n%s", ok, before, hits.Load(), out)
			}
		})
	}
}

// The data set scripts reach datasets/imagenet's: the download explains
// ImageNet's manual step when no tar is given, and the verification
// passes a complete folder and fails one missing an image.
func TestDatasetScripts(t *testing.T) {
	dir := t.TempDir()
	out, ok := scripttest.Run(t, "download_dataset.sh", nil, "-d", filepath.Join(dir, "none"), "-t", filepath.Join(dir, "absent.tar"))
	if ok || !strings.Contains(out, "image-net.org") {
		t.Fatalf("download without the tar: ok=%v:\n%s", ok, out)
	}
	data := filepath.Join(dir, "imagenet")
	os.MkdirAll(data, 0o755)
	os.WriteFile(filepath.Join(data, "val_map.txt"), []byte("a.JPEG 0\nb.JPEG 1\n"), 0o644)
	os.WriteFile(filepath.Join(data, "a.JPEG"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(data, "b.JPEG"), []byte("b"), 0o644)
	if out, ok := scripttest.Run(t, "verify_dataset.sh", nil, "-d", data, "-n", "2"); !ok {
		t.Fatalf("verify of a complete folder: %s", out)
	}
	os.Remove(filepath.Join(data, "b.JPEG"))
	if out, ok := scripttest.Run(t, "verify_dataset.sh", nil, "-d", data, "-n", "2"); ok || !strings.Contains(out, "b.JPEG") {
		t.Fatalf("verify of a folder missing b.JPEG: ok=%v:\n%s", ok, out)
	}
}

// run_and_time.sh runs `mlperf run resnet50` with its arguments, passes on its
// exit status and reports the wall-clock time.
func TestRunAndTime(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nexit 3\n"), 0o755)
	out, ok := scripttest.Run(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--scenario", "Offline")
	if ok || !strings.Contains(out, "args: run resnet50 --scenario Offline") || !strings.Contains(out, "exit status 3") || !strings.Contains(out, "wall-clock") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}
