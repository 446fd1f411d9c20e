package choice

import (
	"encoding/json"
	"testing"

	"github.com/mlperf-go/inference/internal/goldentest"
)

// TestParseMatchesReferences holds both parsers and the check to the
// reference functions' outputs on the recorded outputs of
// accuracy/reasoneval/testdata/recorded.py (testdata/choice_golden.json.gz,
// written by its make_goldens.py parse): 240 GPQA and 240 MMLU-Pro
// outputs in DeepSeek-R1 and Harmony styles.
func TestParseMatchesReferences(t *testing.T) {
	b, err := goldentest.ReadFile("testdata/choice_golden.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Text, Max, Truth string
		R1, Harmony      *string
		R1OK             bool `json:"r1_ok"`
		HarmonyOK        bool `json:"harmony_ok"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 400 {
		t.Fatalf("only %d cases", len(cases))
	}
	n := map[string]int{}
	for _, c := range cases {
		max := c.Max[0]
		opts := GPQA
		if max == 'J' {
			opts = MMLUPro
		}
		for _, f := range []struct {
			name  string
			parse func(string, byte) (string, bool)
			want  *string
			ok    bool
		}{{"deepseek-r1", ParseR1, c.R1, c.R1OK}, {"gpt-oss", ParseHarmony, c.Harmony, c.HarmonyOK}} {
			got, ok := f.parse(c.Text, max)
			if ok != (f.want != nil) || ok && got != *f.want {
				t.Errorf("%s parse(%q, %c) = %q %v, reference %v", f.name, c.Text, max, got, ok, deref(f.want))
				continue
			}
			if Correct(got, ok, c.Truth, opts) != f.ok {
				t.Errorf("%s evaluate(%q, %q) = %v, reference %v", f.name, got, c.Truth, !f.ok, f.ok)
			}
			if ok {
				n[f.name+" parsed"]++
			}
			if f.ok {
				n[f.name+" correct"]++
			}
		}
	}
	t.Logf("%d outputs: %v", len(cases), n)
}

func deref(s *string) string {
	if s == nil {
		return "None"
	}
	return *s
}
