//go:build bigtests

// Opt-in tests on inputs too large to commit or to make in every run:
// `go test -tags bigtests` compiles them, and each reads the environment
// variables its comment names. They are left out of `make test`, so that
// it runs without skips.

package bert

import (
	"os"
	"testing"
)

// TestFeaturesReferenceFile compares with features the reference made from
// any SQuAD file (gen_goldens.py --features-only): set BERT_SQUAD_FILE and
// BERT_FEATURES_GOLDEN. Used for the dev-sized synthetic file and real
// SQuAD text, which are too large to commit.
func TestFeaturesReferenceFile(t *testing.T) {
	file, golden := os.Getenv("BERT_SQUAD_FILE"), os.Getenv("BERT_FEATURES_GOLDEN")
	if file == "" || golden == "" {
		t.Skip("set BERT_SQUAD_FILE and BERT_FEATURES_GOLDEN to compare a large file")
	}
	compareFeatures(t, file, golden)
}

// TestPostprocessReferenceFile is TestPostprocessGolden for a large file:
// set BERT_SQUAD_FILE and BERT_POSTPROCESS_GOLDEN (gen_goldens.py --out DIR
// writes DIR/postprocess_golden.json).
func TestPostprocessReferenceFile(t *testing.T) {
	file, golden := os.Getenv("BERT_SQUAD_FILE"), os.Getenv("BERT_POSTPROCESS_GOLDEN")
	if file == "" || golden == "" {
		t.Skip("set BERT_SQUAD_FILE and BERT_POSTPROCESS_GOLDEN to compare a large file")
	}
	comparePostprocess(t, file, golden)
}
