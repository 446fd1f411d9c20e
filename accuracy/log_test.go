package accuracy

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log in LoadGen's exact layout: labels as float32 (65 -> 00008242).
const loadgenLog = "[\n" +
	`{ "seq_id" : 0, "qsl_idx" : 2, "data" : "00008242" }` + ",\n" +
	`{ "seq_id" : 1, "qsl_idx" : 0, "data" : "00000000" }` + ",\n" +
	`{ "seq_id" : 2, "qsl_idx" : 2, "data" : "0000803F" }` + ",\n" +
	`{ "seq_id" : 3, "qsl_idx" : 1, "data" : "0000803F" }` +
	"\n]\n"

func writeLog(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTop1FirstOccurrenceWins(t *testing.T) {
	// qsl 2 is first 65 (right), then 1 (wrong, ignored as a duplicate).
	r, err := Top1(writeLog(t, loadgenLog), []int{0, 5, 65}, Float32)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.String(); got != "accuracy=66.667%, good=2, total=3" {
		t.Fatalf("got %q", got)
	}
	if r.Dupes != 1 {
		t.Fatalf("dupes %d, want 1", r.Dupes)
	}
}

func TestTop1Int64Responses(t *testing.T) {
	log := "[\n" + `{ "seq_id" : 0, "qsl_idx" : 0, "data" : "4100000000000000" }` + "\n]\n"
	r, err := Top1(writeLog(t, log), []int{65}, Int64)
	if err != nil || r.Good != 1 {
		t.Fatalf("r=%v err=%v", r, err)
	}
}

// An empty log (an interrupted run) is not a score of 0 of 0.
func TestEmptyLog(t *testing.T) {
	r, err := Top1(writeLog(t, "[\n]\n"), []int{1}, Float32)
	if !errors.Is(err, ErrEmptyLog) || r.Total != 0 {
		t.Fatalf("r=%v err=%v, want ErrEmptyLog", r, err)
	}
}

func TestBadLogsAreClearErrors(t *testing.T) {
	for name, c := range map[string]struct {
		log, want string
		labels    []int
	}{
		"truncated":    {loadgenLog[:60], "truncated", []int{0, 5, 65}},
		"not an array": {`{"a":1}`, "'['", []int{1}},
		"odd hex":      {`[{"seq_id":4,"qsl_idx":0,"data":"ABC"}]`, "seq_id 4", []int{1}},
		"short float":  {`[{"seq_id":5,"qsl_idx":0,"data":"ABCD"}]`, "seq_id 5", []int{1}},
		"out of range": {`[{"seq_id":6,"qsl_idx":9,"data":"00000000"}]`, "qsl_idx 9", []int{1}},
		"missing data": {`[{"seq_id":7,"qsl_idx":0}]`, "lacks", []int{1}},
	} {
		_, err := Top1(writeLog(t, c.log), c.labels, Float32)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, c.want)
		}
	}
}

func TestTokenFields(t *testing.T) {
	log := `[{ "seq_id" : 0, "qsl_idx" : 3, "data" : "0100000002000000", "token_data" : "01000000", "token_count" : 2 }]`
	r, err := NewLogReader(strings.NewReader(log), "x")
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.Next()
	if err != nil || !e.HasTokens || e.TokenCount != 2 || len(e.TokenData) != 4 || len(e.Data) != 8 {
		t.Fatalf("e=%+v err=%v", e, err)
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("err = %v, want EOF", err)
	}
}

func TestDecodeDTypes(t *testing.T) {
	for _, c := range []struct {
		d    DType
		data []byte
		want float64
	}{
		{Float32, []byte{0, 0, 0x82, 0x42}, 65},
		{Float16, []byte{0x00, 0x3c}, 1},
		{Float16, []byte{0x01, 0x00}, 5.960464477539063e-08},
		{Int32, []byte{0xff, 0xff, 0xff, 0xff}, -1},
		{Int8, []byte{0x80}, -128},
		{Uint8, []byte{0x80}, 128},
	} {
		v, err := Decode(c.data, c.d)
		if err != nil || v[0] != c.want {
			t.Errorf("%s %x: %v %v, want %v", c.d, c.data, v, err, c.want)
		}
	}
}

func FuzzLogReader(f *testing.F) {
	f.Add([]byte(loadgenLog))
	f.Add([]byte("[\n]\n"))
	f.Add([]byte(`[{"seq_id":1,"qsl_idx":2,"data":"zz"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewLogReader(strings.NewReader(string(b)), "fuzz")
		if err != nil {
			return
		}
		for i := 0; i < 1000; i++ {
			e, err := r.Next()
			if err != nil {
				return
			}
			_, _ = Decode(e.Data, Float32)
		}
	})
}
