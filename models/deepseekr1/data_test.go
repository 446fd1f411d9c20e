package deepseekr1

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/internal/deps"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

var (
	tokOnce sync.Once
	tok     *tokenizer.DeepSeek
	tokErr  error
)

func needTok(t testing.TB) *tokenizer.DeepSeek {
	t.Helper()
	tokOnce.Do(func() {
		var p string
		if p, tokErr = deps.Find("deepseek/tokenizer.json"); tokErr == nil {
			tok, tokErr = loadTokenizer(p)
		}
	})
	if tokErr != nil {
		t.Skipf("DeepSeek tokenizer not installed (make setup): %v", tokErr)
	}
	return tok
}

// TestPromptIsR1sChatTemplate: the prompt of a user message is DeepSeek-R1's
// template (BOS, <｜User｜>, the message, <｜Assistant｜><think>\n) and its
// ids are the markers' ids around the message's own.
func TestPromptIsR1sChatTemplate(t *testing.T) {
	msg := "What is $1+1$? Please reason step by step."
	if got, want := formatPrompt(msg), "<｜begin▁of▁sentence｜><｜User｜>"+msg+"<｜Assistant｜><think>\n"; got != want {
		t.Errorf("formatPrompt = %q, want %q", got, want)
	}
	tok := needTok(t)
	ids := encodePrompt(tok, msg)
	want := append([]int32{tokenizer.DeepSeekBOSID, tokenizer.DeepSeekUserID}, tok.Encode(msg, false)...)
	want = append(want, tokenizer.DeepSeekAssistantID, tokenizer.DeepSeekThinkID, newlineID)
	if !slices.Equal(ids, want) {
		t.Errorf("encodePrompt = %v\nwant %v", ids, want)
	}
	if got := tok.Decode(ids, tokenizer.DecodeOptions{}); got != formatPrompt(msg) {
		t.Errorf("ids decode to %q", got)
	}
}

// TestSynthVerifies: the synthetic set covers the five families, every
// prompt rebuilds from its text, and a prompt whose ids were changed is
// reported; --official refuses a set that is not the official size.
func TestSynthVerifies(t *testing.T) {
	tok := needTok(t)
	rows := synthesize(25, 3, tok)
	fam := map[string]int{}
	for _, r := range rows {
		f, ok := reasoning.Family(r.Dataset)
		if !ok || r.GroundTruth == "" || r.RefOutput == "" {
			t.Errorf("row %+v", r)
		}
		fam[f]++
	}
	if len(fam) != 5 {
		t.Errorf("families %v", fam)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, dataFileName)
	if err := reasoning.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	rep, err := reasoning.Verify(path, promptCheck(tok))
	if err != nil || rep.Rebuilt != 25 || rep.MismatchCount != 0 || rep.Rows != 25 {
		t.Fatalf("%v: %+v", err, rep)
	}
	rows[7].TokInput = slices.Insert(slices.Clone(rows[7].TokInput), 3, 100)
	bad := filepath.Join(dir, "bad.pkl")
	if err := reasoning.WriteFile(bad, rows); err != nil {
		t.Fatal(err)
	}
	if rep, err := reasoning.Verify(bad, promptCheck(tok)); err != nil || rep.MismatchCount != 1 || !slices.Equal(rep.Mismatched, []int{7}) {
		t.Errorf("changed row 7: %v %+v", err, rep)
	}
	var out, errOut strings.Builder
	req := &spec.DatasetRequest{Data: path, Extra: spec.Extra{"tokenizer": filepath.Dir(mustFind(t)), "official": "true"}, Stdout: &out, Stderr: &errOut}
	if err := verifyDataset(req); err == nil || !strings.Contains(err.Error(), "4388") {
		t.Errorf("--official on 25 rows: %v", err)
	}
	req.Extra["official"] = "false"
	if err := verifyDataset(req); err != nil || !strings.Contains(out.String(), "25 rows") || !strings.Contains(out.String(), "0 differ") {
		t.Errorf("verify: %v\n%s", err, out.String())
	}
}

func mustFind(t *testing.T) string {
	p, err := deps.Find("deepseek/tokenizer.json")
	if err != nil {
		t.Skip(err)
	}
	return p
}

// TestPromptWithoutTemplateRefused: a data set whose prompts lack the chat
// template (ids of the bare text) fails verification naming the row.
func TestPromptWithoutTemplateRefused(t *testing.T) {
	tok := needTok(t)
	rows := synthesize(5, 1, tok)
	rows[2].TokInput = tok.Encode(rows[2].TextInput, true)
	path := filepath.Join(t.TempDir(), "bare.pkl")
	if err := reasoning.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	if _, err := reasoning.Verify(path, promptCheck(tok)); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("bare prompt: %v", err)
	}
}

// TestLoadDataRefusesOtherModelsIDs: ids beyond DeepSeek's vocabulary
// (gpt-oss's o200k) are refused before a run starts.
func TestLoadDataRefusesOtherModelsIDs(t *testing.T) {
	tok := needTok(t)
	rows := synthesize(5, 1, tok)
	rows[4].TokInput = append(slices.Clone(rows[4].TokInput[:3]), 200006, 200008)
	dir := t.TempDir()
	if err := reasoning.WriteFile(filepath.Join(dir, dataFileName), rows); err != nil {
		t.Fatal(err)
	}
	if _, err := loadData(dir, t.TempDir(), tok, os.Stderr); err == nil || !strings.Contains(err.Error(), "row 4") || !strings.Contains(err.Error(), "vocabulary") {
		t.Errorf("o200k ids: %v", err)
	}
	if _, err := loadData(t.TempDir(), t.TempDir(), tok, os.Stderr); err == nil || !strings.Contains(err.Error(), "download_dataset.sh") {
		t.Errorf("folder without the file: %v", err)
	}
	// synthetic: generated once into the cache, then read back
	cache := t.TempDir()
	s, err := loadData("synthetic", cache, tok, os.Stderr)
	if err != nil || s.Len() != synthRows {
		t.Fatalf("synthetic: %v", err)
	}
}
