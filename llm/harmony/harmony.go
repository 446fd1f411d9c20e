// Package harmony renders conversations in OpenAI's Harmony format, the
// prompt format of gpt-oss, as the openai-harmony library's
// render_conversation_for_completion does (github.com/openai/harmony
// src/encoding.rs; docs/format.md): every message is <|start|>, its role,
// optionally <|channel|> and a channel, <|message|>, its content and
// <|end|>; the conversation ends with <|start|> and the role that is to
// answer. Role names, channels and contents are encoded as ordinary text
// with o200k_harmony (a special token's text inside a content stays
// text), the markers as their special ids.
//
// Only the parts the MLPerf gpt-oss prompts use are here: system content
// (model identity, knowledge cutoff, conversation start date, reasoning
// effort, required channels), developer instructions, and text messages
// with or without a channel; no tools, recipients or content types.
package harmony

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mlperf-go/inference/llm/tokenizer"
)

// Role is the author of a message.
type Role string

// The roles of the Harmony format.
const (
	System    Role = "system"
	Developer Role = "developer"
	User      Role = "user"
	Assistant Role = "assistant"
)

// Effort is the reasoning effort a system message asks for.
type Effort string

// The reasoning efforts.
const (
	Low    Effort = "low"
	Medium Effort = "medium"
	High   Effort = "high"
)

// ParseEffort reads "low", "medium" or "high" (any case).
func ParseEffort(s string) (Effort, error) {
	switch e := Effort(strings.ToLower(s)); e {
	case Low, Medium, High:
		return e, nil
	}
	return "", fmt.Errorf("harmony: reasoning effort %q: want low, medium or high", s)
}

// SystemContent is a system message's content.
type SystemContent struct {
	// ModelIdentity, KnowledgeCutoff and ConversationStartDate ("": left
	// out) make the first section, one line each.
	ModelIdentity, KnowledgeCutoff, ConversationStartDate string
	// Effort ("": left out) is the "Reasoning: …" section.
	Effort Effort
	// Channels ("": left out) are the valid channels; ChannelRequired adds
	// that every message must name one.
	Channels        []string
	ChannelRequired bool
}

// NewSystemContent is SystemContent::new() of openai-harmony: ChatGPT's
// identity, knowledge cutoff 2024-06, medium effort, and the channels
// analysis, commentary and final required.
func NewSystemContent() SystemContent {
	return SystemContent{
		ModelIdentity:   "You are ChatGPT, a large language model trained by OpenAI.",
		KnowledgeCutoff: "2024-06",
		Effort:          Medium,
		Channels:        []string{"analysis", "commentary", "final"},
		ChannelRequired: true,
	}
}

// Text is the content as the renderer writes it: the sections joined by
// blank lines.
func (s SystemContent) Text() string {
	var sections, top []string
	if s.ModelIdentity != "" {
		top = append(top, s.ModelIdentity)
	}
	if s.KnowledgeCutoff != "" {
		top = append(top, "Knowledge cutoff: "+s.KnowledgeCutoff)
	}
	if s.ConversationStartDate != "" {
		top = append(top, "Current date: "+s.ConversationStartDate)
	}
	if len(top) > 0 {
		sections = append(sections, strings.Join(top, "\n"))
	}
	if s.Effort != "" {
		sections = append(sections, "Reasoning: "+string(s.Effort))
	}
	if len(s.Channels) > 0 {
		h := "# Valid channels: " + strings.Join(s.Channels, ", ") + "."
		if s.ChannelRequired {
			h += " Channel must be included for every message."
		}
		sections = append(sections, h)
	}
	return strings.Join(sections, "\n\n")
}

// DeveloperText is a developer message's content with instructions:
// "# Instructions", a blank line, the instructions.
func DeveloperText(instructions string) string {
	return "# Instructions\n\n" + instructions
}

// Message is one message: its author, an optional channel and its text
// (for a system message, SystemContent.Text; for a developer message,
// DeveloperText).
type Message struct {
	Role    Role
	Channel string
	Text    string
}

// Encoder is the tokenizer the renderer encodes text with:
// o200k_harmony's ordinary-text encoding (tokenizer.O200k).
type Encoder interface {
	EncodeOrdinary(text string) []int32
}

// ErrEmpty is returned for a conversation without messages or a message
// without a role.
var ErrEmpty = errors.New("harmony: empty conversation or role")

// RenderForCompletion returns the token ids of msgs followed by the
// header of the next turn (<|start|> and next's name), ready for the
// model to complete: render_conversation_for_completion(conversation,
// next).
func RenderForCompletion(enc Encoder, msgs []Message, next Role) ([]int32, error) {
	if len(msgs) == 0 || next == "" {
		return nil, ErrEmpty
	}
	var out []int32
	for _, m := range msgs {
		if m.Role == "" {
			return nil, ErrEmpty
		}
		out = append(out, tokenizer.HarmonyStart)
		out = append(out, enc.EncodeOrdinary(string(m.Role))...)
		if m.Channel != "" {
			out = append(out, tokenizer.HarmonyChannel)
			out = append(out, enc.EncodeOrdinary(m.Channel)...)
		}
		out = append(out, tokenizer.HarmonyMessage)
		out = append(out, enc.EncodeOrdinary(m.Text)...)
		out = append(out, tokenizer.HarmonyEnd)
	}
	out = append(out, tokenizer.HarmonyStart)
	return append(out, enc.EncodeOrdinary(string(next))...), nil
}

// TextForCompletion is the text of what RenderForCompletion encodes, the
// markers written as their special tokens' texts (<|start|>, ...): the
// decoding of its ids.
func TextForCompletion(msgs []Message, next Role) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("<|start|>" + string(m.Role))
		if m.Channel != "" {
			b.WriteString("<|channel|>" + m.Channel)
		}
		b.WriteString("<|message|>" + m.Text + "<|end|>")
	}
	b.WriteString("<|start|>" + string(next))
	return b.String()
}
