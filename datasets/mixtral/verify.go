package mixtral

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Report is what Verify finds in a data set file.
type Report struct {
	Rows       int
	PerDataset map[string]int
	// MaxInput and MeanInput are tok_input lengths.
	MaxInput  int
	MeanInput float64
	MD5       string
	// Official names the official file whose MD5 this file has
	// ("validation" or "calibration"), "" for none.
	Official string
	// Problems lists what breaks the official file's invariants (at most
	// 20, then a count).
	Problems []string
}

// String is a one-line summary.
func (r Report) String() string {
	var parts []string
	for _, d := range Datasets {
		parts = append(parts, fmt.Sprintf("%s %d", d, r.PerDataset[d]))
	}
	s := fmt.Sprintf("%d rows (%s); tok_input max %d mean %.1f; MD5 %s", r.Rows, strings.Join(parts, ", "), r.MaxInput, r.MeanInput, r.MD5)
	if r.Official != "" {
		s += "; the official " + r.Official + " file"
	}
	return s
}

// Verify reads the file and checks it: the MD5 against the official
// files' (a file named as an official one with another MD5 is a problem),
// token ids within the vocabulary, tok_input_len and tok_ref_output_len
// equal to the list lengths, MBXP ids of the form <language>_<entry
// point>. It returns an error only when the file cannot be read as the
// data set.
func Verify(path string) (Report, error) {
	sum, err := md5File(path)
	if err != nil {
		return Report{}, err
	}
	d, err := Load(path)
	if err != nil {
		return Report{}, err
	}
	r := Report{Rows: d.Len(), PerDataset: d.ByDataset(), MD5: sum}
	switch sum {
	case MD5:
		r.Official = "validation"
	case CalibrationMD5:
		r.Official = "calibration"
	}
	var problems []string
	add := func(f string, a ...any) { problems = append(problems, fmt.Sprintf(f, a...)) }
	switch base := filepath.Base(path); {
	case base == FileName && sum != MD5:
		add("%s has MD5 %s, not the official %s: re-download it", base, sum, MD5)
	case base == CalibrationFileName && sum != CalibrationMD5:
		add("%s has MD5 %s, not the official %s: re-download it", base, sum, CalibrationMD5)
	}
	total := 0
	for i, s := range d.Samples {
		total += len(s.TokInput)
		r.MaxInput = max(r.MaxInput, len(s.TokInput))
		for _, l := range [][]int32{s.TokInput, s.TokRefOutput} {
			for _, v := range l {
				if v >= Vocab {
					add("row %d: token id %d outside the vocabulary of %d", i, v, Vocab)
					break
				}
			}
		}
		if s.Dataset == MBXP {
			if lang, entry, ok := strings.Cut(s.ID, "_"); !ok || lang == "" || entry == "" {
				add("row %d: MBXP id %q is not <language>_<entry point>", i, s.ID)
			}
		}
	}
	if r.Rows > 0 {
		r.MeanInput = float64(total) / float64(r.Rows)
	}
	checkLengths(d, add)
	if len(problems) > 20 {
		problems = append(problems[:20], fmt.Sprintf("and %d more", len(problems)-20))
	}
	r.Problems = problems
	return r, nil
}

// checkLengths compares the length columns with the lists, where the file
// has them.
func checkLengths(d *Dataset, add func(string, ...any)) {
	for i, s := range d.Samples {
		if v, ok := d.lengths[ColTokInputLen]; ok && v[i] != int64(len(s.TokInput)) {
			add("row %d: tok_input_len %d, but tok_input has %d ids", i, v[i], len(s.TokInput))
		}
		if v, ok := d.lengths[ColTokRefOutputLen]; ok && s.TokRefOutput != nil && v[i] != int64(len(s.TokRefOutput)) {
			add("row %d: tok_ref_output_len %d, but tok_ref_output has %d ids", i, v[i], len(s.TokRefOutput))
		}
	}
}

// OfficialProblem says why r is not the official validation (or
// calibration) file, "" when it is.
func OfficialProblem(r Report, calibration bool) string {
	want, rows := "validation", Rows
	if calibration {
		want, rows = "calibration", CalibrationRows
	}
	if r.Official != want {
		return fmt.Sprintf("MD5 %s is not that of the official %s file; %s", r.MD5, want, fixHint)
	}
	if r.Rows != rows {
		return fmt.Sprintf("%d rows, the official %s file has %d", r.Rows, want, rows)
	}
	return ""
}

func md5File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("mixtral: %w; %s", err, fixHint)
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("mixtral: reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
