package mixtral

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/datasets/mixtral"
	"github.com/mlperf-go/inference/internal/deps"
)

// writeLog writes an accuracy log whose entry k answers row qsl[k] with
// ids, as int32 or int64.
func writeLog(t *testing.T, qsl []int, ids [][]int32, wide bool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("[\n")
	for k, q := range qsl {
		var raw []byte
		for _, id := range ids[k] {
			if wide {
				raw = binary.LittleEndian.AppendUint64(raw, uint64(id))
			} else {
				raw = binary.LittleEndian.AppendUint32(raw, uint32(id))
			}
		}
		sep := ","
		if k == len(qsl)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "{ \"seq_id\" : %d, \"qsl_idx\" : %d, \"data\" : \"%s\", \"token_count\" : %d }%s\n", k, q, strings.ToUpper(hex.EncodeToString(raw)), len(ids[k]), sep)
	}
	b.WriteString("]\n")
	p := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScoreLogReferenceAnswers scores the synthetic rows' reference
// answers (tok_ref_output: right by construction) as a SUT would log
// them: every OpenOrca answer is its target (ROUGE 100), every GSM8K one
// right, both MBXP programs (C++, Python) pass in the sandbox; a repeated
// qsl_idx counts in gen_num only; int64 logs read the same with --dtype
// int64; an id outside the vocabulary is an error naming the entry.
func TestScoreLogReferenceAnswers(t *testing.T) {
	p, err := deps.Find("mixtral/mistral-tokenizer.js")
	if err != nil {
		t.Skipf("Mixtral tokenizer not installed: %v", err)
	}
	tok, err := loadTokenizer(p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), mixtral.FileName)
	if err := synthFile(path, mixtral.SynthConfig{Samples: 6, Seed: 3}, tok); err != nil {
		t.Fatal(err)
	}
	ds, err := mixtral.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	qsl := []int{0, 1, 2, 3, 4, 5, 1}
	ids := make([][]int32, len(qsl))
	tokens := 0
	for k, q := range qsl {
		ids[k] = mixtral.TrimOutput(ds.Samples[q].Dataset, ds.Samples[q].TokRefOutput)
		if k < 6 {
			tokens += len(ids[k])
		}
	}
	for _, wide := range []bool{false, true} {
		dt := accuracy.Int32
		if wide {
			dt = accuracy.Int64
		}
		res, err := scoreLog(context.Background(), writeLog(t, qsl, ids, wide), ds, tok, dt, nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if res.Rouge == nil || res.Rouge.Rouge1 < 99.99 || res.GSM8K.Accuracy != 100 || res.GenNum != 7 || res.GenTokLen != tokens {
			t.Errorf("int64 %v: %s", wide, res)
		}
		if res.MBXP == nil || res.MBXP.PassRate != 100 {
			t.Errorf("int64 %v: MBXP %+v (are g++ and python3 installed?)", wide, res.MBXP)
		}
	}
	bad := writeLog(t, []int{1}, [][]int32{{5, 32000}}, false)
	if _, err := scoreLog(context.Background(), bad, ds, tok, accuracy.Int32, nil, io.Discard); err == nil || !strings.Contains(err.Error(), "qsl_idx 1: id 32000 is outside the vocabulary") {
		t.Errorf("id 32000: %v", err)
	}
	far := writeLog(t, []int{9}, [][]int32{{5}}, false)
	if _, err := scoreLog(context.Background(), far, ds, tok, accuracy.Int32, nil, io.Discard); err == nil || !strings.Contains(err.Error(), "qsl_idx 9") {
		t.Errorf("qsl_idx 9 of 6 rows: %v", err)
	}
}
