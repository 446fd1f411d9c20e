package unet3d

import (
	"bytes"
	"compress/gzip"
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
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/record/5597155/files/3dunet_kits19_128x128x128_dynbatch.onnx", "/record/5597155/files/3dunet_kits19_128x128x128.onnx":
			w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name, md5 string
		args      []string
		ok        bool
		file, msg string
	}{
		{"good checksum", scripttest.MD5Hex(body), nil, true, "3dunet_kits19_128x128x128_dynbatch.onnx", "OK"},
		{"official checksum rejects other bytes", "", nil, false, "", "want 82f0618fde78f9839e7c712274019b4a"},
		{"fixed batch has no published MD5", "", []string{"-f", "onnx"}, true, "3dunet_kits19_128x128x128.onnx", "this download's MD5 is " + scripttest.MD5Hex(body)},
		{"unknown format", "", []string{"-f", "tf"}, false, "", "unknown format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "models")
			env := []string{"UNET3D_BASE_URL=" + srv.URL, "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}
			if tc.md5 != "" {
				env = append(env, "UNET3D_MODEL_MD5="+tc.md5)
			}
			out, ok := scripttest.Run(t, "download_model.sh", env, append([]string{"-d", dir}, tc.args...)...)
			if ok != tc.ok || !strings.Contains(out, tc.msg) {
				t.Fatalf("ok=%v, want %v; output:\n%s", ok, tc.ok, out)
			}
			ents, _ := os.ReadDir(dir)
			if tc.file == "" {
				if len(ents) != 0 {
					t.Fatalf("failed download left %v behind", ents)
				}
				return
			}
			if got, _ := os.ReadFile(filepath.Join(dir, tc.file)); !bytes.Equal(got, body) || len(ents) != 1 {
				t.Fatalf("files %v; downloaded bytes differ", ents)
			}
			before := hits.Load()
			out, ok = scripttest.Run(t, "download_model.sh", env, append([]string{"-d", dir}, tc.args...)...)
			if !ok || !strings.Contains(out, "already present") || hits.Load() != before {
				t.Fatalf("second run downloaded again: ok=%v\n%s", ok, out)
			}
		})
	}
}

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func TestDownloadDataset(t *testing.T) {
	scripttest.NeedDownloader(t)
	var broken atomic.Value
	broken.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == broken.Load().(string):
			w.Write([]byte("<html>rate limited</html>"))
		case strings.HasPrefix(p, "/seg/case_") && strings.HasSuffix(p, "/segmentation.nii.gz"):
			w.Write(gz("seg " + p))
		case strings.HasPrefix(p, "/img/case_") && strings.HasSuffix(p, ".nii.gz"):
			w.Write(gz("img " + p))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	env := []string{"KITS19_SEG_URL=" + srv.URL + "/seg/", "KITS19_IMAGING_URL=" + srv.URL + "/img", "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1"}
	dir := t.TempDir()
	out, ok := scripttest.Run(t, "download_dataset.sh", env, "-d", dir)
	if !ok || !strings.Contains(out, "42 cases") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 43 {
		t.Fatalf("%d case folders, want 43", len(ents))
	}
	for _, f := range []string{"imaging.nii.gz", "segmentation.nii.gz"} {
		a, _ := os.ReadFile(filepath.Join(dir, "case_00185", f))
		b, _ := os.ReadFile(filepath.Join(dir, "case_00400", f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("case_00400/%s is not a copy of case_00185's", f)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "case_00012", "imaging.nii.gz")); !bytes.Equal(got, gz("img /img/case_00012.nii.gz")) {
		t.Error("case_00012 imaging bytes differ from the served file")
	}
	// Calibration set; a page that is not gzip fails and leaves no file.
	cal := t.TempDir()
	broken.Store("/img/case_00047.nii.gz")
	out, ok = scripttest.Run(t, "download_dataset.sh", env, "-d", cal, "-c")
	if ok || !strings.Contains(out, "not a gzip file") {
		t.Fatalf("broken file: ok=%v:\n%s", ok, out)
	}
	if _, err := os.Stat(filepath.Join(cal, "case_00047", "imaging.nii.gz")); err == nil {
		t.Error("a rejected download was kept")
	}
	if m, _ := filepath.Glob(filepath.Join(cal, "*", "*.part.*")); len(m) != 0 {
		t.Errorf("partial files left: %v", m)
	}
	broken.Store("")
	out, ok = scripttest.Run(t, "download_dataset.sh", env, "-d", cal, "-c")
	if !ok || !strings.Contains(out, "20 cases") {
		t.Fatalf("calibration rerun: ok=%v:\n%s", ok, out)
	}
	if _, err := os.Stat(filepath.Join(cal, "case_00400")); err == nil {
		t.Error("calibration download made case_00400")
	}
}

func TestVerifyDatasetScript(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\n"), 0o755)
	out, ok := scripttest.Run(t, "verify_dataset.sh", []string{"MLPERF=" + fake}, dir)
	if !ok || !strings.Contains(out, "args: dataset verify kits19 --data "+dir) {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	out, ok = scripttest.Run(t, "verify_dataset.sh", []string{"MLPERF=" + fake}, filepath.Join(dir, "none"))
	if ok || !strings.Contains(out, "download_dataset.sh") {
		t.Fatalf("missing folder: ok=%v:\n%s", ok, out)
	}
}

func TestRunAndTime(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\necho \"args: $*\"\nexit 3\n"), 0o755)
	out, ok := scripttest.Run(t, "run_and_time.sh", []string{"MLPERF_BIN=" + fake}, "--scenario", "Offline")
	if ok || !strings.Contains(out, "args: run unet3d --scenario Offline") || !strings.Contains(out, "exit status 3") || !strings.Contains(out, "wall-clock") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
}
