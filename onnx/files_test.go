package onnx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Files: a model alone is itself and its size; with its external-data
// side file both, sizes summed; a missing model is os.Stat's error.
func TestFilesCountsTheSideFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "model.onnx")
	os.WriteFile(p, make([]byte, 10), 0o644)
	if files, n, err := Files(p); err != nil || n != 10 || !reflect.DeepEqual(files, []string{p}) {
		t.Errorf("inline model: %q %d %v; want the one file, 10 bytes", files, n, err)
	}
	os.WriteFile(DataPath(p), make([]byte, 32), 0o644)
	if files, n, err := Files(p); err != nil || n != 42 || !reflect.DeepEqual(files, []string{p, p + ".data"}) {
		t.Errorf("external data: %q %d %v; want both files, 42 bytes", files, n, err)
	}
	if _, _, err := Files(filepath.Join(dir, "none.onnx")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing model: %v", err)
	}
}
