package benchmark

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWriteModelWritesTheSizeOrRefusesWithTheFix: an ONNX build writes the
// size asked for and reports the file and its bytes; a folder as -o, an
// unknown size, an unknown format and GGUF from a benchmark that cannot
// write it are refused naming the setting, and nothing is built.
func TestWriteModelWritesTheSizeOrRefusesWithTheFix(t *testing.T) {
	builds := 0
	b := echo(&builds)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.onnx")
	f, err := WriteModel(b, path, "onnx", "tiny", 1, nil)
	if err != nil || !slices.Equal(f.Files, []string{path}) || f.Bytes != int64(len("tiny")) || builds != 1 {
		t.Fatalf("WriteModel = %+v, %v after %d builds; want %s of 4 bytes", f, err, builds, path)
	}
	if got, _ := os.ReadFile(path); string(got) != "tiny" {
		t.Errorf("the file holds %q, want the tiny model", got)
	}
	for _, c := range []struct{ path, format, size, want string }{
		{dir, "onnx", "tiny", "is a folder"},
		{path, "onnx", "huge", `--size "huge": want one of full, tiny`},
		{path, "tflite", "tiny", `--format "tflite": want onnx or gguf`},
		{path, "gguf", "tiny", "writes ONNX only"},
	} {
		if _, err := WriteModel(b, c.path, c.format, c.size, 1, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s %s: err %v, want %q", c.path, c.format, c.size, err, c.want)
		}
	}
	if builds != 1 {
		t.Errorf("%d builds after the refusals, want 1", builds)
	}
}
