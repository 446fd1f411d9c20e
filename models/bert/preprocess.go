// Package bert holds the text side of the MLPerf BERT-large SQuAD v1.1
// benchmark: the reference tokenizer, the feature construction of
// create_squad_data.py (one feature per document span, in QSL order), the
// response encoding and the post-processing of accuracy-squad.py that turns
// start/end logits back into answer text.
package bert

import (
	"errors"
	"fmt"

	"github.com/mlperf-go/inference/datasets/squad"
)

// Reference constants (squad_QSL.py, accuracy-squad.py).
const (
	MaxSeqLength   = 384
	maxQueryLength = 64
	docStride      = 128
	// firstUniqueID is the unique_id of the first feature.
	firstUniqueID = 1000000000
)

// config sets the feature construction. The zero value is invalid; use
// DefaultConfig, the reference's values.
type config struct {
	MaxSeqLength   int // tokens per feature, padding included
	MaxQueryLength int // query tokens kept (the rest are dropped)
	DocStride      int // tokens between the starts of consecutive spans, at most
}

// defaultConfig is the reference configuration: 384, 64, 128.
var defaultConfig = config{MaxSeqLength: MaxSeqLength, MaxQueryLength: maxQueryLength, DocStride: docStride}

// errConfig is returned (wrapped) for a Config the construction cannot use.
var errConfig = errors.New("bert: bad feature configuration")

func (c config) validate() error {
	switch {
	case c.MaxQueryLength < 0:
		return fmt.Errorf("%w: max query length %d < 0", errConfig, c.MaxQueryLength)
	case c.DocStride <= 0:
		return fmt.Errorf("%w: doc stride %d must be positive", errConfig, c.DocStride)
	case c.MaxSeqLength < 4:
		return fmt.Errorf("%w: max sequence length %d leaves no room for 3 special tokens and the document", errConfig, c.MaxSeqLength)
	}
	return nil
}

// example is one question with its context split into whitespace words
// (read_squad_examples with is_training=False). Examples of the same
// paragraph share the DocTokens slice.
type example struct {
	QasID        string
	QuestionText string
	// DocTokens are the context's words: maximal runs of characters other
	// than space, tab, CR, LF and U+202F. Shared; do not modify.
	DocTokens []string
}

// examples returns the examples of ds in file order, one per question.
func examples(ds *squad.Dataset) []example {
	exs := make([]example, 0, ds.NumQuestions())
	for _, a := range ds.Data {
		for _, p := range a.Paragraphs {
			doc := splitDoc(p.Context)
			for _, qa := range p.QAs {
				exs = append(exs, example{QasID: qa.ID, QuestionText: qa.Question, DocTokens: doc})
			}
		}
	}
	return exs
}

