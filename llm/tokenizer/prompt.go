package tokenizer

import "fmt"

// GPT-J prompt facts (MLCommons language/gpt-j/dataset.py).
const (
	// GPTJInstruction is the instruction of every cnn_eval.json record.
	GPTJInstruction = "Summarize the following news article:"
	// GPTJMaxInputTokens is the reference's truncation length: prompts are
	// cut on the right to 1919 tokens (1919 + 128 new tokens = 2047).
	GPTJMaxInputTokens = 1919
	gptjTemplate       = "Below is an instruction that describes a task, paired with an input that provides further context. Write a response that appropriately completes the request.\n\n### Instruction:\n%s\n\n### Input:\n%s\n\n### Response:"
)

// FormatGPTJPrompt returns the reference's "prompt_input" template filled
// with instruction and input (the article). No space or newline follows
// "### Response:".
func FormatGPTJPrompt(instruction, input string) string {
	return fmt.Sprintf(gptjTemplate, instruction, input)
}

// EncodeGPTJPrompt returns the GPT-J input ids of an article: the template
// with GPTJInstruction, GPT-2 BPE without BOS, truncated on the right to
// GPTJMaxInputTokens.
func EncodeGPTJPrompt(tok *GPT2, article string) []int32 {
	ids := tok.Encode(FormatGPTJPrompt(GPTJInstruction, article))
	if len(ids) > GPTJMaxInputTokens {
		ids = ids[:GPTJMaxInputTokens]
	}
	return ids
}

// FormatLlama2Prompt returns the Llama 2 chat prompt of the MLCommons
// OpenOrca preprocessing (processorca.py): with a system prompt
// "<s>[INST] <<SYS>>\n{system}\n<</SYS>>\n\n{question} [/INST]", without one
// "<s>[INST] {question} [/INST]". The benchmark itself runs the
// preprocessed tok_input ids, never this string.
func FormatLlama2Prompt(system, question string) string {
	if system == "" {
		return "<s>[INST] " + question + " [/INST]"
	}
	return "<s>[INST] <<SYS>>\n" + system + "\n<</SYS>>\n\n" + question + " [/INST]"
}

// Vocab is what CheckModelVocab needs of a tokenizer.
type Vocab interface{ VocabSize() int }

// CheckModelVocab checks that a model with modelVocab logit rows fits the
// tokenizer: every id the tokenizer produces must be a row of the model,
// and the model may pad its embedding (GPT-J: 50400 rows for 50257 ids) by
// less than 1024 rows. A mismatch means the tokenizer is not the model's.
func CheckModelVocab(tok Vocab, modelVocab int) error {
	n := tok.VocabSize()
	if modelVocab < n || modelVocab-n >= 1024 {
		return fmt.Errorf("tokenizer: the model has %d vocabulary rows%s but the tokenizer has %d ids%s: the model is not this benchmark's (or the tokenizer is not the model's); check the model file", modelVocab, looksLike(modelVocab, vocabRows), n, looksLike(n, tokenizerIDs))
	}
	return nil
}

// vocabRows and tokenizerIDs name the models that have a vocabulary of a
// given size (embedding rows; tokenizer ids), for messages.
var (
	vocabRows = map[int]string{
		50400:  "GPT-J 6B (gptj)",
		32000:  "Llama 2 (llama2-70b) or Mixtral 8x7B",
		30522:  "BERT (bert)",
		128256: "Llama 3.1 (llama3_1-8b, llama3_1-405b)",
		50257:  "GPT-2",
		129280: "DeepSeek-R1 or DeepSeek-V3",
		201088: "gpt-oss",
	}
	tokenizerIDs = map[int]string{
		50257:  "GPT-J's (GPT-2 BPE)",
		32000:  "Llama 2's",
		30522:  "BERT's",
		128256: "Llama 3.1's",
		128815: "DeepSeek-R1's",
		200019: "gpt-oss's o200k_harmony",
	}
)

func looksLike(n int, names map[int]string) string {
	if s, ok := names[n]; ok {
		return ", as " + s
	}
	return ""
}
