package rouge

import "strings"

// PorterStem stems word as NLTK's PorterStemmer() does in its default
// NLTK_EXTENSIONS mode, which is what rouge_score uses with
// use_stemmer=True. The word is lowercased first (ASCII); rouge_score only
// stems tokens of [a-z0-9] longer than 3 characters, and that is the input
// this function is exact for. Other bytes are treated as consonants, one
// byte per character; any input is safe.
func PorterStem(word string) string {
	stem := strings.ToLower(word)
	if s, ok := porterIrregular[word]; ok {
		return s
	}
	if len(word) <= 2 {
		return stem
	}
	stem = porterStep1a(stem)
	stem = porterStep1b(stem)
	stem = porterStep1c(stem)
	stem = porterStep2(stem)
	stem = porterStep3(stem)
	stem = porterStep4(stem)
	stem = porterStep5a(stem)
	stem = porterStep5b(stem)
	return stem
}

// porterIrregular is NLTK's pool of irregular forms (keyed by the word as
// given, before lowercasing, as NLTK looks it up).
var porterIrregular = map[string]string{
	"sky": "sky", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"news": "news", "innings": "inning", "inning": "inning", "outings": "outing",
	"outing": "outing", "cannings": "canning", "canning": "canning", "howe": "howe",
	"proceed": "proceed", "exceed": "exceed", "succeed": "succeed",
}

func porterIsConsonant(w string, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		if i == 0 {
			return true
		}
		return !porterIsConsonant(w, i-1)
	}
	return true
}

// porterMeasure counts the "vc" pairs of the consonant/vowel pattern.
func porterMeasure(s string) int {
	m := 0
	prevV := false
	for i := range len(s) {
		c := porterIsConsonant(s, i)
		if c && prevV {
			m++
		}
		prevV = !c
	}
	return m
}

func porterContainsVowel(s string) bool {
	for i := range len(s) {
		if !porterIsConsonant(s, i) {
			return true
		}
	}
	return false
}

func porterEndsDoubleConsonant(w string) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && porterIsConsonant(w, n-1)
}

func porterEndsCVC(w string) bool {
	n := len(w)
	if n >= 3 && porterIsConsonant(w, n-3) && !porterIsConsonant(w, n-2) && porterIsConsonant(w, n-1) &&
		w[n-1] != 'w' && w[n-1] != 'x' && w[n-1] != 'y' {
		return true
	}
	return n == 2 && !porterIsConsonant(w, 0) && porterIsConsonant(w, 1)
}

type porterRule struct {
	suffix, repl string
	cond         func(stem string) bool // nil: unconditional
}

// porterApply applies the first rule whose suffix matches; a failed
// condition stops the list (NLTK's _apply_rule_list). The suffix "*d"
// means "ends in a double consonant" and strips both letters.
func porterApply(w string, rules []porterRule) string {
	for _, r := range rules {
		if r.suffix == "*d" && porterEndsDoubleConsonant(w) {
			stem := w[:len(w)-2]
			if r.cond == nil || r.cond(stem) {
				return stem + r.repl
			}
			return w
		}
		if strings.HasSuffix(w, r.suffix) {
			stem := w[:len(w)-len(r.suffix)]
			if r.suffix == "logi" && r.cond == nil { // NLTK: the word without "ogi" must have m > 0
				if porterPositive(w[:len(w)-3]) {
					return stem + r.repl
				}
				return w
			}
			if r.cond == nil || r.cond(stem) {
				return stem + r.repl
			}
			return w
		}
	}
	return w
}

func porterPositive(s string) bool { return porterMeasure(s) > 0 }
func porterGT1(s string) bool      { return porterMeasure(s) > 1 }

func porterStep1a(w string) string {
	if strings.HasSuffix(w, "ies") && len(w) == 4 {
		return w[:len(w)-3] + "ie"
	}
	return porterApply(w, []porterRule{{"sses", "ss", nil}, {"ies", "i", nil}, {"ss", "ss", nil}, {"s", "", nil}})
}

