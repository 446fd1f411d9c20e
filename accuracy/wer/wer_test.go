package wer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/englishnorm"
	"github.com/mlperf-go/inference/datasets/librispeech"
)

// The goldens come from testdata/gen_golden.py, which runs the MLPerf
// reference's own helpers.py, legacy_helpers.py and accuracy_eval.py.

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestAlignmentMatchesReference: compute_wer_with_concatenation (distance
// and reference words), __levenshtein and get_expanded_wordlist on 600
// seeded word-list pairs built to have joins and splits.
func TestAlignmentMatchesReference(t *testing.T) {
	var cases []struct {
		Hyp, Ref    []string
		Distance    int
		Words       int
		Levenshtein int
		Expanded    []string
	}
	readJSON(t, "testdata/alignment.json", &cases)
	if len(cases) < 500 {
		t.Fatalf("%d cases", len(cases))
	}
	joins := 0
	for _, c := range cases {
		d, w := WithConcatenation(c.Hyp, c.Ref)
		if d != c.Distance || w != c.Words {
			t.Errorf("hyp %q ref %q: %d/%d, reference %d/%d", c.Hyp, c.Ref, d, w, c.Distance, c.Words)
		}
		if l := Levenshtein(c.Hyp, c.Ref); l != c.Levenshtein {
			t.Errorf("levenshtein %q %q = %d, reference %d", c.Hyp, c.Ref, l, c.Levenshtein)
		} else if d < l {
			joins++
		}
		if e := ExpandedWordList(c.Hyp, c.Ref); !slices.Equal(e, c.Expanded) && len(e)+len(c.Expanded) > 0 {
			t.Errorf("expanded %q (ref %q) = %q, reference %q", c.Hyp, c.Ref, e, c.Expanded)
		}
	}
	if joins < 20 {
		t.Errorf("only %d cases where concatenation lowers the distance", joins)
	}
}

// TestEncodeTranscriptMatchesReferenceSUT: reference_SUT.py's lower,
// strip and label filter on recorded Whisper-style outputs.
func TestEncodeTranscriptMatchesReferenceSUT(t *testing.T) {
	var cases []struct {
		Text   string
		Labels []int64
	}
	readJSON(t, "testdata/sut.json", &cases)
	for _, c := range cases {
		if got := EncodeTranscript(c.Text); !slices.Equal(got, c.Labels) && len(got)+len(c.Labels) > 0 {
			t.Errorf("%q: %v, reference %v", c.Text, got, c.Labels)
		}
		txt, err := LabelsToText(EncodeTranscript(c.Text))
		if err != nil || strings.ContainsFunc(txt, func(r rune) bool { return !strings.ContainsRune(librispeech.Labels, r) }) {
			t.Errorf("%q: round trip %q, %v", c.Text, txt, err)
		}
	}
}

// manifestRefs reads a case's dev-all-repack.json as the reference
// Manifest does for scoring: clips over 30 s dropped, transcripts
// filtered to the alphabet (datasets/librispeech has the full reader).
func manifestRefs(t *testing.T, path string) []string {
	var m []struct {
		Transcript       string  `json:"transcript"`
		OriginalDuration float64 `json:"original_duration"`
	}
	readJSON(t, path, &m)
	var refs []string
	for _, e := range m {
		if e.OriginalDuration <= 30 {
			refs = append(refs, librispeech.FilterTranscript(e.Transcript))
		}
	}
	return refs
}

// TestScoreLogPrintsReferenceLine: the accuracy line accuracy_eval.py
// printed on each case's log (recorded hypotheses, a perfect set, a log
// out of order with a repeated sample and an empty response), byte for
// byte.
func TestScoreLogPrintsReferenceLine(t *testing.T) {
	n, err := englishnorm.New()
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob("testdata/cases/*")
	if len(dirs) != 3 {
		t.Fatalf("%d cases", len(dirs))
	}
	for _, d := range dirs {
		t.Run(filepath.Base(d), func(t *testing.T) {
			r, err := ScoreLogFile(n, filepath.Join(d, "mlperf_log_accuracy.json"), manifestRefs(t, filepath.Join(d, "dev-all-repack.json")))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(filepath.Join(d, "expected.txt"))
			if got := r.Line() + "\n"; got != string(want) {
				t.Errorf("%q, reference %q", got, want)
			}
		})
	}
}

// TestScoreLogRefusesBadLogs: a response that is not whole int64s, a label
// outside the alphabet, a qsl_idx beyond the data set, no entries and
// references without words are errors naming the entry.
func TestScoreLogRefusesBadLogs(t *testing.T) {
	n, _ := englishnorm.New()
	refs := []string{"hello world", ""}
	for name, c := range map[string]struct {
		e    []accuracy.Entry
		refs []string
		want string
	}{
		"odd bytes": {[]accuracy.Entry{{QSLIdx: 0, Data: []byte{1, 2, 3}}}, refs, "not a whole number"},
		"label 42":  {[]accuracy.Entry{{QSLIdx: 0, Data: AppendInt64(nil, []int64{42})}}, refs, "outside the 42"},
		"label -1":  {[]accuracy.Entry{{QSLIdx: 0, Data: AppendInt64(nil, []int64{-1})}}, refs, "outside the 42"},
		"qsl_idx":   {[]accuracy.Entry{{QSLIdx: 2}}, refs, "qsl_idx 2"},
		"empty log": {nil, refs, "no entries"},
		"no words":  {[]accuracy.Entry{{QSLIdx: 1}}, refs, "divides by zero"},
	} {
		s := NewScorer(n, c.refs)
		var err error
		for _, e := range c.e {
			if err = s.Add(e); err != nil {
				break
			}
		}
		if err == nil {
			_, err = s.Result()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func TestLineFormatsAsPython(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{Result{0, 5}, "Word Error Rate: 0.0%, accuracy=100.0%"},
		{Result{5, 5}, "Word Error Rate: 100.0%, accuracy=0.0%"},
		{Result{12, 5}, "Word Error Rate: 240.0%, accuracy=-140.0%"},
		{Result{1, 3}, "Word Error Rate: 33.33333333333333%, accuracy=66.66666666666667%"},
	} {
		if got := c.r.Line(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}
