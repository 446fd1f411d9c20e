package compliance

import (
	"os"
	"path/filepath"
	"testing"
)

// A folder stands for the accuracy log in it; a file or a missing path
// is itself.
func TestAccuracyLogIn(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "log.json")
	os.WriteFile(f, []byte("[]"), 0o644)
	for _, c := range []struct{ in, want string }{
		{dir, filepath.Join(dir, "mlperf_log_accuracy.json")},
		{f, f},
		{filepath.Join(dir, "missing"), filepath.Join(dir, "missing")},
	} {
		if got := AccuracyLogIn(c.in); got != c.want {
			t.Errorf("AccuracyLogIn(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// The compliance folder's audit.config is the default only when it is a
// regular file.
func TestDefaultAuditConfig(t *testing.T) {
	dir := t.TempDir()
	if got := DefaultAuditConfig(dir); got != "" {
		t.Errorf("no audit.config: %q, want \"\"", got)
	}
	os.Mkdir(filepath.Join(dir, "audit.config"), 0o755)
	if got := DefaultAuditConfig(dir); got != "" {
		t.Errorf("audit.config a folder: %q, want \"\"", got)
	}
	other := t.TempDir()
	p := filepath.Join(other, "audit.config")
	os.WriteFile(p, []byte("*.*.mode = 2\n"), 0o644)
	if got := DefaultAuditConfig(other); got != p {
		t.Errorf("audit.config present: %q, want %q", got, p)
	}
}

// Verdict says PASS exactly when every check that ran passed.
func TestResultVerdict(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{Result{AccuracyChecked: true, AccuracyPass: true, PerformanceCheck: true, PerformancePass: true}, "PASS"},
		{Result{AccuracyChecked: true, AccuracyPass: false}, "FAIL"},
		{Result{PerformanceCheck: true, PerformancePass: false, AccuracyPass: true}, "FAIL"},
		{Result{AccuracyPass: false}, "PASS"}, // nothing checked
	} {
		if got := c.r.Verdict(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.r, got, c.want)
		}
	}
}
