// Package wer scores speech-to-text as the MLPerf Whisper reference does
// (mlcommons/inference speech2text: accuracy_eval.py, helpers.py,
// legacy_helpers.py): responses are label indices over a 42-character
// alphabet, turned back into text, normalised with Whisper's
// EnglishTextNormalizer (accuracy/englishnorm), split into words and
// aligned with compute_wer_with_concatenation, which counts a word split
// or joined differently (up to three words) as a match; the word error
// rate is the total Levenshtein distance over the total reference words.
//
// Functions are safe for concurrent use.
package wer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/englishnorm"
	"github.com/mlperf-go/inference/datasets/librispeech"
	"github.com/mlperf-go/inference/internal/pynum"
)

// ErrLabel reports a response or transcript index outside the alphabet.
var ErrLabel = errors.New("wer: label index outside the 42-character alphabet")

// EncodeTranscript is what the reference SUT returns for a model's text
// (reference_SUT.py): text.lower().strip(), then the label index of every
// character in the alphabet, others dropped.
func EncodeTranscript(text string) []int64 {
	text = englishnorm.Strip(strings.ToLower(text))
	out := make([]int64, 0, len(text))
	for _, r := range text {
		if l := librispeech.LabelOf(r); l >= 0 {
			out = append(out, int64(l))
		}
	}
	return out
}

// AppendInt64 appends ids as the little-endian int64 array the reference
// writes (array.array('q')), the response bytes of the accuracy log.
func AppendInt64(dst []byte, ids []int64) []byte {
	for _, v := range ids {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
	}
	return dst
}

