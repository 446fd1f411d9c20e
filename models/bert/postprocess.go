package bert

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mlperf-go/inference/datasets/squad/pytext"
)

// ResponseBytes is the size of one response: float32 [MaxSeqLength, 2],
// (start, end) logits interleaved per position, little-endian.
const ResponseBytes = MaxSeqLength * 2 * 4

// Post-processing constants of accuracy-squad.py.
const (
	nBestSize       = 20
	maxAnswerLength = 30
	// padLogit fills the positions a shorter response does not cover.
	padLogit = -10000.0
	// emptyPrediction is the answer when no span survives the filters.
	emptyPrediction = "empty"
)

// errResponse is returned (wrapped) for response bytes that cannot be
// decoded as logits.
var errResponse = errors.New("bert: bad response")

// EncodeResponse writes the model's start and end logits for one feature
// into dst as float32 [n, 2] (start, end interleaved), little-endian, and
// returns dst[:8n]. dst is grown when it is too short; n = len(start) must
// equal len(end). This is the reference's np.stack([start, end], axis=-1).
func EncodeResponse(dst []byte, start, end []float32) ([]byte, error) {
	if len(start) != len(end) {
		return nil, fmt.Errorf("%w: %d start logits but %d end logits", errResponse, len(start), len(end))
	}
	n := len(start) * 8
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	for i := range start {
		binary.LittleEndian.PutUint32(dst[8*i:], math.Float32bits(start[i]))
		binary.LittleEndian.PutUint32(dst[8*i+4:], math.Float32bits(end[i]))
	}
	return dst, nil
}

// Logits are one feature's start and end logits, MaxSeqLength each, as the
// Python floats accuracy-squad.py compares and adds.
type Logits struct {
	Start, End []float64
}

// DecodeResponse decodes one logged response the way load_loadgen_log does
// with its defaults: little-endian float32 reshaped to (-1, 2), column 0 the
// start and column 1 the end logits, padded to MaxSeqLength with PadLogit.
func DecodeResponse(data []byte) (Logits, error) {
	return decodeLogits(data, "float32", false)
}

// decodeLogits is DecodeResponse for the other --output_dtype values of
// accuracy-squad.py (int8, int16, int32, int64, float16, float32, float64)
// and --output_transposed (the data is [2, n], all start logits first).
func decodeLogits(data []byte, dtype string, transposed bool) (Logits, error) {
	size, conv := dtypeDecoder(dtype)
	if conv == nil {
		return Logits{}, fmt.Errorf("%w: unknown dtype %q (want int8, int16, int32, int64, float16, float32 or float64)", errResponse, dtype)
	}
	if len(data)%(2*size) != 0 {
		return Logits{}, fmt.Errorf("%w: %d bytes is not a whole number of (start, end) %s pairs", errResponse, len(data), dtype)
	}
	n := len(data) / (2 * size)
	if n > MaxSeqLength {
		return Logits{}, fmt.Errorf("%w: %d positions, more than the sequence length %d", errResponse, n, MaxSeqLength)
	}
	l := Logits{Start: make([]float64, MaxSeqLength), End: make([]float64, MaxSeqLength)}
	for i := 0; i < MaxSeqLength; i++ {
		if i >= n {
			l.Start[i], l.End[i] = padLogit, padLogit
			continue
		}
		var si, ei int
		if transposed {
			si, ei = i, n+i
		} else {
			si, ei = 2*i, 2*i+1
		}
		l.Start[i] = conv(data[si*size:])
		l.End[i] = conv(data[ei*size:])
	}
	return l, nil
}

func dtypeDecoder(dtype string) (int, func([]byte) float64) {
	le := binary.LittleEndian
	switch dtype {
	case "int8":
		return 1, func(b []byte) float64 { return float64(int8(b[0])) }
	case "int16":
		return 2, func(b []byte) float64 { return float64(int16(le.Uint16(b))) }
	case "int32":
		return 4, func(b []byte) float64 { return float64(int32(le.Uint32(b))) }
	case "int64":
		return 8, func(b []byte) float64 { return float64(int64(le.Uint64(b))) }
	case "float16":
		return 2, func(b []byte) float64 { return halfToFloat(le.Uint16(b)) }
	case "float32":
		return 4, func(b []byte) float64 { return float64(math.Float32frombits(le.Uint32(b))) }
	case "float64":
		return 8, func(b []byte) float64 { return math.Float64frombits(le.Uint64(b)) }
	}
	return 0, nil
}

