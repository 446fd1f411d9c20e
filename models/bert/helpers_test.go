package bert

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/datasets/squad"
)

const synthSmallPath = "../../datasets/squad/testdata/synth_small.json"

var (
	vocabOnce sync.Once
	vocabPath string
)

// testVocabPath finds the uncased vocab: $BERT_VOCAB, the setup step's copy
// in .deps, or the file inside the sugarme/tokenizer module (always in the
// module cache when this package compiles).
func testVocabPath(t testing.TB) string {
	t.Helper()
	vocabOnce.Do(func() {
		cands := []string{os.Getenv("BERT_VOCAB"), "../../.deps/bert/vocab.txt"}
		modcache := os.Getenv("GOMODCACHE")
		if modcache == "" {
			if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
				modcache = strings.TrimSpace(string(out))
			}
		}
		if modcache != "" {
			cands = append(cands, filepath.Join(modcache, "github.com/sugarme/tokenizer@v0.3.0/pretrained/model/bert-base-uncased-vocab.txt"))
		}
		for _, c := range cands {
			if c == "" {
				continue
			}
			if _, err := os.Stat(c); err == nil {
				vocabPath = c
				return
			}
		}
	})
	if vocabPath == "" {
		t.Fatal("no BERT vocab: run make setup, or set BERT_VOCAB to vocab.txt")
	}
	return vocabPath
}

var (
	tokOnce sync.Once
	tokTest *wordPieceTokenizer
	tokErr  error
)

func testTokenizer(t testing.TB) *wordPieceTokenizer {
	t.Helper()
	p := testVocabPath(t)
	tokOnce.Do(func() {
		var v *vocab
		v, tokErr = loadVocab(p)
		if tokErr == nil {
			tokTest = newTokenizer(v)
		}
	})
	if tokErr != nil {
		t.Fatal(tokErr)
	}
	return tokTest
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func synthSmall(t testing.TB) ([]example, []feature) {
	t.Helper()
	ds, err := squad.Load(synthSmallPath)
	if err != nil {
		t.Fatal(err)
	}
	exs := examples(ds)
	feats, err := buildFeatures(exs, testTokenizer(t), defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	return exs, feats
}
