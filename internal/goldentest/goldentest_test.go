package goldentest

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// TestReadFileGunzipsByContentNotName: a gzipped file reads as its
// content whatever its name, a plain one as it is, a truncated gzip
// stream is an error.
func TestReadFileGunzipsByContentNotName(t *testing.T) {
	dir := t.TempDir()
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte(`{"a": 1}`))
	w.Close()
	for name, body := range map[string][]byte{"g.json": z.Bytes(), "g.json.gz": z.Bytes(), "p.json": []byte(`{"a": 1}`)} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, body, 0o644)
		var v struct{ A int }
		ReadJSON(t, p, &v)
		if v.A != 1 {
			t.Errorf("%s: read %+v, want a = 1", name, v)
		}
	}
	p := filepath.Join(dir, "cut.json.gz")
	os.WriteFile(p, z.Bytes()[:len(z.Bytes())-6], 0o644)
	if _, err := ReadFile(p); err == nil {
		t.Error("a truncated gzip stream read without error")
	}
}
