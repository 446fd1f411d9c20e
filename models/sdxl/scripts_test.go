package sdxl

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/internal/scripttest"
)

func TestDownloadModelChecksExport(t *testing.T) {
	dir := t.TempDir()
	if err := build(filepath.Join(dir, "model.onnx"), sizeTiny, archSeed); err != nil {
		t.Fatal(err)
	}
	out, ok := scripttest.Run(t, "download_model.sh", nil, "-c", dir)
	if !ok || !strings.Contains(out, "is an SDXL ONNX export") || !strings.Contains(out, "OK    scheduler/scheduler_config.json") {
		t.Errorf("complete export refused:\n%s", out)
	}
	os.Remove(partPath(dir, "text_encoder_2"))
	out, ok = scripttest.Run(t, "download_model.sh", nil, "-c", dir)
	if ok || !strings.Contains(out, "FAIL  text_encoder_2/model.onnx missing") {
		t.Errorf("export without text_encoder_2 accepted:\n%s", out)
	}
	if out, ok := scripttest.Run(t, "download_model.sh", nil, "-p", "int8"); ok || !strings.Contains(out, "want fp32 or fp16") {
		t.Errorf("-p int8:\n%s", out)
	}
}

func TestRunAndTimePassesFlags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mlperf")
	os.WriteFile(bin, []byte("#!/bin/sh\necho \"ARGS: $*\"\n"), 0o755)
	out, ok := scripttest.Run(t, "run_and_time.sh", []string{"MLPERF_BIN=" + bin}, "--model", "synthetic:tiny", "--mode", "accuracy")
	if !ok || !strings.Contains(out, "ARGS: run sdxl --model synthetic:tiny --mode accuracy") {
		t.Errorf("run_and_time.sh:\n%s", out)
	}
}

// The data set scripts reach datasets/coco2014's: a download from a
// server without the files fails and keeps nothing; the verification
// names each missing file.
func TestDatasetScripts(t *testing.T) {
	scripttest.NeedDownloader(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "coco2014")
	out, ok := scripttest.Run(t, "download_dataset.sh", []string{"COCO2014_BASE_URL=" + srv.URL}, "-d", dir)
	if ok || !strings.Contains(out, "captions_source.tsv") {
		t.Fatalf("download from an empty server: ok=%v:\n%s", ok, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "captions", "captions_source.tsv")); err == nil {
		t.Fatal("a failed download kept captions_source.tsv")
	}
	out, ok = scripttest.Run(t, "verify_dataset.sh", nil, dir)
	if ok || !strings.Contains(out, "FAIL  "+filepath.Join(dir, "captions", "captions_source.tsv")+" missing") || !strings.Contains(out, "latents.npy missing") {
		t.Fatalf("verify of an empty folder: ok=%v:\n%s", ok, out)
	}
}
