package bert

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/onnx"
)

// The known-answer model and data set: a question-answering "model" whose
// answer to every question of its data set is known by construction, so
// that an end-to-end accuracy run must score exact match and F1 100 and
// any break in tokenisation, feature building (doc stride, offsets),
// batching, response encoding, post-processing or scoring lowers them.
//
// Every answer starts with the word KnownAnswerStartWord and ends with
// KnownAnswerEndWord, which appear nowhere else in the data set; the model
// gives each position start logit +10 where its token is the start word's
// and −10 elsewhere, and the same for the end word. Contexts are long
// enough that most questions need several overlapping features.

// The marker words of the known-answer set: whole words of the uncased
// BERT vocabulary.
const (
	knownAnswerStartWord = "zebra"
	knownAnswerEndWord   = "volcano"
)

// knownFiller are the words contexts and questions are made of.
var knownFiller = strings.Fields("the a city river north south market house green stone light water old new " +
	"road bridge tower garden village king queen school music paper window mountain forest winter summer " +
	"morning evening island harbor station library museum")

// knownAnswerDataset returns a SQuAD v1.1 data set of n questions, one per
// paragraph, drawn from seed: contexts of 60 to 700 filler words with the
// answer "<start word> w w … <end word>" (2 to 6 words between) at a random
// place.
func knownAnswerDataset(n int, seed uint64) *squad.Dataset {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	words := func(k int) []string {
		w := make([]string, k)
		for i := range w {
			w[i] = knownFiller[rng.IntN(len(knownFiller))]
		}
		return w
	}
	ds := &squad.Dataset{Version: "1.1"}
	art := squad.Article{Title: "known_answers"}
	for q := range n {
		ctx := words(60 + rng.IntN(640))
		ans := append(append([]string{knownAnswerStartWord}, words(2+rng.IntN(5))...), knownAnswerEndWord)
		at := rng.IntN(len(ctx) + 1)
		before := strings.Join(ctx[:at], " ")
		text := strings.Join(ans, " ")
		full := strings.TrimSpace(strings.Join([]string{before, text, strings.Join(ctx[at:], " ")}, " "))
		start := 0
		if before != "" {
			start = len(before) + 1 // ASCII: bytes are code points
		}
		art.Paragraphs = append(art.Paragraphs, squad.Paragraph{
			Context: full + ".",
			QAs: []squad.QA{{
				ID:       fmt.Sprintf("known%04d", q),
				Question: "which " + strings.Join(words(3+rng.IntN(4)), " ") + " ?",
				Answers:  []squad.Answer{{Text: text, AnswerStart: start}},
			}},
		})
	}
	ds.Data = []squad.Article{art}
	return ds
}

// knownAnswerArch builds the known-answer model under the official
// contract: startID and endID are the vocabulary ids of the marker words.
func knownAnswerArch(startID, endID int64) (*onnx.Graph, error) {
	g := onnx.NewGraph(onnx.Config{Name: "bert_known_answer", Doc: "BERT QA contract; logits point at the marker words: a test model whose answers are known"})
	batch := onnx.Sym("batch_size")
	ids := g.Input(inputIDs, onnx.Int64, batch, onnx.Fix(MaxSeqLength))
	g.Input(inputMask, onnx.Int64, batch, onnx.Fix(MaxSeqLength))
	g.Input(inputSegmentIDs, onnx.Int64, batch, onnx.Fix(MaxSeqLength))
	point := func(id int64, out string) {
		hit := g.Cast(g.Equal(ids, g.Const("", onnx.Int64, []int64{}, []int64{id})), onnx.Float)
		g.Node("Sub", []string{g.Mul(hit, g.Scalar(onnx.Float, 20)), g.Scalar(onnx.Float, 10)}, []string{out})
		g.Output(out, onnx.Float, batch, onnx.Fix(MaxSeqLength))
	}
	point(startID, outputStart)
	point(endID, outputEnd)
	if err := g.Err(); err != nil {
		return nil, fmt.Errorf("bert: build the known-answer model: %w", err)
	}
	return g, nil
}
