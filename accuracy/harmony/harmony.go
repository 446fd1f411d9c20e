// Package harmony reads gpt-oss outputs in OpenAI's Harmony format as
// mlcommons/inference language/gpt-oss-120b/eval_accuracy.py does before
// it parses an answer: the decoded text (special tokens kept) holds an
// analysis channel with the reasoning and a final channel with the answer,
// <|channel|>final<|message|> ... <|return|>. FinalSection takes the
// final channel's text; the answer parsers of accuracy/choice and
// accuracy/lcb look there first. Functions are pure and safe for
// concurrent use.
package harmony

import (
	"regexp"
	"strings"

	"github.com/mlperf-go/inference/internal/pystr"
)

const (
	channelFinal = "<|channel|>final"
	message      = "<|message|>"
	returnTok    = "<|return|>"
)

// FinalSection is extract_final_section: the text after the first
// "<|channel|>final...<|message|>" (anything but "<" allowed between
// "final" and "<|message|>", which tolerates corrupted markers such as
// "final 明" or "final537") up to the first "<|return|>" or the end,
// stripped; the whole stripped text where there is no final channel.
func FinalSection(text string) string {
	text = pystr.Strip(text)
	if text == "" {
		return ""
	}
	// re.search(r'<\|channel\|>final[^<]*<\|message\|>(.*?)(?:<\|return\|>|$)', text, re.DOTALL)
	for from := 0; ; {
		i := strings.Index(text[from:], channelFinal)
		if i < 0 {
			return text
		}
		i += from
		j := i + len(channelFinal)
		k := j
		for k < len(text) && text[k] != '<' {
			k++
		}
		if strings.HasPrefix(text[k:], message) {
			body := text[k+len(message):]
			if r := strings.Index(body, returnTok); r >= 0 {
				body = body[:r]
			} else if strings.HasSuffix(body, "\n") {
				body = body[:len(body)-1] // $ also matches before a final new line
			}
			return pystr.Strip(body)
		}
		from = i + 1
	}
}

var boldRE = regexp.MustCompile(`\*\*([^*]+)\*\*`)

// StripBold is strip_markdown_bold: **text** becomes text.
func StripBold(text string) string { return boldRE.ReplaceAllString(text, "$1") }
