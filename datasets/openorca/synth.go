package openorca

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/mlperf-go/inference/llm/tokenizer"
)

// SynthConfig sizes a synthetic data set.
type SynthConfig struct {
	// Samples is the number of rows (at least 1).
	Samples int
	// Seed fixes the content: the same config gives the same rows.
	Seed uint64
	// MaxQuestionWords bounds the question length in words (0: 120).
	MaxQuestionWords int
	// MaxOutputWords bounds the reference answer in words (0: 80).
	MaxOutputWords int
}

// SmallSynth is the default synthetic data set: 24 rows, six per origin.
var SmallSynth = SynthConfig{Samples: 24, Seed: 20230905}

// systemPrompts are system prompts in the style of OpenOrca's (the empty
// one included: rows without a system prompt use the short template).
var systemPrompts = []string{
	"",
	"You are an AI assistant. You will be given a task. You must generate a detailed and long answer.",
	"You are a helpful assistant, who always provide explanation. Think like you are answering to a five year old.",
	"You are an AI assistant that helps people find information. User will you give you a question. Your task is to answer as faithfully as you can.",
	"Explain how you used the definition to come up with the answer.",
}

var words = strings.Fields(`the a of and to in is was for on that with as by at from it this be are were
which an or his her their has have had not but all can one two three first new more time year people
river city mountain music science history language water energy market school garden bridge island
painter engineer teacher student farmer doctor village harbour station library museum forest desert
quickly carefully often never always slowly brightly quietly together across between during after
before under over into through against around built wrote found played grew moved opened studied
measured described answered explained translated summarised compared decided reached covered
children question answer reason evidence example sentence paragraph article review summary title
premise hypothesis statement option choice positive negative neutral true false correct wrong`)

// sentence returns n words from r as a capitalised sentence.
func sentence(r *rand.Rand, n int, end string) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ") + end
}

// text returns about n words as sentences of 4..14 words.
func text(r *rand.Rand, n int, end string) string {
	var parts []string
	for n > 0 {
		k := min(n, 4+r.IntN(11))
		n -= k
		e := "."
		if n == 0 {
			e = end
		}
		parts = append(parts, sentence(r, k, e))
	}
	return strings.Join(parts, " ")
}

// EncodePrompt returns the tok_input ids processorca.py gives a row: the
// chat template (tokenizer.FormatLlama2Prompt) encoded as
// LlamaTokenizerFast does with its defaults (BOS added, then the literal
// "<s>" of the template read as the special token: ids 1, 1), and the
// token 29871 appended (mlcommons/inference language/llama2-70b/processorca.py; the reference notes the double BOS as
// an ambiguity, and the benchmark never re-tokenizes: it runs tok_input).
func EncodePrompt(tok *tokenizer.Llama, system, question string) []int32 {
	body := strings.TrimPrefix(tokenizer.FormatLlama2Prompt(system, question), "<s>")
	ids := []int32{tokenizer.LlamaBOSID, tokenizer.LlamaBOSID}
	ids = append(ids, tok.Encode(body, false)...)
	return append(ids, tokenizer.LlamaSpaceID)
}

// EncodeOutput returns the tok_output ids of a reference answer: BOS and
// the text, without the extra 29871.
func EncodeOutput(tok *tokenizer.Llama, output string) []int32 {
	return tok.Encode(output, true)
}

// Synth returns rows in the reference's format with generated text: ids
// "<origin>.<n>" over the four origins in turn, varied prompt and answer
// lengths, and tok_input/tok_output encoded with the real Llama 2
// tokenizer tok.
func Synth(tok *tokenizer.Llama, cfg SynthConfig) ([]Record, error) {
	if cfg.Samples < 1 {
		return nil, fmt.Errorf("openorca: synth: %d samples, want at least 1", cfg.Samples)
	}
	if tok == nil {
		return nil, fmt.Errorf("openorca: synth: no tokenizer")
	}
	qMax, oMax := cfg.MaxQuestionWords, cfg.MaxOutputWords
	if qMax <= 0 {
		qMax = 120
	}
	if oMax <= 0 {
		oMax = 80
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x6f70656e6f726361))
	recs := make([]Record, cfg.Samples)
	for i := range recs {
		origin := Origins[i%len(Origins)]
		sys := systemPrompts[r.IntN(len(systemPrompts))]
		q := text(r, 3+r.IntN(qMax), "?")
		out := text(r, 3+r.IntN(oMax), ".")
		in := EncodePrompt(tok, sys, q)
		to := EncodeOutput(tok, out)
		recs[i] = Record{
			ID:              fmt.Sprintf("%s.%d", origin, 1000+r.IntN(900000)),
			SystemPrompt:    sys,
			Question:        q,
			Output:          out,
			Input:           tokenizer.FormatLlama2Prompt(sys, q),
			TokInput:        widen(in),
			TokOutput:       widen(to),
			Origin:          origin,
			TokInputLength:  int64(len(in)),
			TokOutputLength: int64(len(to)),
		}
	}
	return recs, nil
}

// SynthFile writes Synth(tok, cfg) to path (see WriteFile).
func SynthFile(path string, tok *tokenizer.Llama, cfg SynthConfig) error {
	recs, err := Synth(tok, cfg)
	if err != nil {
		return err
	}
	return WriteFile(path, recs)
}
