package openorca

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mlperf-go/inference/llm/tokenizer"
)

// Report is what Verify finds in a data set.
type Report struct {
	Rows    int
	Origins map[string]int // rows per origin
	// Token lengths of tok_input and tok_output.
	MaxInput, MaxOutput   int
	MeanInput, MeanOutput float64
	// Official: 24576 rows, 6144 per origin and no problems, as the
	// MLCommons file.
	Official bool
	// Problems lists what breaks the reference's invariants (at most 20,
	// then a count).
	Problems []string
}

// String is a short human-readable summary.
func (r Report) String() string {
	var o []string
	for _, k := range sortedKeys(r.Origins) {
		o = append(o, fmt.Sprintf("%s %d", k, r.Origins[k]))
	}
	s := fmt.Sprintf("%d rows (%s); tok_input max %d mean %.1f; tok_output max %d mean %.1f",
		r.Rows, strings.Join(o, ", "), r.MaxInput, r.MeanInput, r.MaxOutput, r.MeanOutput)
	if r.Official {
		s += "; the shape of the official file"
	}
	return s
}

func sortedKeys(m map[string]int) []string {
	k := make([]string, 0, len(m))
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}

// Verify reads every column and checks the preprocessing's invariants
// (mlcommons/inference language/llama2-70b/processorca.py): tok_input non-empty, shorter than 1024, ending with 29871,
// ids within vocab (0: 32000); tok_output of 3..1023 ids; the length
// columns equal to the list lengths; origin the id's prefix and one of
// Origins. It returns an error only when the file cannot be read.
func Verify(d *Dataset, vocab int) (Report, error) {
	if vocab <= 0 {
		vocab = 32000
	}
	recs, err := d.Records()
	if err != nil {
		return Report{}, err
	}
	rep := Report{Rows: len(recs), Origins: map[string]int{}}
	extra := 0
	bad := func(format string, a ...any) {
		if len(rep.Problems) < 20 {
			rep.Problems = append(rep.Problems, fmt.Sprintf(format, a...))
		} else {
			extra++
		}
	}
	hasOut := d.HasColumn(ColTokOutput)
	var sumIn, sumOut int
	for i, r := range recs {
		n := len(r.TokInput)
		sumIn += n
		rep.MaxInput = max(rep.MaxInput, n)
		switch {
		case n == 0:
			bad("row %d: empty tok_input", i)
		case n >= MaxTokens:
			bad("row %d: tok_input has %d ids, the reference keeps < %d", i, n, MaxTokens)
		case r.TokInput[n-1] != tokenizer.LlamaSpaceID:
			bad("row %d: tok_input ends with %d, not %d", i, r.TokInput[n-1], tokenizer.LlamaSpaceID)
		}
		for _, t := range r.TokInput {
			if t < 0 || t >= int64(vocab) {
				bad("row %d: tok_input id %d outside the vocabulary [0, %d)", i, t, vocab)
				break
			}
		}
		if d.HasColumn(ColTokInputLength) && r.TokInputLength != int64(n) {
			bad("row %d: tok_input_length %d, tok_input has %d ids", i, r.TokInputLength, n)
		}
		if hasOut {
			m := len(r.TokOutput)
			sumOut += m
			rep.MaxOutput = max(rep.MaxOutput, m)
			if m < 3 || m >= MaxTokens {
				bad("row %d: tok_output has %d ids, the reference keeps 3..%d", i, m, MaxTokens-1)
			}
			if d.HasColumn(ColTokOutputLength) && r.TokOutputLength != int64(m) {
				bad("row %d: tok_output_length %d, tok_output has %d ids", i, r.TokOutputLength, m)
			}
		}
		if d.HasColumn(ColOrigin) {
			rep.Origins[r.Origin]++
			if !knownOrigin(r.Origin) {
				bad("row %d: origin %q is not one of %s", i, r.Origin, strings.Join(Origins, ", "))
			}
			if d.HasColumn(ColID) && originOf(r.ID) != r.Origin {
				bad("row %d: origin %q but id %q", i, r.Origin, r.ID)
			}
		}
	}
	for _, c := range []string{ColOutput, ColTokOutput} {
		if !d.HasColumn(c) {
			bad("no %s column: the accuracy run cannot be scored", c)
		}
	}
	if extra > 0 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("… and %d more", extra))
	}
	if rep.Rows > 0 {
		rep.MeanInput = float64(sumIn) / float64(rep.Rows)
		rep.MeanOutput = float64(sumOut) / float64(rep.Rows)
	}
	rep.Official = rep.Rows == Rows && len(rep.Problems) == 0 && len(rep.Origins) == len(Origins)
	for _, o := range Origins {
		rep.Official = rep.Official && rep.Origins[o] == Rows/len(Origins)
	}
	return rep, nil
}
