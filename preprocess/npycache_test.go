package preprocess

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteNpyCacheWritesKeepsAndStops(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	cfg := NpyCacheConfig{
		Total: 5, Shape: []int{2, 3}, Name: "test", Workers: 1, // calls is not synchronised
		Src: func(i int) string { return fmt.Sprint(i) },
		Out: func(i int) string { return filepath.Join(dir, "sub", fmt.Sprintf("%d.npy", i)) },
		Preprocess: func(dst []float32, src string) error {
			calls++
			for k := range dst {
				dst[k] = float32(len(src)*10 + k)
			}
			return nil
		},
	}
	if err := WriteNpyCache(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if calls != 5 {
		t.Errorf("%d samples preprocessed, want 5", calls)
	}
	shape, got, err := LoadNpy(filepath.Join(dir, "sub", "3.npy"))
	if err != nil || len(got) != 6 || got[5] != 15 || fmt.Sprint(shape) != "[2 3]" {
		t.Errorf("3.npy = %v %v, %v", got, shape, err)
	}
	// A second pass keeps the existing files.
	if err := WriteNpyCache(context.Background(), cfg); err != nil || calls != 5 {
		t.Errorf("second pass: %v, %d calls", err, calls)
	}
	// The first error stops the work and leaves no partial file.
	cfg.Out = func(i int) string { return filepath.Join(dir, "b", fmt.Sprintf("%d.npy", i)) }
	cfg.Preprocess = func([]float32, string) error { return errors.New("corrupt JPEG") }
	if err := WriteNpyCache(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "corrupt JPEG") {
		t.Errorf("failing preprocess: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "b")); len(ents) != 0 {
		t.Errorf("files left after a failure: %v", ents)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg.Out = func(i int) string { return filepath.Join(dir, "c", fmt.Sprintf("%d.npy", i)) }
	if err := WriteNpyCache(ctx, cfg); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