// DecodeResponse turns response bytes (little-endian int64 label indices,
// accuracy_eval.py's default --output_dtype) into text
// (__gather_predictions).
func DecodeResponse(data []byte) (string, error) {
	if len(data)%8 != 0 {
		return "", fmt.Errorf("wer: response of %d bytes is not a whole number of int64 labels", len(data))
	}
	ids := make([]int64, len(data)/8)
	for i := range ids {
		ids[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return LabelsToText(ids)
}

// LabelsToText maps label indices to their characters.
func LabelsToText(ids []int64) (string, error) {
	b := make([]byte, len(ids))
	for i, v := range ids {
		if v < 0 || v >= int64(len(librispeech.Labels)) {
			return "", fmt.Errorf("%w: %d at position %d", ErrLabel, v, i)
		}
		b[i] = librispeech.Labels[v]
	}
	return string(b), nil
}

// Levenshtein is legacy_helpers.py's __levenshtein: the edit distance
// between two word lists.
func Levenshtein(a, b []string) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	cur := make([]int, len(a)+1)
	prev := make([]int, len(a)+1)
	for i := range cur {
		cur[i] = i
	}
	for i := 1; i <= len(b); i++ {
		prev, cur = cur, prev
		cur[0] = i
		for j := 1; j <= len(a); j++ {
			add, del, change := prev[j]+1, cur[j-1]+1, prev[j-1]
			if a[j-1] != b[i-1] {
				change++
			}
			cur[j] = min(add, del, change)
		}
	}
	return cur[len(a)]
}

// WithConcatenation is helpers.py's compute_wer_with_concatenation: hyp
// and ref are aligned left to right, a word equal to the concatenation of
// up to three words on the other side counting as one aligned pair; it
// returns the Levenshtein distance of the aligned (space-free) sequences
// and the number of reference words.
func WithConcatenation(hyp, ref []string) (distance, words int) {
	type pair struct {
		r, h   string
		hasR   bool
		hasH   bool
		joined bool
	}
	var al []pair
	i, j := 0, 0
	for i < len(ref) && j < len(hyp) {
		if ref[i] == hyp[j] {
			al = append(al, pair{r: ref[i], h: hyp[j], hasR: true, hasH: true})
			i, j = i+1, j+1
			continue
		}
		rn, hn, found := 1, 1, false
		for k := 1; k < 4; k++ {
			if i+k <= len(ref) && strings.Join(ref[i:i+k], "") == hyp[j] {
				rn, hn, found = k, 1, true
				break
			}
			if j+k <= len(hyp) && strings.Join(hyp[j:j+k], "") == ref[i] {
				rn, hn, found = 1, k, true
				break
			}
		}
		if found {
			al = append(al, pair{r: strings.Join(ref[i:i+rn], " "), h: strings.Join(hyp[j:j+hn], " "), hasR: true, hasH: true})
			i, j = i+rn, j+hn
		} else {
			al = append(al, pair{r: ref[i], h: hyp[j], hasR: true, hasH: true})
			i, j = i+1, j+1
		}
	}
	for ; i < len(ref); i++ {
		al = append(al, pair{r: ref[i], hasR: true})
	}
	for ; j < len(hyp); j++ {
		al = append(al, pair{h: hyp[j], hasH: true})
	}
	var ra, ha []string
	for _, p := range al {
		if p.hasR {
			ra = append(ra, strings.ReplaceAll(p.r, " ", ""))
		}
		if p.hasH {
			ha = append(ha, strings.ReplaceAll(p.h, " ", ""))
		}
	}
	return Levenshtein(ra, ha), len(ref)
}

// ExpandedWordList is helpers.py's get_expanded_wordlist: compound words
// of words that the reference writes as two or three words are split
// where that lowers the Levenshtein distance to the reference. The MLPerf
// accuracy script imports it but does not call it; it is here for
// completeness of the port.
func ExpandedWordList(words, ref []string) []string {
	if Levenshtein(words, ref) < 2 {
		return words
	}
	check := map[string][]string{}
	for i := 0; i+1 < len(ref); i++ {
		check[ref[i]+ref[i+1]] = []string{ref[i], ref[i+1]}
	}
	for i := 0; i+2 < len(ref); i++ {
		check[ref[i]+ref[i+1]+ref[i+2]] = []string{ref[i], ref[i+1], ref[i+2]}
	}
	score := Levenshtein(words, ref)
	for i := 0; i < len(words); i++ {
		parts, ok := check[words[i]]
		if !ok {
			continue
		}
		cand := append(append(append([]string{}, words[:i]...), parts...), words[i+1:]...)
		if d := Levenshtein(cand, ref); d < score {
			words, score = cand, d
		}
	}
	return words
}

// Result is the word error count of a set of transcripts.
type Result struct {
	Errors int // total edit distance
	Words  int // total reference words
}

// WER is Errors / Words.
func (r Result) WER() float64 { return float64(r.Errors) / float64(r.Words) }

// Line is the line accuracy_eval.py prints, which the submission checker
// reads ("Word Error Rate: …%, accuracy=…%", Python's float formatting).
func (r Result) Line() string {
	w := r.WER()
	return fmt.Sprintf("Word Error Rate: %s%%, accuracy=%s%%", pynum.FloatRepr(w*100), pynum.FloatRepr((1-w)*100))
}

// ErrNoWords reports reference transcripts without a word, where the
// reference script divides by zero.
var ErrNoWords = errors.New("wer: the references have no words (the reference script divides by zero)")

// Score is accuracy_eval.py's word_error_rate: each pair normalised, split
// and aligned with WithConcatenation, the distances and reference words
// summed.
func Score(n *englishnorm.Normalizer, hyps, refs []string) (Result, error) {
	if len(hyps) != len(refs) {
		return Result{}, fmt.Errorf("wer: %d hypotheses for %d references", len(hyps), len(refs))
	}
	var r Result
	for i := range hyps {
		p, err := scorePair(n, hyps[i], refs[i])
		if err != nil {
			return Result{}, fmt.Errorf("wer: pair %d: %w", i, err)
		}
		r.Errors += p.Errors
		r.Words += p.Words
	}
	if r.Words == 0 {
		return Result{}, ErrNoWords
	}
	return r, nil
}

func scorePair(n *englishnorm.Normalizer, hyp, ref string) (Result, error) {
	h, err := n.Normalize(hyp)
	if err != nil {
		return Result{}, fmt.Errorf("hypothesis: %w", err)
	}
	r, err := n.Normalize(ref)
	if err != nil {
		return Result{}, fmt.Errorf("reference: %w", err)
	}
	d, w := WithConcatenation(englishnorm.Fields(h), englishnorm.Fields(r))
	return Result{Errors: d, Words: w}, nil
}

// Scorer accumulates accuracy_eval.py's main over the entries of
// mlperf_log_accuracy.json: every entry's response decoded to text
// (repeated samples counted each time, as the script does), scored
// against the transcript of its qsl_idx. It is not safe for concurrent
// use.
type Scorer struct {
	n       *englishnorm.Normalizer
	refs    []string
	r       Result
	entries int
}

// NewScorer scores against refs, the data set's transcripts by sample
// index, already filtered to the alphabet (FilterTranscript).
func NewScorer(n *englishnorm.Normalizer, refs []string) *Scorer {
	return &Scorer{n: n, refs: refs}
}

// Add scores one entry.
func (s *Scorer) Add(e accuracy.Entry) error {
	if e.QSLIdx >= uint64(len(s.refs)) {
		return fmt.Errorf("wer: entry %d has qsl_idx %d, the data set has %d samples (a log of another data set?)", s.entries, e.QSLIdx, len(s.refs))
	}
	h, err := DecodeResponse(e.Data)
	if err != nil {
		return fmt.Errorf("wer: entry %d (qsl_idx %d): %w", s.entries, e.QSLIdx, err)
	}
	r, err := scorePair(s.n, h, s.refs[e.QSLIdx])
	if err != nil {
		return fmt.Errorf("wer: entry %d (qsl_idx %d): %w", s.entries, e.QSLIdx, err)
	}
	s.r.Errors += r.Errors
	s.r.Words += r.Words
	s.entries++
	return nil
}

// Result is the total so far; an error when no entry was added or the
// references have no words.
func (s *Scorer) Result() (Result, error) {
	if s.entries == 0 {
		return Result{}, fmt.Errorf("wer: the accuracy log has no entries")
	}
	if s.r.Words == 0 {
		return Result{}, ErrNoWords
	}
	return s.r, nil
}

// ScoreLogFile scores the accuracy log at path, streaming its entries.
func ScoreLogFile(n *englishnorm.Normalizer, path string, refs []string) (Result, error) {
	lr, err := accuracy.OpenLog(path)
	if err != nil {
		return Result{}, err
	}
	defer lr.Close()
	s := NewScorer(n, refs)
	for {
		e, err := lr.Next()
		if err == io.EOF {
			return s.Result()
		}
		if err != nil {
			return Result{}, err
		}
		if err := s.Add(e); err != nil {
			return Result{}, fmt.Errorf("%w (in %s)", err, path)
		}
	}
}
