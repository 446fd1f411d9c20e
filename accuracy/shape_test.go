package accuracy

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRespLog writes an accuracy log of one entry per response.
func writeRespLog(t *testing.T, resp ...[]byte) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("[\n")
	for i, r := range resp {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s" }`, i, i, strings.ToUpper(hex.EncodeToString(r)))
	}
	b.WriteString("\n]\n")
	p := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func le32(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func le64(v ...uint64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return b
}

var (
	resnetShape = LogShape{Benchmark: "resnet50", DType: Int64, MinElems: 1, MaxElems: 1, MaxValue: 1001}
	bertShape   = LogShape{Benchmark: "bert", DType: Float32, MinElems: 768, MaxElems: 768}
	gptjShape   = LogShape{Benchmark: "gptj", DType: Int64, MinElems: 1, MaxElems: 128, MaxValue: 50401}
	llamaShape  = LogShape{Benchmark: "llama2-70b", DType: Int32, MinElems: 1, MaxElems: 1024, MaxValue: 32000}
)

func TestEmptyLogIsRefused(t *testing.T) {
	p := writeRespLog(t)
	if _, err := CheckLog(p, resnetShape); !errors.Is(err, ErrEmptyLog) {
		t.Fatalf("CheckLog: %v", err)
	}
	if _, err := Top1(p, []int{1, 2}, Int64); !errors.Is(err, ErrEmptyLog) || !strings.Contains(err.Error(), "run it again") {
		t.Fatalf("Top1: %v", err)
	}
}

// Logs of other benchmarks (or dtypes) are refused before scoring.
func TestCheckLogRefusesAnotherBenchmarksLog(t *testing.T) {
	bertResp := make([]byte, 768*4)
	gptjResp := le64(50256, 40000, 13)
	llamaResp := le32(1, 29871, 13)
	for _, tc := range []struct {
		shape LogShape
		resp  []byte
		ok    bool
	}{
		{resnetShape, le64(65), true},
		{resnetShape, bertResp, false}, // a BERT log as ResNet50
		{resnetShape, le32(65), false}, // int32 written, int64 expected
		{bertShape, bertResp, true},
		{bertShape, le64(65), false},
		{gptjShape, gptjResp, true},
		{llamaShape, llamaResp, true},
		{llamaShape, gptjResp, false},        // a GPT-J log as Llama 2: int64 ids
		{llamaShape, le32(50256, 13), false}, // GPT-J ids in int32: over the vocabulary
		{gptjShape, make([]byte, 129*8), false},
	} {
		p := writeRespLog(t, tc.resp, tc.resp)
		n, err := CheckLog(p, tc.shape)
		if tc.ok && (err != nil || n != 2) {
			t.Errorf("%s with %d bytes: n=%d err=%v", tc.shape.Benchmark, len(tc.resp), n, err)
		}
		if !tc.ok && !errors.Is(err, ErrWrongBenchmark) {
			t.Errorf("%s with %d bytes: err = %v, want ErrWrongBenchmark", tc.shape.Benchmark, len(tc.resp), err)
		}
		if !tc.ok && err != nil && !strings.Contains(err.Error(), tc.shape.Benchmark+" response is") {
			t.Errorf("message does not say what the benchmark writes: %v", err)
		}
	}
}
