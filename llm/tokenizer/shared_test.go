package tokenizer

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSharedLoadsOncePerUnchangedFiles: Shared loads a folder's
// tokenizer.json once, whether given the folder or the file; loads again
// when tokenizer.json or tokenizer_config.json changes, and for another
// type; does not keep a failed load.
func TestSharedLoadsOncePerUnchangedFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tokenizer.json")
	os.WriteFile(file, []byte(`{"a":1}`), 0o644)
	loads := 0
	load := func(p string) (*string, error) {
		loads++
		s := p
		return &s, nil
	}
	a, err := Shared(dir, load)
	if err != nil || loads != 1 {
		t.Fatalf("first load: %v, %d loads", err, loads)
	}
	b, _ := Shared(file, load)
	if b != a || loads != 1 {
		t.Errorf("the file of the same folder: %d loads, same tokenizer %v; want 1, true", loads, b == a)
	}
	later := time.Now().Add(time.Hour)
	os.Chtimes(file, later, later)
	if c, _ := Shared(dir, load); c == a || loads != 2 {
		t.Errorf("after tokenizer.json changed: %d loads, same tokenizer %v; want 2, false", loads, c == a)
	}
	os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{}`), 0o644)
	if Shared(dir, load); loads != 3 {
		t.Errorf("after tokenizer_config.json appeared: %d loads, want 3", loads)
	}
	other := 0
	if _, err := Shared(dir, func(string) (int, error) { other++; return 7, nil }); err != nil || other != 1 {
		t.Errorf("another type at the same path: %v, %d loads; want a load of its own", err, other)
	}
	bad := errors.New("bad file")
	fails := 0
	fail := func(string) (*int, error) { fails++; return nil, bad }
	for range 2 {
		if _, err := Shared(dir, fail); !errors.Is(err, bad) {
			t.Errorf("failed load: %v, want %v", err, bad)
		}
	}
	if fails != 2 {
		t.Errorf("a failed load kept: %d loads, want 2", fails)
	}
}
