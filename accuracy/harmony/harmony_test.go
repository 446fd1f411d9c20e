package harmony

import "testing"

func TestFinalSectionTakesTheFinalChannel(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<|channel|>analysis<|message|>think A<|end|><|start|>assistant<|channel|>final<|message|> B <|return|>", "B"},
		{"<|channel|>final 明<|message|>C", "C"},                          // corrupted marker, no return
		{"<|channel|>final537<|message|>D<|return|>tail<|return|>", "D"}, // first return
		{"<|channel|>final<x<|channel|>final<|message|>E", "E"},          // a "<" breaks the first marker
		{"  only analysis  ", "only analysis"},
		{"<|channel|>final<|message|>", ""},
		{"", ""},
	} {
		if got := FinalSection(c.in); got != c.want {
			t.Errorf("FinalSection(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := StripBold("**A** and **not* this**"); got != "A and **not* this**" {
		t.Errorf("StripBold = %q", got)
	}
}
