package loadgentest

import (
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

// The Recorder copies Data (an SUT may reuse its buffer after Complete),
// counts repeated IDs and keeps first tokens.
func TestRecorderCopiesAndCounts(t *testing.T) {
	r := NewRecorder()
	buf := []byte{1, 2}
	r.FirstToken(7, buf[:1])
	r.Complete(loadgen.Response{ID: 7, Data: buf}, loadgen.Response{ID: 8})
	buf[0] = 9
	r.Complete(loadgen.Response{ID: 7, Data: []byte{3}})
	got := r.Wait(2)
	if len(got) != 2 || got[7].Data[0] != 3 || r.Count(7) != 2 || r.Count(8) != 1 || r.Duplicates() != 1 || r.Calls() != 2 {
		t.Fatalf("responses %v, counts %d %d, duplicates %d, calls %d", got, r.Count(7), r.Count(8), r.Duplicates(), r.Calls())
	}
	if f := r.First(7); len(f) != 1 || f[0] != 1 {
		t.Fatalf("first token %v, want the copy [1]", f)
	}
}
