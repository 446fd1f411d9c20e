// Package goldentest reads the golden files tests compare with: the
// outputs of the reference tools, committed as they are or gzipped.
package goldentest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"
)

// ReadFile returns the content of the golden file at path, decompressed
// when it is gzipped (told by gzip's magic bytes, not by the name).
func ReadFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		return b, err
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("goldentest: %s: %w", path, err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		return nil, fmt.Errorf("goldentest: %s: %w", path, err)
	}
	return out, nil
}

// ReadJSON decodes the golden JSON file at path (gzipped or not) into v;
// a missing or malformed file fails the test.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
