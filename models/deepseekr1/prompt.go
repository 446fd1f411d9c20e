package deepseekr1

import "github.com/mlperf-go/inference/llm/tokenizer"

// formatPrompt is the chat template of deepseek-ai/DeepSeek-R1
// (tokenizer_config.json at the pinned revision) applied to one user
// message with add_generation_prompt, as utils/tokenization.py's
// StandardTokenizer.tokenize_prompts does: <｜begin▁of▁sentence｜>, the
// (empty) system prompt, <｜User｜> and the message, then
// <｜Assistant｜><think> and a newline, which starts the model's
// reasoning.
func formatPrompt(message string) string {
	return tokenizer.DeepSeekBOS + tokenizer.DeepSeekUser + message + tokenizer.DeepSeekAssistant + tokenizer.DeepSeekThink + "\n"
}

// encodePrompt returns the ids of formatPrompt(message) as
// apply_chat_template tokenizes the rendered template: add_special_tokens
// off (the template writes the BOS), the markers' texts as their added
// tokens.
func encodePrompt(tok *tokenizer.DeepSeek, message string) []int32 {
	return tok.Encode(formatPrompt(message), false)
}
