package llama3

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/rouge"
	"github.com/mlperf-go/inference/internal/deps"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

var loadTok = sync.OnceValues(func() (*tokenizer.Llama3, error) {
	p, err := deps.Find("llama3")
	if err != nil {
		return nil, err
	}
	return tokenizer.LoadLlama3(p)
})

func needTok(t testing.TB) *tokenizer.Llama3 {
	t.Helper()
	tok, err := loadTok()
	if err != nil {
		t.Skipf("Llama 3.1 tokenizer not installed (make setup): %v", err)
	}
	return tok
}

// writeLog writes an accuracy log whose entry k holds ids[k] for qsl_idx
// idx[k] as dtype.
func writeLog(t *testing.T, idx []int, ids [][]int32, dtype accuracy.DType) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("[\n")
	for k := range idx {
		var data []byte
		if dtype == accuracy.Int64 {
			for _, v := range ids[k] {
				var w [8]byte
				for i := range 8 {
					w[i] = byte(uint64(int64(v)) >> (8 * i))
				}
				data = append(data, w[:]...)
			}
		} else {
			data = generate.EncodeInt32(nil, ids[k])
		}
		if k > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%s" }`, k, idx[k], strings.ToUpper(hex.EncodeToString(data)))
	}
	b.WriteString("\n]\n")
	p := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScoreMatchesEvaluationPy feeds scoreLog the 60 prediction/target pairs
// of accuracy/rouge's golden (made with rouge_score and NLTK, printed by
// the evaluation.py that language/gpt-j and language/llama3.1-8b share)
// as Llama 3.1 ids, with <|eot_id|> after some and a duplicate entry that
// must be ignored; the printed line is the golden's, except for pair 4
// ("!!! ??? ...") whose clean-up by the Llama 3.1 decode shortens gen_len
// by what Postprocess measures.
func TestScoreMatchesEvaluationPy(t *testing.T) {
	tok := needTok(t)
	b, err := os.ReadFile(filepath.Join("..", "..", "accuracy", "rouge", "testdata", "rouge_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Pairs []struct {
			Prediction, Target string
		}
		GPTJPrint string `json:"gptj_print"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Pairs) != 60 {
		t.Fatalf("%d pairs", len(g.Pairs))
	}
	var idx []int
	var ids [][]int32
	targets := make([]string, len(g.Pairs))
	for i, p := range g.Pairs {
		targets[i] = p.Target
		e := tok.Encode(p.Prediction, false)
		if i%3 == 0 {
			e = append(e, tokenizer.Llama3EOTID)
		}
		idx = append(idx, i)
		ids = append(ids, e)
	}
	// a later duplicate of qsl_idx 7 with other ids is ignored
	idx = append(idx, 7)
	ids = append(ids, tok.Encode("completely different words", false))
	for _, dt := range []accuracy.DType{accuracy.Int32, accuracy.Int64} {
		r, err := scoreLog(writeLog(t, idx, ids, dt), targets, tok, dt)
		if err != nil {
			t.Fatal(err)
		}
		orig := g.Pairs[4].Prediction
		cleaned := tokenizer.CleanUpTokenization(orig)
		if cleaned == orig {
			t.Fatal("pair 4 is no longer changed by the clean-up")
		}
		want := strings.Replace(g.GPTJPrint, "'gen_len': 14828",
			fmt.Sprintf("'gen_len': %d", 14828-utf8.RuneCountInString(rouge.Postprocess(orig))+utf8.RuneCountInString(rouge.Postprocess(cleaned))), 1)
		if got := resultLine(r); got != want {
			t.Errorf("%s:\n got %s\nwant %s", dt, got, want)
		}
		if r.GenNum != 60 || r.GenTokLen < 60 {
			t.Errorf("%s: gen_num %d, generated ids %d", dt, r.GenNum, r.GenTokLen)
		}
	}
}

func TestScoreRefusesBadLogs(t *testing.T) {
	tok := needTok(t)
	targets := []string{"a .", "b ."}
	for name, tc := range map[string]struct {
		idx  []int
		ids  [][]int32
		want string
	}{
		"qsl_idx outside": {[]int{2}, [][]int32{{9906}}, "qsl_idx 2"},
		"id outside":      {[]int{0}, [][]int32{{128256}}, "outside the vocabulary"},
		"negative id":     {[]int{0}, [][]int32{{-5}}, "outside the vocabulary"},
	} {
		_, err := scoreLog(writeLog(t, tc.idx, tc.ids, accuracy.Int32), targets, tok, accuracy.Int32)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := scoreLog(writeLog(t, []int{0}, [][]int32{{1}}, accuracy.Int32), targets, tok, accuracy.Float32); err == nil {
		t.Error("float32 ids accepted")
	}
	if _, err := scoreLog(filepath.Join(t.TempDir(), "none.json"), targets, tok, ""); err == nil {
		t.Error("missing log accepted")
	}
}
