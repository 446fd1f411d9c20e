package sdxl

import (
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
