package mixtraleval

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy/mbxp"
	"github.com/mlperf-go/inference/datasets/mixtral"
	"github.com/mlperf-go/inference/sandbox"
)

var update = flag.Bool("update", false, "rewrite the inputs of the golden (testdata/eval_*.json, eval_dataset.pkl)")

// The golden is made by testdata/make_golden.py, which runs the
// reference's evaluate-accuracy.py (its main(), with evaluate_mbxp.py and
// mxeval) on testdata/eval_dataset.pkl and the accuracy logs
// testdata/eval_log*.json, its tokenizer replaced by one that decodes an
// entry's ids to testdata/eval_texts.json[first id - 1000].

// responses are the decoded outputs of the golden's log, per data set row
// of eval_dataset.pkl (Synth order: OpenOrca, GSM8K, MBXP, ...; MBXP rows
// cpp, python, php, javascript, typescript, ruby).
func responses(samples []mixtral.Sample) []string {
	out := make([]string, len(samples))
	for i, s := range samples {
		k := i / 3
		switch s.Dataset {
		case mixtral.OpenOrca:
			out[i] = s.RefOutput // a prediction of the ROUGE golden's pairs
		case mixtral.GSM8K:
			out[i] = []string{
				s.RefOutput,
				"Tom has many apples. The answer is 3.",
				"So " + s.GtOutput + " apples.\nQ: next question, the answer is 12",
				"I do not know.",
				"The answer is " + s.GtOutput[:1] + "," + s.GtOutput[1:] + " apples.",
				"The answer is " + s.GtOutput + ".0, or maybe The answer is 7",
			}[k]
		default:
			switch k {
			case 3: // javascript: a syntax error
				out[i] = "\nfunction sumList(nums) {\n  return nums.reduce((a, b) => a + b, 0;\n}\n```\n"
			case 5: // ruby: wrong
				out[i] = strings.Replace(s.RefOutput, "nums.sum", "nums.sum + 1", 1)
			case 1: // python, with Mixtral's escaped underscores, no closing fence
				out[i] = strings.TrimSuffix(strings.ReplaceAll(s.RefOutput, "_", `\_`), "```\n")
			default:
				out[i] = s.RefOutput + "\nThis code sums the list."
			}
		}
	}
	return out
}

type logEntry struct {
	SeqID  int    `json:"seq_id"`
	QSLIdx int    `json:"qsl_idx"`
	Data   string `json:"data"`
}

