package submission

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTruncateTestLogWritesTheHashAlone: for TEST07 and TEST09,
// truncate_accuracy_log.py writes accuracy.txt anew as "hash=<sha256 of
// the whole log>\n" and truncates the log to its first and last 4096
// bytes.
func TestTruncateTestLogWritesTheHashAlone(t *testing.T) {
	dir := t.TempDir()
	log := "[\n" + strings.Repeat(`{"seq_id": 0, "qsl_idx": 0, "data": "00000000"},`+"\n", 400) + "]\n"
	os.WriteFile(filepath.Join(dir, "mlperf_log_accuracy.json"), []byte(log), 0o644)
	os.WriteFile(filepath.Join(dir, "accuracy.txt"), []byte("stale\n"), 0o644)
	if err := truncateTestLog(dir); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(log))
	txt, _ := os.ReadFile(filepath.Join(dir, "accuracy.txt"))
	if string(txt) != "hash="+hex.EncodeToString(sum[:])+"\n" {
		t.Errorf("accuracy.txt %q", txt)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "mlperf_log_accuracy.json"))
	if want := log[:4096] + "\n\n...\n\n" + log[len(log)-4096:]; string(got) != want {
		t.Errorf("log not truncated to 4096 + 4096 bytes: %d bytes", len(got))
	}
}
