package gptoss

import (
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/llm/harmony"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// shot is a few-shot example: a user question and the assistant's answer
// on the final channel.
type shot struct{ user, assistant string }

// promptFamily is the prompt family of a dataset name: its evaluator
// family with mmlu_pro folded into mmlu (harmonize_inputs.py's
// create_mmlu_prompt serves both), "default" for none.
func promptFamily(dataset string) string {
	f, ok := reasoning.Family(dataset)
	switch {
	case !ok:
		return "default"
	case f == "mmlu_pro":
		return "mmlu"
	}
	return f
}

// conversation is the Harmony conversation harmonize_inputs.py builds for
// a question of dataset at effort: the system message (ChatGPT's identity,
// knowledge cutoff 2024-06, current date 2025-09-30, the effort, the
// channels analysis, commentary and final required), the developer
// message with the family's instructions, the family's few-shot examples,
// and the question.
func conversation(dataset, question string, effort harmony.Effort) []harmony.Message {
	sys := harmony.NewSystemContent()
	sys.Effort, sys.ConversationStartDate = effort, conversationDate
	fam := promptFamily(dataset)
	msgs := []harmony.Message{
		{Role: harmony.System, Text: sys.Text()},
		{Role: harmony.Developer, Text: harmony.DeveloperText(familyInstructions[fam])},
	}
	for _, s := range familyShots[fam] {
		msgs = append(msgs, harmony.Message{Role: harmony.User, Text: s.user},
			harmony.Message{Role: harmony.Assistant, Channel: "final", Text: s.assistant})
	}
	return append(msgs, harmony.Message{Role: harmony.User, Text: question})
}

// encodePrompt returns the prompt ids of a question: the conversation
// rendered for the assistant's completion (render_conversation_for_completion).
func encodePrompt(tok *tokenizer.O200k, dataset, question string, effort harmony.Effort) ([]int32, error) {
	return harmony.RenderForCompletion(tok, conversation(dataset, question, effort), harmony.Assistant)
}

// promptText is the text of the same prompt (the ids decoded with their
// special tokens): what a server that takes text only is sent, and the
// text_input of the synthetic sets.
func promptText(dataset, question string, effort harmony.Effort) string {
	return harmony.TextForCompletion(conversation(dataset, question, effort), harmony.Assistant)
}
