package reasoning

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
)

// Check is what Verify checks of every row's prompt ids: inside the
// vocabulary, starting with Prefix and ending with Suffix (the template's
// fixed ids), and equal to Encode's rebuilding of the prompt from the
// row's text when Encode is set (false: the row has no text to rebuild
// from).
type Check struct {
	Vocab          int
	Prefix, Suffix []int32
	Encode         func(Row) ([]int32, bool)
}

// Report is what Verify found.
type Report struct {
	Path         string
	Rows         int
	ByDataset    map[string]int
	MaxPrompt    int   // longest prompt, in tokens
	PromptTokens int64 // all prompts' tokens
	// Rebuilt counts the rows whose prompt Encode rebuilt; Mismatched
	// lists those whose rebuilt ids differ from the file's (at most 20),
	// MismatchCount counts them all.
	Rebuilt       int
	Mismatched    []int
	MismatchCount int
	// NoAnswer counts rows without a ground truth.
	NoAnswer int
	MD5      string
}

// String is the report's summary line.
func (r Report) String() string {
	var ds []string
	for k, v := range r.ByDataset {
		ds = append(ds, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(ds)
	s := fmt.Sprintf("%s: %d rows (%s), prompts of up to %d tokens (%d in all)", r.Path, r.Rows, strings.Join(ds, ", "), r.MaxPrompt, r.PromptTokens)
	if r.Rebuilt > 0 {
		s += fmt.Sprintf(", %d prompts rebuilt from their text, %d differ", r.Rebuilt, r.MismatchCount)
		if len(r.Mismatched) > 0 {
			s += fmt.Sprintf(" (rows %v)", r.Mismatched)
		}
	}
	if r.NoAnswer > 0 {
		s += fmt.Sprintf(", %d without a ground truth", r.NoAnswer)
	}
	return s + ", md5 " + r.MD5
}

// Verify reads the data set at path and checks every row's prompt ids
// with c. A prompt id outside the vocabulary, or a prompt without the
// template's fixed ids, is an error; prompts that differ from their
// rebuilding are reported (the reference built them with its own
// tokenizer), not refused.
func Verify(path string, c Check) (Report, error) {
	s, err := Read(path)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Path: path, Rows: s.Len(), ByDataset: s.ByDataset()}
	for i, r := range s.Rows {
		ids := r.TokInput
		rep.PromptTokens += int64(len(ids))
		rep.MaxPrompt = max(rep.MaxPrompt, len(ids))
		if r.GroundTruthNull {
			rep.NoAnswer++
		}
		for _, id := range ids {
			if c.Vocab > 0 && int(id) >= c.Vocab {
				return rep, fmt.Errorf("%w: %s row %d: prompt id %d is outside the vocabulary of %d", ErrFormat, path, i, id, c.Vocab)
			}
		}
		if len(ids) < len(c.Prefix)+len(c.Suffix) || !slices.Equal(ids[:len(c.Prefix)], c.Prefix) || !slices.Equal(ids[len(ids)-len(c.Suffix):], c.Suffix) {
			return rep, fmt.Errorf("%w: %s row %d: the prompt ids do not start with %v and end with %v, the template's (they start %v)", ErrFormat, path, i, c.Prefix, c.Suffix, ids[:min(len(ids), 8)])
		}
		if c.Encode == nil {
			continue
		}
		want, ok := c.Encode(r)
		if !ok {
			continue
		}
		rep.Rebuilt++
		if !slices.Equal(want, ids) {
			rep.MismatchCount++
			if len(rep.Mismatched) < 20 {
				rep.Mismatched = append(rep.Mismatched, i)
			}
		}
	}
	if rep.MD5, err = md5File(path); err != nil {
		return rep, err
	}
	return rep, nil
}

func md5File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reasoning: %w", err)
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reasoning: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