// splitDoc splits a context into words the way read_squad_examples does:
// on space, tab, CR, LF and U+202F only (not on other Unicode spaces).
func splitDoc(context string) []string {
	var words []string
	start := -1
	for i, r := range context {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == 0x202F {
			if start >= 0 {
				words = append(words, context[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, context[start:])
	}
	return words
}

// feature is one model input: [CLS] query [SEP] doc-span [SEP], with the
// bookkeeping post-processing needs. Its position in the slice that
// BuildFeatures returns is its QSL sample index.
//
// A Feature is immutable once built and safe for concurrent reads; its
// slices may be shared with other features and must not be modified.
type feature struct {
	UniqueID     int64 // FirstUniqueID + position
	ExampleIndex int   // index of the example (question) it belongs to
	DocSpanIndex int   // index of the span within its example
	QueryLen     int   // query tokens after truncation
	// InputIDs are the ids of the real tokens, unpadded:
	// len = QueryLen + len(TokenToOrig) + 3.
	InputIDs []int32
	// TokenToOrig[i] is the index in Example.DocTokens of the word that the
	// span's i-th token (position DocOffset()+i) comes from.
	TokenToOrig []int32
	// MaxContext[i] tells whether this span is the one where the span's i-th
	// token has the most context (_check_is_max_context).
	MaxContext []bool

	query []string // query tokens (shared per example)
	doc   []string // the span's tokens (shared per paragraph)
}

// Len is the number of real tokens; positions Len()..MaxSeqLength-1 are
// padding.
func (f *feature) Len() int { return len(f.InputIDs) }

// DocOffset is the position of the first span token (QueryLen + 2).
func (f *feature) DocOffset() int { return f.QueryLen + 2 }

// SpanLen is the number of document tokens in the span.
func (f *feature) SpanLen() int { return len(f.TokenToOrig) }

// Token returns the token at position pos ("" for padding or out of range).
func (f *feature) Token(pos int) string {
	switch {
	case pos < 0 || pos >= f.Len():
		return ""
	case pos == 0:
		return tokenCLS
	case pos <= f.QueryLen:
		return f.query[pos-1]
	case pos == f.QueryLen+1 || pos == f.Len()-1:
		return tokenSep
	}
	return f.doc[pos-f.DocOffset()]
}

// Tokens returns the feature's real tokens (feature.tokens). It allocates.
func (f *feature) Tokens() []string {
	out := make([]string, 0, f.Len())
	out = append(out, tokenCLS)
	out = append(out, f.query...)
	out = append(out, tokenSep)
	out = append(out, f.doc...)
	return append(out, tokenSep)
}

// OrigIndex is token_to_orig_map[pos]: the word of the example's context
// that the token at pos comes from; ok is false outside the span.
func (f *feature) OrigIndex(pos int) (word int, ok bool) {
	i := pos - f.DocOffset()
	if i < 0 || i >= len(f.TokenToOrig) {
		return 0, false
	}
	return int(f.TokenToOrig[i]), true
}

// IsMaxContext is token_is_max_context.get(pos, False).
func (f *feature) IsMaxContext(pos int) bool {
	i := pos - f.DocOffset()
	return i >= 0 && i < len(f.MaxContext) && f.MaxContext[i]
}

// Fill writes the padded model inputs into the caller's buffers, which must
// all have the same length, at least Len() (the model's sequence length,
// MaxSeqLength for the reference model): input_ids, input_mask (1 for real
// tokens) and segment_ids (0 for [CLS], the query and the first [SEP]; 1 for
// the span and the last [SEP]); zeros after Len().
func (f *feature) Fill(ids, mask, seg []int64) error {
	n := len(ids)
	if len(mask) != n || len(seg) != n {
		return fmt.Errorf("bert: fill: buffers of lengths %d, %d, %d differ", n, len(mask), len(seg))
	}
	if n < f.Len() {
		return fmt.Errorf("bert: fill: sequence length %d < %d tokens of feature %d", n, f.Len(), f.UniqueID)
	}
	segStart := f.QueryLen + 2
	for i, id := range f.InputIDs {
		ids[i] = int64(id)
		mask[i] = 1
		if i >= segStart {
			seg[i] = 1
		} else {
			seg[i] = 0
		}
	}
	for i := f.Len(); i < n; i++ {
		ids[i], mask[i], seg[i] = 0, 0, 0
	}
	return nil
}

// docTok is the WordPiece tokenization of one paragraph.
type docTok struct {
	toks      []string
	ids       []int32
	tokToOrig []int32
}

// buildFeatures is convert_examples_to_features (is_training=False): for
// each example, the query is tokenized and cut to MaxQueryLength tokens,
// every context word is tokenized on its own, and the document tokens are
// covered by spans of at most MaxSeqLength-len(query)-3 tokens whose starts
// are DocStride apart (a shorter step for the last one, which ends at the
// document's end). Each span is one Feature, numbered from FirstUniqueID.
// An example whose context has no tokens yields no feature.
//
// It is safe to call concurrently with the same Tokenizer.
func buildFeatures(examples []example, tok *wordPieceTokenizer, cfg config) ([]feature, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, fmt.Errorf("bert: build features: nil tokenizer")
	}
	feats := make([]feature, 0, len(examples)+len(examples)/32)
	enc := &encoder{t: tok}
	words := make(map[string]wordTok, 1<<14)
	var cache docTok
	var cacheKey *string
	var spans []docSpan
	for exIdx := range examples {
		ex := &examples[exIdx]
		enc.reset()
		enc.encode(ex.QuestionText)
		qToks, qIDs := enc.toks, enc.ids
		if len(qToks) > cfg.MaxQueryLength {
			qToks, qIDs = qToks[:cfg.MaxQueryLength], qIDs[:cfg.MaxQueryLength]
		}
		query := append([]string(nil), qToks...)

		if len(ex.DocTokens) == 0 {
			continue
		}
		if key := &ex.DocTokens[0]; key != cacheKey {
			cache = tokenizeDoc(ex.DocTokens, tok, words)
			cacheKey = key
		}
		doc := &cache
		n := len(doc.toks)
		maxDoc := cfg.MaxSeqLength - len(query) - 3
		if maxDoc <= 0 {
			// The reference loops forever here.
			return nil, fmt.Errorf("%w: question %q has %d tokens, which leaves no room for the document in %d (lower MaxQueryLength)", errConfig, ex.QasID, len(query), cfg.MaxSeqLength)
		}
		spans = spans[:0]
		for start := 0; start < n; {
			length := min(n-start, maxDoc)
			spans = append(spans, docSpan{start, length})
			if start+length == n {
				break
			}
			start += min(length, cfg.DocStride)
		}
		for si, sp := range spans {
			ids := make([]int32, 0, len(query)+sp.length+3)
			ids = append(ids, tok.cls)
			ids = append(ids, qIDs...)
			ids = append(ids, tok.sep)
			ids = append(ids, doc.ids[sp.start:sp.start+sp.length]...)
			ids = append(ids, tok.sep)
			maxCtx := make([]bool, sp.length)
			for i := range maxCtx {
				maxCtx[i] = isMaxContext(spans, si, sp.start+i)
			}
			feats = append(feats, feature{
				UniqueID:     firstUniqueID + int64(len(feats)),
				ExampleIndex: exIdx,
				DocSpanIndex: si,
				QueryLen:     len(query),
				InputIDs:     ids,
				TokenToOrig:  doc.tokToOrig[sp.start : sp.start+sp.length : sp.start+sp.length],
				MaxContext:   maxCtx,
				query:        query,
				doc:          doc.toks[sp.start : sp.start+sp.length : sp.start+sp.length],
			})
		}
	}
	return feats, nil
}

type docSpan struct{ start, length int }

type wordTok struct {
	toks []string
	ids  []int32
}

// tokenizeDoc tokenizes each word of a context separately, memoizing words
// (tokenization is a pure function of the word).
func tokenizeDoc(words []string, tok *wordPieceTokenizer, memo map[string]wordTok) docTok {
	var d docTok
	enc := &encoder{t: tok}
	for wi, w := range words {
		wt, ok := memo[w]
		if !ok {
			enc.reset()
			enc.encode(w)
			wt = wordTok{toks: append([]string(nil), enc.toks...), ids: append([]int32(nil), enc.ids...)}
			memo[w] = wt
		}
		d.toks = append(d.toks, wt.toks...)
		d.ids = append(d.ids, wt.ids...)
		for range wt.toks {
			d.tokToOrig = append(d.tokToOrig, int32(wi))
		}
	}
	return d
}

// isMaxContext is _check_is_max_context: the span where the token at
// document position pos has the largest min(left, right) context plus
// 0.01 × span length; the first such span wins ties.
func isMaxContext(spans []docSpan, cur, pos int) bool {
	best := -1
	var bestScore float64
	for i, sp := range spans {
		end := sp.start + sp.length - 1
		if pos < sp.start || pos > end {
			continue
		}
		left, right := pos-sp.start, end-pos
		score := float64(min(left, right)) + 0.01*float64(sp.length)
		if best < 0 || score > bestScore {
			best, bestScore = i, score
		}
	}
	return best == cur
}