// halfToFloat converts an IEEE 754 binary16 value exactly.
func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// postprocessConfig sets write_predictions' parameters. DefaultPostprocess
// holds the reference's values.
type postprocessConfig struct {
	NBestSize       int
	MaxAnswerLength int
}

// defaultPostprocess is n-best 20, max answer length 30.
var defaultPostprocess = postprocessConfig{NBestSize: nBestSize, MaxAnswerLength: maxAnswerLength}

// prediction is the answer text chosen for one question.
type prediction struct {
	QasID string
	Text  string
}

// postprocess is write_predictions of accuracy-squad.py: for every example,
// over the features that have logits (results is keyed by QSL index, the
// feature's position in features), it pairs the NBestSize best start and
// end positions (ties: lower position first), drops pairs outside the
// span, with a start that is not max-context, ending before they start or
// longer than MaxAnswerLength tokens, orders the rest by start+end logit
// (stable), and takes the first candidate's text after projecting the
// WordPiece span back onto the original words (GetFinalText). An example
// with no candidate is answered EmptyPrediction.
//
// Predictions come in example order. Postprocess does not modify its
// arguments and is safe for concurrent use.
func postprocess(examples []example, features []feature, results map[int]Logits, cfg postprocessConfig) ([]prediction, error) {
	if cfg.NBestSize <= 0 || cfg.MaxAnswerLength <= 0 {
		return nil, fmt.Errorf("bert: postprocess: n-best size %d and max answer length %d must be positive", cfg.NBestSize, cfg.MaxAnswerLength)
	}
	for idx, l := range results {
		if idx < 0 || idx >= len(features) {
			return nil, fmt.Errorf("bert: postprocess: qsl index %d out of range [0, %d)", idx, len(features))
		}
		if len(l.Start) != len(l.End) {
			return nil, fmt.Errorf("bert: postprocess: qsl index %d: %d start logits but %d end logits", idx, len(l.Start), len(l.End))
		}
	}
	byExample := make([][]int, len(examples))
	for fi := range features {
		ei := features[fi].ExampleIndex
		if ei < 0 || ei >= len(examples) {
			return nil, fmt.Errorf("bert: postprocess: feature %d belongs to example %d of %d", fi, ei, len(examples))
		}
		byExample[ei] = append(byExample[ei], fi)
	}
	preds := make([]prediction, len(examples))
	var p predictor
	p.cfg = cfg
	for ei := range examples {
		preds[ei] = prediction{QasID: examples[ei].QasID, Text: p.best(&examples[ei], features, byExample[ei], results)}
	}
	return preds, nil
}

type prelim struct {
	feature    int
	start, end int
	score      float64
}

// predictor holds scratch space reused across examples.
type predictor struct {
	cfg      postprocessConfig
	starts   []int
	ends     []int
	prelims  []prelim
	basicBuf []string
}

