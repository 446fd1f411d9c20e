package tokenizer

import "strings"

// Mixtral-8x7B's vocabulary: the SentencePiece BPE model of Mistral 7B
// v0.1 that Mixtral-8x7B-Instruct-v0.1 ships (tokenizer.model), 32000
// pieces with byte fallback. It has Llama 2's layout (<unk> 0, <s> 1,
// </s> 2, then the 256 byte pieces) but other pieces and merges: "▁The"
// is 415 here and 450 in Llama 2, so Llama 2's tokenizer cannot stand in
// for it.
const (
	// MistralVocabSize is the number of pieces.
	MistralVocabSize = 32000
	// MistralBOSID and MistralEOSID are <s> and </s>.
	MistralBOSID = 1
	MistralEOSID = 2
)

// LoadMistral reads the Mistral/Mixtral vocabulary and merges baked into
// mistral-tokenizer.js of the npm package mistral-tokenizer-js@1.0.0 (the
// mixtral folder make setup fills; path may be the folder or the .js
// file). The returned tokenizer encodes and decodes as Llama's does (the
// same SentencePiece rules); EncodeSpecial reads the special tokens of a
// Mixtral prompt.
func LoadMistral(path string) (*Llama, error) {
	return loadSentencePieceJS(path, "mistral-tokenizer.js", "vocab_base64", "merges_binary", "mistral-tokenizer-js@1.0.0")
}

// specialTexts are the special tokens a prompt's text may spell, as the
// Hugging Face tokenizers of Llama 2 and Mistral read them.
var specialTexts = []struct {
	text string
	id   int32
}{{"<unk>", LlamaUnkID}, {"<s>", LlamaBOSID}, {"</s>", LlamaEOSID}}

// EncodeSpecial returns the ids of text as the Hugging Face tokenizer of
// Mixtral-8x7B-Instruct-v0.1 (the February 2024 files the MLCommons data
// set was tokenized with) encodes a prompt with add_special_tokens: BOS
// first when bos is set, then the text split at the special tokens it
// spells ("<s>", "</s>", "<unk>"), each written as its id and every
// non-empty piece between them encoded on its own with the "▁" dummy
// prefix. The data set's "<s> [INST] …" thus starts 1, 1, 28705, 733
// (mlcommons/inference language/mixtral-8x7b/standalone_infer/
// hf_eval_all.py shows that row), and a server that parses special tokens
// (vLLM) runs the same ids.
func (t *Llama) EncodeSpecial(text string, bos bool) []int32 {
	var out []int32
	if bos {
		out = append(out, LlamaBOSID)
	}
	for text != "" {
		at, which := len(text), -1
		for k, s := range specialTexts {
			if i := strings.Index(text, s.text); i >= 0 && i < at {
				at, which = i, k
			}
		}
		if at > 0 {
			out = append(out, t.Encode(text[:at], false)...)
		}
		if which < 0 {
			break
		}
		out = append(out, specialTexts[which].id)
		text = text[at+len(specialTexts[which].text):]
	}
	return out
}
