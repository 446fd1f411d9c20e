package squad

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

const smallFixture = "testdata/synth_small.json"

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
		version         bool
	}{
		{"v2", `{"version": "v2.0", "data": []}`, `version "v2.0", want "1.1"`, true},
		{"no version", `{"data": []}`, `no "version"`, true},
		{"numeric version", `{"version": 1.1, "data": []}`, "not a SQuAD JSON file", false},
		{"not json", `<html>`, "not a SQuAD JSON file", false},
		{"truncated", `{"version": "1.1", "data": [{"title": "x", "paragraphs": [`, "not a SQuAD JSON file", false},
		{"no id", `{"version": "1.1", "data": [{"paragraphs": [{"context": "c", "qas": [{"question": "q"}]}]}]}`, `has no "id"`, false},
	} {
		_, err := Read(strings.NewReader(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want it to mention %q", tc.name, err, tc.want)
		}
		if tc.version != errors.Is(err, ErrVersion) {
			t.Errorf("%s: errors.Is(err, ErrVersion) = %v", tc.name, !tc.version)
		}
	}
}

func TestLoadNamesFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "dev-v2.0.json")
	if err := os.WriteFile(p, []byte(`{"version": "v2.0", "data": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), p) || !errors.Is(err, ErrVersion) {
		t.Errorf("Load: %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "download_dataset.sh") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

// TestSynthFixture: Synth(SmallSynth) is deterministic and equals the
// committed fixture that the BERT and accuracy goldens were made from.
func TestSynthFixture(t *testing.T) {
	want, err := os.ReadFile(smallFixture)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		ds, err := Synth(SmallSynth)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := ds.Write(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Fatal("Synth(SmallSynth) differs from testdata/synth_small.json; regenerate the fixture and the goldens (models/bert/testdata/gen_goldens.py)")
		}
	}
	ds, err := Load(smallFixture)
	if err != nil {
		t.Fatal(err)
	}
	if ds.NumQuestions() != SmallSynth.Questions || ds.NumParagraphs() != SmallSynth.Paragraphs || len(ds.Data) != SmallSynth.Articles {
		t.Errorf("fixture has %d questions, %d paragraphs, %d articles", ds.NumQuestions(), ds.NumParagraphs(), len(ds.Data))
	}
}

// TestSynthAnswers: every answer is its context's text at answer_start
// (code points), and the dev-sized file has the dev set's shape.
func TestSynthAnswers(t *testing.T) {
	for _, cfg := range []SynthConfig{SmallSynth, DevSizedSynth} {
		ds, err := Synth(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if ds.NumQuestions() != cfg.Questions || ds.NumParagraphs() != cfg.Paragraphs || len(ds.Data) != cfg.Articles {
			t.Fatalf("%d questions, %d paragraphs, %d articles; want %d, %d, %d", ds.NumQuestions(), ds.NumParagraphs(), len(ds.Data), cfg.Questions, cfg.Paragraphs, cfg.Articles)
		}
		long := 0
		for _, a := range ds.Data {
			for _, p := range a.Paragraphs {
				ctx := []rune(p.Context)
				if len(strings.Fields(p.Context)) >= cfg.LongMinWords {
					long++
				}
				for _, qa := range p.QAs {
					if len(qa.Answers) == 0 || qa.Question == "" {
						t.Fatalf("%s: no answer or question", qa.ID)
					}
					for _, ans := range qa.Answers {
						n := utf8.RuneCountInString(ans.Text)
						if ans.AnswerStart < 0 || ans.AnswerStart+n > len(ctx) || string(ctx[ans.AnswerStart:ans.AnswerStart+n]) != ans.Text {
							t.Fatalf("%s: answer %q not at %d", qa.ID, ans.Text, ans.AnswerStart)
						}
					}
				}
			}
		}
		if long == 0 {
			t.Errorf("no long context in %+v", cfg)
		}
	}
	if _, err := Synth(SynthConfig{Articles: 2, Paragraphs: 1}); err == nil {
		t.Error("bad config accepted")
	}
}

func TestCalibration(t *testing.T) {
	for _, tc := range []struct{ data, md5 string }{
		{calibrationFeatures, CalibrationFeaturesMD5},
		{calibrationQasIDs, CalibrationQasIDsMD5},
	} {
		sum := md5.Sum([]byte(tc.data))
		if got := hex.EncodeToString(sum[:]); got != tc.md5 {
			t.Errorf("embedded calibration list md5 %s, want %s", got, tc.md5)
		}
	}
	feats, err := CalibrationFeatures()
	if err != nil {
		t.Fatal(err)
	}
	ids := CalibrationQasIDs()
	if len(feats) != 100 || len(ids) != 100 {
		t.Fatalf("%d feature indices, %d qas ids", len(feats), len(ids))
	}
	for _, f := range feats {
		if f >= DevFeatures {
			t.Errorf("feature index %d >= %d", f, DevFeatures)
		}
	}
	for _, id := range ids {
		if len(id) != 24 {
			t.Errorf("qas id %q", id)
		}
	}
}

func TestVerify(t *testing.T) {
	rep, err := Verify(smallFixture)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Official || rep.Questions != SmallSynth.Questions || len(rep.MD5) != 32 {
		t.Errorf("report %+v", rep)
	}
	got, err := FileMD5(smallFixture)
	if err != nil || got != rep.MD5 {
		t.Errorf("FileMD5 = %s, %v; Verify said %s", got, err, rep.MD5)
	}
}

// TestDownloadScript runs download_dataset.sh against a local file:// URL:
// a wrong file is refused by its MD5, the right one (MD5 given through
// SQUAD_MD5, as for a mirror) is installed, and a second run is a no-op.
func TestDownloadScript(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	dir := t.TempDir()
	src, err := filepath.Abs(smallFixture)
	if err != nil {
		t.Fatal(err)
	}
	run := func(env ...string) (string, error) {
		cmd := exec.Command("bash", "download_dataset.sh", dir)
		cmd.Env = append(os.Environ(), append([]string{"SQUAD_URL=file://" + src}, env...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(); err == nil || !strings.Contains(out, "md5 mismatch") {
		t.Fatalf("wrong file accepted: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, DevFileName)); err == nil {
		t.Fatal("a file that failed its check was left in place")
	}
	sum, _ := FileMD5(smallFixture)
	if out, err := run("SQUAD_MD5=" + sum); err != nil || !strings.Contains(out, "wrote") {
		t.Fatalf("download: %v\n%s", err, out)
	}
	if out, err := run("SQUAD_MD5=" + sum); err != nil || !strings.Contains(out, "already there") {
		t.Fatalf("second download: %v\n%s", err, out)
	}
}

// Questions without a question and decoder errors in Go terms are refused
// with the file's terms and the fix.
func TestReadRefusesMissingFieldsClearly(t *testing.T) {
	for name, c := range map[string]struct{ doc, want string }{
		"no question": {`{"version":"1.1","data":[{"title":"t","paragraphs":[{"context":"c","qas":[{"id":"q1","answers":[]}]}]}]}`, `(id "q1") has an empty "question"; the file is damaged or not SQuAD v1.1: re-download it`},
		"no context":  {`{"version":"1.1","data":[{"title":"t","paragraphs":[{"qas":[{"id":"q1","question":"why?","answers":[]}]}]}]}`, `data[0].paragraphs[0] (article "t") has 1 questions but an empty "context": there is no text to find their answers in; the file is damaged`},
		"data array":  {`{"version":"1.1","data":{"title":"t"}}`, "data holds a JSON object where SQuAD has an array"},
		"top array":   {`[1,2]`, "the top level holds a JSON array where SQuAD has an object"},
	} {
		_, err := Read(strings.NewReader(c.doc))
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrFormat mentioning %q", name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "Go value") {
			t.Errorf("%s: message leaks decoder internals: %v", name, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"version":"1.1","data":[{"title":"t","paragraphs":[{"context":"c","qas":[{"id":"q1","question":"why?","answers":[{"text":"c","answer_start":0}]}]}]}]}`))
	f.Add([]byte(`{"version":"1.1","data":{}}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := Read(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error outside ErrFormat/ErrVersion: %v", err)
			}
			if strings.Contains(err.Error(), "Go value") {
				t.Fatalf("message leaks decoder internals: %v", err)
			}
			return
		}
		for _, a := range ds.Data {
			for _, p := range a.Paragraphs {
				for _, q := range p.QAs {
					if q.ID == "" || q.Question == "" || p.Context == "" {
						t.Fatalf("accepted an incomplete question %+v", q)
					}
				}
			}
		}
	})
}