func (p *predictor) best(ex *example, features []feature, fidx []int, results map[int]Logits) string {
	p.prelims = p.prelims[:0]
	for _, fi := range fidx {
		res, ok := results[fi]
		if !ok {
			continue
		}
		f := &features[fi]
		p.starts = bestIndexes(res.Start, p.cfg.NBestSize, p.starts)
		p.ends = bestIndexes(res.End, p.cfg.NBestSize, p.ends)
		for _, s := range p.starts {
			for _, e := range p.ends {
				if s >= f.Len() || e >= f.Len() {
					continue
				}
				if _, ok := f.OrigIndex(s); !ok {
					continue
				}
				if _, ok := f.OrigIndex(e); !ok {
					continue
				}
				if !f.IsMaxContext(s) || e < s || e-s+1 > p.cfg.MaxAnswerLength {
					continue
				}
				p.prelims = append(p.prelims, prelim{feature: fi, start: s, end: e, score: res.Start[s] + res.End[e]})
			}
		}
	}
	sort.SliceStable(p.prelims, func(i, j int) bool { return p.prelims[i].score > p.prelims[j].score })
	for _, pr := range p.prelims {
		// Only the first n-best text matters for the prediction; the
		// reference's n-best list and softmax do not change it.
		f := &features[pr.feature]
		ws, _ := f.OrigIndex(pr.start)
		we, _ := f.OrigIndex(pr.end)
		var tb strings.Builder
		for pos := pr.start; pos <= pr.end; pos++ {
			if pos > pr.start {
				tb.WriteByte(' ')
			}
			tb.WriteString(f.Token(pos))
		}
		tokText := strings.ReplaceAll(tb.String(), " ##", "")
		tokText = strings.ReplaceAll(tokText, "##", "")
		tokText = pytext.JoinFields(tokText)
		origText := strings.Join(ex.DocTokens[ws:we+1], " ")
		return p.finalText(tokText, origText)
	}
	return emptyPrediction
}

// bestIndexes is _get_best_indexes: the positions of the n largest logits,
// largest first, equal logits in position order (a stable descending sort).
// NaN logits rank below every number.
func bestIndexes(logits []float64, n int, dst []int) []int {
	dst = dst[:0]
	greater := func(a, b int) bool { // a ranks before b
		x, y := logits[a], logits[b]
		if math.IsNaN(y) {
			return !math.IsNaN(x) || a < b
		}
		if math.IsNaN(x) {
			return false
		}
		return x > y || (x == y && a < b)
	}
	for i := range logits {
		if len(dst) == n && !greater(i, dst[n-1]) {
			continue
		}
		if len(dst) < n {
			dst = append(dst, i)
		} else {
			dst[n-1] = i
		}
		for k := len(dst) - 1; k > 0 && greater(dst[k], dst[k-1]); k-- {
			dst[k], dst[k-1] = dst[k-1], dst[k]
		}
	}
	return dst
}

// getFinalText is get_final_text of accuracy-squad.py (do_lower_case=True):
// it projects predText, the normalized WordPiece answer, back onto
// origText, the original words of the span joined by spaces. origText is
// run through BasicTokenize; predText is searched in the result; when both
// have the same length without spaces, characters are aligned one to one
// and the matching slice of origText is returned. Whenever the alignment
// fails, the whole origText is returned.
func getFinalText(predText, origText string) string {
	var p predictor
	return p.finalText(predText, origText)
}

func (p *predictor) finalText(predText, origText string) string {
	p.basicBuf = basicTokenize(origText, p.basicBuf[:0])
	tokText := strings.Join(p.basicBuf, " ")

	bytePos := strings.Index(tokText, predText)
	if bytePos < 0 {
		return origText
	}
	start := utf8.RuneCountInString(tokText[:bytePos])
	end := start + utf8.RuneCountInString(predText) - 1

	orig := []rune(origText)
	tok := []rune(tokText)
	// ns -> s for origText; s -> ns for tokText (-1 at spaces).
	origNS := make([]int, 0, len(orig))
	for i, c := range orig {
		if c != ' ' {
			origNS = append(origNS, i)
		}
	}
	tokS2NS := make([]int, len(tok))
	nsLen := 0
	for i, c := range tok {
		if c == ' ' {
			tokS2NS[i] = -1
			continue
		}
		tokS2NS[i] = nsLen
		nsLen++
	}
	if len(origNS) != nsLen {
		return origText
	}
	project := func(s int) (int, bool) {
		if s < 0 || s >= len(tokS2NS) || tokS2NS[s] < 0 {
			return 0, false
		}
		return origNS[tokS2NS[s]], true
	}
	os, ok := project(start)
	if !ok {
		return origText
	}
	oe, ok := project(end)
	if !ok {
		return origText
	}
	if oe < os {
		// Python's slice of an inverted range is empty.
		return ""
	}
	return string(orig[os : oe+1])
}
