package llmbench

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/llm/generate"
)

// logEntry is one accuracy-log entry for writeLog; tokenCount < 0 leaves
// token_count out, first nil leaves token_data out.
type logEntry struct {
	qsl        int
	data       []int32
	first      []int32
	tokenCount int
}

func writeLog(t *testing.T, entries []logEntry) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("[\n")
	for i, e := range entries {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s"`, i, e.qsl, strings.ToUpper(hex.EncodeToString(generate.EncodeInt32(nil, e.data))))
		if e.first != nil {
			fmt.Fprintf(&b, `, "token_data" : "%s"`, strings.ToUpper(hex.EncodeToString(generate.EncodeInt32(nil, e.first))))
		}
		if e.tokenCount >= 0 {
			fmt.Fprintf(&b, `, "token_count" : %d`, e.tokenCount)
		}
		b.WriteString(" }")
	}
	b.WriteString("\n]\n")
	path := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// EOS is the end-of-sequence id of these tests (Llama 2's).
const EOS = 2

func TestCheckTEST06(t *testing.T) {
	good := []logEntry{
		{0, []int32{5, 6, 7, EOS}, []int32{5}, 4},
		{1, []int32{9, 8}, []int32{9}, 2},     // no EOS: stopped at the token limit
		{1, []int32{9, 8}, []int32{9}, 2},     // a duplicate is checked too
		{2, []int32{EOS, EOS}, []int32{2}, 2}, // index 0 is never counted, as in eos_check
	}
	for _, tc := range []struct {
		name     string
		scenario string
		entries  []logEntry
		first    bool
		eos      bool
		length   bool
		failure  string
	}{
		{"server pass", "Server", good, true, true, true, ""},
		{"offline pass", "Offline", good, true, true, true, ""},
		{"two trailing EOS", "Server", append(good[:1:1], logEntry{3, []int32{4, EOS, EOS}, []int32{4}, 3}), true, false, true, "qsl_idx 3: 2 trailing EOS"},
		{"first token differs", "Server", []logEntry{{0, []int32{5, 6}, []int32{6}, 2}}, false, true, true, "token_data[0] = 6, data[0] = 5"},
		{"first token not checked in Offline", "Offline", []logEntry{{0, []int32{5, 6}, nil, 2}}, true, true, true, ""},
		{"no token_data in Server", "Server", []logEntry{{0, []int32{5, 6}, nil, 2}}, false, true, true, "no token_data"},
		// the reference quirk: the first token left out of the response
		{"response without its first token", "Server", []logEntry{{0, []int32{6, 7}, []int32{5}, 3}}, false, true, false, "token_count 3"},
		{"no token_count", "Offline", []logEntry{{0, []int32{5, 6}, nil, -1}}, true, true, false, "present false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := CheckTEST06(writeLog(t, tc.entries), tc.scenario, "", EOS)
			if err != nil {
				t.Fatal(err)
			}
			if r.FirstToken != tc.first || r.EOS != tc.eos || r.Length != tc.length || r.Samples != len(tc.entries) {
				t.Fatalf("%+v", r)
			}
			if r.Pass() != (tc.failure == "") || !strings.Contains(strings.Join(r.Failures, "\n"), tc.failure) {
				t.Fatalf("pass %v, failures %q, want %q", r.Pass(), r.Failures, tc.failure)
			}
			want := "TEST06 verification complete\n"
			if !r.Pass() {
				want = "TEST06 verification failed\n"
			}
			if !strings.HasSuffix(r.String(), want) || strings.Contains(r.String(), "Skipped") != (tc.scenario == "Offline") {
				t.Fatalf("report:\n%s", r)
			}
		})
	}
	if _, err := CheckTEST06(filepath.Join(t.TempDir(), "none.json"), "Server", accuracy.Int32, EOS); err == nil {
		t.Fatal("missing log: no error")
	}
	bad := writeLog(t, []logEntry{{0, []int32{1}, nil, 1}})
	os.WriteFile(bad, []byte(`[{ "seq_id" : 0, "qsl_idx" : 0, "data" : "010203" }]`), 0o644)
	if _, err := CheckTEST06(bad, "Offline", accuracy.Int32, EOS); err == nil || !strings.HasPrefix(err.Error(), "llmbench: ") {
		t.Fatalf("3-byte response: %v", err)
	}
}
