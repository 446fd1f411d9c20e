package submission

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/internal/boundedread"
)

// TestReadSystemTakesAJSONObjectNamedByItsFile: a system description file
// reads as its JSON object, named by its base name without .json; a file
// of exactly 1 MiB is read, one byte more is refused; a device, a
// missing file and JSON that is not an object are refused naming the
// file and the fix.
func TestReadSystemTakesAJSONObjectNamedByItsFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	desc, name, err := ReadSystem(write("my_box.json", `{"system_type": "edge", "submitter": "Org"}`))
	if err != nil || name != "my_box" || desc["system_type"] != "edge" || desc["submitter"] != "Org" {
		t.Fatalf("ReadSystem = %v, %q, %v", desc, name, err)
	}
	pad := func(n int) string {
		body := `{"x": "` + strings.Repeat("a", n-len(`{"x": ""}`)) + `"}`
		if len(body) != n {
			t.Fatalf("padded body of %d bytes, want %d", len(body), n)
		}
		return body
	}
	if _, _, err := ReadSystem(write("at_bound.json", pad(maxSystemFile))); err != nil {
		t.Errorf("a file of exactly %d bytes: %v", maxSystemFile, err)
	}
	if _, _, err := ReadSystem(write("over.json", pad(maxSystemFile+1))); !errors.Is(err, boundedread.ErrTooLarge) {
		t.Errorf("a file of %d bytes: err %v, want ErrTooLarge", maxSystemFile+1, err)
	}
	if _, _, err := ReadSystem("/dev/zero"); !errors.Is(err, boundedread.ErrNotRegular) {
		t.Errorf("/dev/zero: err %v, want ErrNotRegular", err)
	}
	if _, _, err := ReadSystem(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: err %v, want ErrNotExist", err)
	}
	for _, body := range []string{`[1, 2]`, `null`, `{"system_type": `, `"edge"`} {
		p := write("bad.json", body)
		if _, _, err := ReadSystem(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "system-template") {
			t.Errorf("%s: err %v, want one naming the file and system-template", body, err)
		}
	}
}