func porterStep1b(w string) string {
	if strings.HasSuffix(w, "ied") {
		if len(w) == 4 {
			return w[:len(w)-3] + "ie"
		}
		return w[:len(w)-3] + "i"
	}
	if strings.HasSuffix(w, "eed") {
		stem := w[:len(w)-3]
		if porterMeasure(stem) > 0 {
			return stem + "ee"
		}
		return w
	}
	var inter string
	ok := false
	for _, suf := range [...]string{"ed", "ing"} {
		if strings.HasSuffix(w, suf) {
			inter = w[:len(w)-len(suf)]
			if porterContainsVowel(inter) {
				ok = true
				break
			}
		}
	}
	if !ok {
		return w
	}
	last := inter[len(inter)-1]
	return porterApply(inter, []porterRule{
		{"at", "ate", nil},
		{"bl", "ble", nil},
		{"iz", "ize", nil},
		{"*d", string(last), func(string) bool { return last != 'l' && last != 's' && last != 'z' }},
		{"", "e", func(stem string) bool { return porterMeasure(stem) == 1 && porterEndsCVC(stem) }},
	})
}

func porterStep1c(w string) string {
	return porterApply(w, []porterRule{{"y", "i", func(stem string) bool {
		return len(stem) > 1 && porterIsConsonant(stem, len(stem)-1)
	}}})
}

var porterStep2Rules = []porterRule{
	{"ational", "ate", porterPositive},
	{"tional", "tion", porterPositive},
	{"enci", "ence", porterPositive},
	{"anci", "ance", porterPositive},
	{"izer", "ize", porterPositive},
	{"bli", "ble", porterPositive},
	{"alli", "al", porterPositive},
	{"entli", "ent", porterPositive},
	{"eli", "e", porterPositive},
	{"ousli", "ous", porterPositive},
	{"ization", "ize", porterPositive},
	{"ation", "ate", porterPositive},
	{"ator", "ate", porterPositive},
	{"alism", "al", porterPositive},
	{"iveness", "ive", porterPositive},
	{"fulness", "ful", porterPositive},
	{"ousness", "ous", porterPositive},
	{"aliti", "al", porterPositive},
	{"iviti", "ive", porterPositive},
	{"biliti", "ble", porterPositive},
	{"fulli", "ful", porterPositive},
	{"logi", "log", nil},
}

func porterStep2(w string) string {
	if strings.HasSuffix(w, "alli") && porterPositive(w[:len(w)-4]) {
		return porterStep2(w[:len(w)-4] + "al")
	}
	return porterApply(w, porterStep2Rules)
}

var porterStep3Rules = []porterRule{
	{"icate", "ic", porterPositive},
	{"ative", "", porterPositive},
	{"alize", "al", porterPositive},
	{"iciti", "ic", porterPositive},
	{"ical", "ic", porterPositive},
	{"ful", "", porterPositive},
	{"ness", "", porterPositive},
}

func porterStep3(w string) string { return porterApply(w, porterStep3Rules) }

var porterStep4Rules = []porterRule{
	{"al", "", porterGT1},
	{"ance", "", porterGT1},
	{"ence", "", porterGT1},
	{"er", "", porterGT1},
	{"ic", "", porterGT1},
	{"able", "", porterGT1},
	{"ible", "", porterGT1},
	{"ant", "", porterGT1},
	{"ement", "", porterGT1},
	{"ment", "", porterGT1},
	{"ent", "", porterGT1},
	{"ion", "", func(s string) bool {
		return porterMeasure(s) > 1 && len(s) > 0 && (s[len(s)-1] == 's' || s[len(s)-1] == 't')
	}},
	{"ou", "", porterGT1},
	{"ism", "", porterGT1},
	{"ate", "", porterGT1},
	{"iti", "", porterGT1},
	{"ous", "", porterGT1},
	{"ive", "", porterGT1},
	{"ize", "", porterGT1},
}

func porterStep4(w string) string { return porterApply(w, porterStep4Rules) }

func porterStep5a(w string) string {
	if strings.HasSuffix(w, "e") {
		stem := w[:len(w)-1]
		m := porterMeasure(stem)
		if m > 1 {
			return stem
		}
		if m == 1 && !porterEndsCVC(stem) {
			return stem
		}
	}
	return w
}

func porterStep5b(w string) string {
	return porterApply(w, []porterRule{{"ll", "l", func(string) bool { return porterMeasure(w[:len(w)-1]) > 1 }}})
}
