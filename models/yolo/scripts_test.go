package yolo

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

// download_model.sh fetches the R2-hosted checkpoint with its published
// MD5s, says how to export a .pt, points at an .onnx, and fails on a
// corrupted file or a bucket without a model.
func TestDownloadModelScript(t *testing.T) {
	scripttest.NeedDownloader(t)
	files := map[string][]byte{"yolo11l.pt": []byte("pickled weights")}
	sums := map[string]string{}
	for p, b := range files {
		sums[p] = scripttest.MD5Hex(b)
	}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/metadata/YOLO-model.uri":
			fmt.Fprintf(w, "http://%s/bucket\n", r.Host)
			return
		case "/metadata/YOLO-model.md5":
			for p := range files {
				fmt.Fprintf(w, "%s  %s\n", sums[p], p)
			}
			return
		}
		if b, ok := files[strings.TrimPrefix(r.URL.Path, "/bucket/")]; ok {
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	env := []string{"YOLO_METADATA_URL=" + srv.URL + "/metadata/YOLO-model.uri", "MLC_R2_NO_LOGIN=1"}
	dir := t.TempDir()
	out, ok := scripttest.Run(t, "download_model.sh", env, dir)
	if !ok || !strings.Contains(out, "yolo export model="+filepath.Join(dir, "yolo11l.pt")+" format=onnx imgsz=640") {
		t.Fatalf("ok=%v:\n%s", ok, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "yolo11l.pt")); string(b) != "pickled weights" {
		t.Errorf("downloaded file holds %q", b)
	}

	mu.Lock()
	files["yolo11l.onnx"] = []byte("onnx")
	sums["yolo11l.onnx"] = scripttest.MD5Hex([]byte("onnx"))
	mu.Unlock()
	if out, ok := scripttest.Run(t, "download_model.sh", env, t.TempDir()); !ok || !strings.Contains(out, "mlperf run yolo --model") {
		t.Errorf("with an ONNX file: ok=%v:\n%s", ok, out)
	}

	mu.Lock()
	files["yolo11l.pt"] = []byte("tampered")
	mu.Unlock()
	bad := t.TempDir()
	if out, ok := scripttest.Run(t, "download_model.sh", env, bad); ok || !strings.Contains(out, "checksum mismatch") {
		t.Errorf("tampered file: ok=%v:\n%s", ok, out)
	}
	if _, err := os.Stat(filepath.Join(bad, "yolo11l.pt")); err == nil {
		t.Error("tampered file kept")
	}

	mu.Lock()
	files = map[string][]byte{"README": []byte("no model")}
	sums = map[string]string{"README": scripttest.MD5Hex(files["README"])}
	mu.Unlock()
	if out, ok := scripttest.Run(t, "download_model.sh", env, t.TempDir()); ok || !strings.Contains(out, "no .pt or .onnx") {
		t.Errorf("no model: ok=%v:\n%s", ok, out)
	}
}