// rougePairs are (prediction, target) pairs whose ROUGE scores the real
// rouge_score and NLTK computed (accuracy/rouge/testdata/rouge_golden.json):
// the golden's OpenOrca rows use six of them.
func rougePairs(t *testing.T) [][2]string {
	b, err := os.ReadFile("../rouge/testdata/rouge_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Pairs []struct{ Prediction, Target string }
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	for i, p := range g.Pairs {
		if i%7 == 3 && strings.TrimSpace(p.Prediction) != "" && strings.TrimSpace(p.Target) != "" && len(out) < 6 {
			out = append(out, [2]string{p.Prediction, p.Target})
		}
	}
	if len(out) != 6 {
		t.Fatalf("%d usable ROUGE pairs", len(out))
	}
	return out
}

// writeInputs writes the golden's inputs (with -update).
func writeInputs(t *testing.T) {
	samples, err := mixtral.Synth(mixtral.SynthConfig{Samples: 18, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	pairs := rougePairs(t)
	for i := range samples {
		if samples[i].Dataset == mixtral.OpenOrca {
			samples[i].RefOutput, samples[i].GtOutput = pairs[i/3][0], pairs[i/3][1]
		}
	}
	if err := mixtral.WriteFile("testdata/eval_dataset.pkl", samples); err != nil {
		t.Fatal(err)
	}
	var texts []string
	order := []int{5, 0, 17, 3, 9, 1, 12, 2, 4, 16, 6, 15, 7, 8, 10, 11, 13, 14}
	var full, noMBXP []logEntry
	add := func(log *[]logEntry, qsl int, text string) {
		k := len(texts)
		texts = append(texts, text)
		n := 3 + (qsl*7+len(*log)*5)%40
		ids := []int32{int32(1000 + k)}
		for range n {
			ids = append(ids, 3)
		}
		if qsl%2 == 0 {
			ids = append(ids, 2) // EOS, counted as the reference counts it
		}
		var b []byte
		for _, v := range ids {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		*log = append(*log, logEntry{SeqID: len(*log), QSLIdx: qsl, Data: strings.ToUpper(hex.EncodeToString(b))})
	}
	resp := responses(samples)
	for _, q := range order {
		add(&full, q, resp[q])
	}
	// Repeated entries: counted in gen_num, never scored.
	add(&full, 0, "a different answer for row 0")
	add(&full, 2, "int main() {}")
	add(&full, 17, resp[17])
	for _, q := range order {
		if samples[q].Dataset != mixtral.MBXP {
			add(&noMBXP, q, resp[q])
		}
	}
	for name, v := range map[string]any{"testdata/eval_texts.json": texts, "testdata/eval_log.json": full, "testdata/eval_log_nombxp.json": noMBXP} {
		b, _ := json.MarshalIndent(v, "", " ")
		if err := os.WriteFile(name, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readLog decodes an accuracy log as the golden's tokenizer does.
func readLog(t *testing.T, path string) []Entry {
	t.Helper()
	var texts []string
	b, err := os.ReadFile("testdata/eval_texts.json")
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &texts)
	var log []logEntry
	if b, err = os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	var out []Entry
	for _, e := range log {
		raw, err := hex.DecodeString(e.Data)
		if err != nil || len(raw)%4 != 0 {
			t.Fatalf("entry %d: %v", e.SeqID, err)
		}
		first := int(binary.LittleEndian.Uint32(raw))
		out = append(out, Entry{QSLIdx: e.QSLIdx, Tokens: len(raw) / 4, Text: texts[first-1000]})
	}
	return out
}

func golden(t *testing.T) map[string]string {
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]string
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func loadData(t *testing.T) *mixtral.Dataset {
	if *update {
		writeInputs(t)
	}
	d, err := mixtral.Load("testdata/eval_dataset.pkl")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestLineWithoutMBXPMatchesReference: a log of OpenOrca and GSM8K rows
// only prints 'mbxp': 0 (an int), as the reference does.
func TestLineWithoutMBXPMatchesReference(t *testing.T) {
	d := loadData(t)
	r, err := Evaluate(context.Background(), d, readLog(t, "testdata/eval_log_nombxp.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.String(), golden(t)["eval_log_nombxp.json"]; got != want {
		t.Fatalf("line\n%s\nwant the reference's\n%s", got, want)
	}
	var buf bytes.Buffer
	r.Report(&buf)
	if buf.String() != "\nResults\n\n"+r.String()+"\n" {
		t.Fatalf("report %q", buf.String())
	}
}

// TestLineMatchesReference: the full log (all three data sets, repeated
// entries, MBXP programs that pass, fail to compile and fail) prints the
// reference's line.
func TestLineMatchesReference(t *testing.T) {
	d := loadData(t)
	c, err := mbxp.NewChecker(nil)
	if err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	defer c.Close()
	var log bytes.Buffer
	r, err := Evaluate(context.Background(), d, readLog(t, "testdata/eval_log.json"), Options{Checker: c, Workers: 2, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.MBXP.Missing) > 0 {
		t.Skipf("the reference's line needs every MBXP toolchain:\n%s", log.String())
	}
	if got, want := r.String(), golden(t)["eval_log.json"]; got != want {
		t.Fatalf("line\n%s\nwant the reference's\n%s", got, want)
	}
	if r.GenNum != 21 || r.MBXP.Checked != 6 {
		t.Fatalf("gen_num %d, MBXP checked %d", r.GenNum, r.MBXP.Checked)
	}
}

func TestEvaluateRefusesBadLogs(t *testing.T) {
	d := loadData(t)
	if _, err := Evaluate(context.Background(), d, []Entry{{QSLIdx: 18}}, Options{}); err == nil || !strings.Contains(err.Error(), "qsl_idx 18") {
		t.Errorf("qsl_idx out of range: %v", err)
	}
	if _, err := Evaluate(context.Background(), d, []Entry{{QSLIdx: 0, Text: "x"}}, Options{}); !errors.Is(err, ErrNoGSM8K) {
		t.Errorf("no GSM8K row: %v", err)
	}
	bad := *d
	bad.Samples = append([]mixtral.Sample(nil), d.Samples...)
	bad.Samples[2].ID = "nolang"
	if _, err := Evaluate(context.Background(), &bad, []Entry{{QSLIdx: 1}, {QSLIdx: 2}}, Options{}); err == nil || !strings.Contains(err.Error(), "nolang") {
		t.Errorf("bad MBXP id: %v", err)
	}
}

func TestMain(m *testing.M) {
	flag.Parse()
	if _, err := os.Stat(filepath.Join("testdata", "golden.json")); err != nil && !*update {
		fmt.Fprintln(os.Stderr, "testdata/golden.json missing: run testdata/make_golden.py")
	}
	os.Exit(m.Run())
}
