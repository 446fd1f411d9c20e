package rouge

import (
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// SentTokenize splits text into sentences as nltk.sent_tokenize(text) does
// for English: the pretrained Punkt model (tokenizers/punkt/english.pickle
// of nltk_data, whose parameters are compiled into this package) run by
// NLTK 3.8's PunktSentenceTokenizer.tokenize with boundary realignment.
// The reference evaluators of GPT-J and Llama 2 join the result with "\n"
// before ROUGE (see Postprocess). Safe for concurrent use.
func SentTokenize(text string) []string {
	rs := []rune(text)
	var out []string
	for _, sp := range punktSpans(rs) {
		out = append(out, string(rs[sp[0]:sp[1]]))
	}
	return out
}

// punktModel holds the English Punkt parameters.
type punktModel struct {
	abbrev       map[string]bool
	collocations map[[2]string]bool
	starters     map[string]bool
	ortho        map[string]int
}

var (
	punktOnce sync.Once
	punktEN   *punktModel
)

func punktEnglish() *punktModel {
	punktOnce.Do(func() {
		m := &punktModel{abbrev: map[string]bool{}, collocations: map[[2]string]bool{}, starters: map[string]bool{}, ortho: map[string]int{}}
		for _, l := range strings.Split(punktAbbrevTypes, "\n") {
			m.abbrev[l] = true
		}
		for _, l := range strings.Split(punktCollocations, "\n") {
			a, b, _ := strings.Cut(l, "\t")
			m.collocations[[2]string{a, b}] = true
		}
		for _, l := range strings.Split(punktSentStarters, "\n") {
			m.starters[l] = true
		}
		for _, l := range strings.Split(punktOrthoContext, "\n") {
			k, v, _ := strings.Cut(l, "\t")
			n, _ := strconv.Atoi(v)
			m.ortho[k] = n
		}
		punktEN = m
	})
	return punktEN
}

// Orthographic context flags (nltk.tokenize.punkt).
const (
	punktBegUC = 1 << 1
	punktMidUC = 1 << 2
	punktUnkUC = 1 << 3
	punktBegLC = 1 << 4
	punktMidLC = 1 << 5
	punktUnkLC = 1 << 6
	punktUC    = punktBegUC + punktMidUC + punktUnkUC
	punktLC    = punktBegLC + punktMidLC + punktUnkLC
)

// rougePyIsSpace is Python's str.isspace for one character (what \s matches in
// a str pattern): Unicode White_Space plus U+001C..U+001F.
func rougePyIsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// rougePyIsUpper / IsLower are Python's str.isupper / islower for one
// character (the Uppercase / Lowercase properties).
func rougePyIsUpper(r rune) bool {
	return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r)
}
func rougePyIsLower(r rune) bool {
	return unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r)
}

// rougePyLower is Python's str.lower (full case mapping for U+0130; final
// sigma is not special-cased, which cannot change an English decision).
func rougePyLower(s string) string {
	if strings.ContainsRune(s, 0x130) {
		s = strings.ReplaceAll(s, "\u0130", "i\u0307")
	}
	return strings.ToLower(s)
}

// punktIsWordChar is Python's [^\W\d]: a word character that is not a decimal
// digit (letters, underscore, non-decimal numerics).
func punktIsWordChar(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || (unicode.IsNumber(r) && !unicode.IsDigit(r))
}

// punktNonWord is PunktLanguageVars._re_non_word_chars: ) " ; } ] * : @ ' ( { [ ? !
func punktNonWord(r rune) bool {
	switch r {
	case ')', '"', ';', '}', ']', '*', ':', '@', '\'', '(', '{', '[', '?', '!':
		return true
	}
	return false
}

// punktNotWordStart is the complement of _re_word_start:
// ( " ` { [ : ; & # * @ ) } ] - ,
func punktNotWordStart(r rune) bool {
	switch r {
	case '(', '"', '`', '{', '[', ':', ';', '&', '#', '*', '@', ')', '}', ']', '-', ',':
		return true
	}
	return false
}

// punktMultiChar returns the length of _re_multi_char_punct at s[i:]
// (-{2,} | \.{2,} | (?:\.\s){2,}\.), 0 if none.
func punktMultiChar(s []rune, i int) int {
	n := len(s)
	if i+1 < n && s[i] == '-' && s[i+1] == '-' {
		j := i
		for j < n && s[j] == '-' {
			j++
		}
		return j - i
	}
	if i+1 < n && s[i] == '.' && s[i+1] == '.' {
		j := i
		for j < n && s[j] == '.' {
			j++
		}
		return j - i
	}
	k := 0
	for i+2*k+1 < n && s[i+2*k] == '.' && rougePyIsSpace(s[i+2*k+1]) {
		k++
	}
	if k >= 2 && i+2*k < n && s[i+2*k] == '.' {
		return 2*k + 1
	}
	if k >= 3 {
		return 2*(k-1) + 1
	}
	return 0
}

// punktWordEnd reports whether the lookahead that ends a word token
// matches at s[j:].
func punktWordEnd(s []rune, j int) bool {
	n := len(s)
	if j >= n || rougePyIsSpace(s[j]) || punktNonWord(s[j]) || punktMultiChar(s, j) > 0 {
		return true
	}
	if s[j] == ',' {
		k := j + 1
		return k >= n || rougePyIsSpace(s[k]) || punktNonWord(s[k]) || punktMultiChar(s, k) > 0
	}
	return false
}

// punktWordTokenize is PunktLanguageVars.word_tokenize (re.findall of the
// word tokenizer pattern) on one line.
func punktWordTokenize(s []rune, out [][]rune) [][]rune {
	for i := 0; i < len(s); {
		if n := punktMultiChar(s, i); n > 0 {
			out = append(out, s[i:i+n])
			i += n
			continue
		}
		c := s[i]
		if rougePyIsSpace(c) {
			i++
			continue
		}
		if !punktNotWordStart(c) {
			j := i + 1
			for !punktWordEnd(s, j) {
				j++
			}
			out = append(out, s[i:j])
			i = j
			continue
		}
		out = append(out, s[i:i+1])
		i++
	}
	return out
}

// punktToken is PunktToken with its annotations.
type punktToken struct {
	tok                       []rune
	typ                       string
	periodFinal               bool
	sentbreak, abbr, ellipsis bool
	firstUpper, firstLower    bool
}

// punktNumeric matches ^-?[\.,]?\d[\d,\.-]*\.?$ on the whole token.
func punktNumeric(t []rune) bool {
	i := 0
	if i < len(t) && t[i] == '-' {
		i++
	}
	if i < len(t) && (t[i] == '.' || t[i] == ',') {
		i++
	}
	if i >= len(t) || !unicode.IsDigit(t[i]) {
		// backtrack: [\.,]? may have eaten nothing useful; the optional
		// parts are single characters, so retry without them is the same
		// test (a digit cannot be '.', ',' or '-')
		return false
	}
	i++
	for i < len(t) && (unicode.IsDigit(t[i]) || t[i] == ',' || t[i] == '.' || t[i] == '-') {
		i++
	}
	return i == len(t) // [\d,\.-]* already took a final '.'
}

func newPunktToken(tok []rune) punktToken {
	t := punktToken{tok: tok}
	if punktNumeric(tok) {
		t.typ = "##number##"
	} else {
		t.typ = rougePyLower(string(tok))
	}
	t.periodFinal = len(tok) > 0 && tok[len(tok)-1] == '.'
	t.firstUpper = rougePyIsUpper(tok[0])
	t.firstLower = rougePyIsLower(tok[0])
	return t
}

func (t *punktToken) typeNoPeriod() string {
	if n := len(t.typ); n > 1 && t.typ[n-1] == '.' && len([]rune(t.typ)) > 1 {
		return t.typ[:n-1]
	}
	return t.typ
}

func (t *punktToken) typeNoSentPeriod() string {
	if t.sentbreak {
		return t.typeNoPeriod()
	}
	return t.typ
}

// isEllipsis: \.\.+$ matched at the start.
func (t *punktToken) isEllipsis() bool {
	if len(t.tok) < 2 {
		return false
	}
	for _, r := range t.tok {
		if r != '.' {
			return false
		}
	}
	return true
}

// isInitial: [^\W\d]\.$ matched at the start.
func (t *punktToken) isInitial() bool {
	return len(t.tok) == 2 && punktIsWordChar(t.tok[0]) && t.tok[1] == '.'
}

func (m *punktModel) firstPass(t *punktToken) {
	tok := t.tok
	switch {
	case len(tok) == 1 && (tok[0] == '.' || tok[0] == '?' || tok[0] == '!'):
		t.sentbreak = true
	case t.isEllipsis():
		t.ellipsis = true
	case t.periodFinal && !(len(tok) >= 2 && tok[len(tok)-2] == '.'):
		low := rougePyLower(string(tok[:len(tok)-1]))
		parts := strings.Split(low, "-")
		if m.abbrev[low] || m.abbrev[parts[len(parts)-1]] {
			t.abbr = true
		} else {
			t.sentbreak = true
		}
	}
}

// orthoHeuristic returns 1 (sentence starter), 0 (not), -1 (unknown).
func (m *punktModel) orthoHeuristic(t *punktToken) int {
	if len(t.tok) == 1 {
		switch t.tok[0] {
		case ';', ':', ',', '.', '!', '?':
			return 0
		}
	}
	oc := m.ortho[t.typeNoSentPeriod()]
	if t.firstUpper && oc&punktLC != 0 && oc&punktMidUC == 0 {
		return 1
	}
	if t.firstLower && (oc&punktUC != 0 || oc&punktBegLC == 0) {
		return 0
	}
	return -1
}

func (m *punktModel) secondPass(t1, t2 *punktToken) {
	if !t1.periodFinal {
		return
	}
	typ := t1.typeNoPeriod()
	next := t2.typeNoSentPeriod()
	initial := t1.isInitial()
	if m.collocations[[2]string{typ, next}] {
		t1.sentbreak = false
		t1.abbr = true
		return
	}
	if (t1.abbr || t1.ellipsis) && !initial {
		if m.orthoHeuristic(t2) == 1 {
			t1.sentbreak = true
			return
		}
		if t2.firstUpper && m.starters[next] {
			t1.sentbreak = true
			return
		}
	}
	if initial || typ == "##number##" {
		s := m.orthoHeuristic(t2)
		if s == 0 {
			t1.sentbreak = false
			t1.abbr = true
			return
		}
		if s == -1 && initial && t2.firstUpper && m.ortho[next]&punktLC == 0 {
			t1.sentbreak = false
			t1.abbr = true
			return
		}
	}
}

// containsSentbreak is text_contains_sentbreak: after annotation, is there
// a sentence-break token followed by another token?
func (m *punktModel) containsSentbreak(ctx []rune) bool {
	var toks []punktToken
	var words [][]rune
	start := 0
	for i := 0; i <= len(ctx); i++ {
		if i < len(ctx) && ctx[i] != '\n' {
			continue
		}
		line := ctx[start:i]
		start = i + 1
		words = punktWordTokenize(line, words[:0])
		for _, w := range words {
			toks = append(toks, newPunktToken(w))
		}
	}
	for i := range toks {
		m.firstPass(&toks[i])
	}
	for i := range toks {
		if i+1 < len(toks) {
			// the second pass of token i sees token i+1 after its first pass
			m.secondPass(&toks[i], &toks[i+1])
		}
		if toks[i].sentbreak && i+1 < len(toks) {
			return true
		}
	}
	return false
}

// punktMatch is one match of period_context_re: a sentence-end character
// at pos, what follows it (after_tok) and where next_tok starts (-1: the
// NonWord branch matched).
type punktMatch struct {
	pos, afterEnd, nextStart int
}

func punktEndContexts(s []rune) []punktMatch {
	var out []punktMatch
	for p, r := range s {
		if r != '.' && r != '?' && r != '!' {
			continue
		}
		q := p + 1
		if q < len(s) && punktNonWord(s[q]) {
			out = append(out, punktMatch{pos: p, afterEnd: q + 1, nextStart: -1})
			continue
		}
		j := q
		for j < len(s) && rougePyIsSpace(s[j]) {
			j++
		}
		if j == q || j == len(s) {
			continue
		}
		k := j
		for k < len(s) && !rougePyIsSpace(s[k]) {
			k++
		}
		out = append(out, punktMatch{pos: p, afterEnd: k, nextStart: j})
	}
	return out
}

// punktLastASCIIWhitespace is _get_last_whitespace_index: the last index of
// " \t\n\r\v\f" in s, 0 when there is none.
func punktLastASCIIWhitespace(s []rune) int {
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return i
		}
	}
	return 0
}

// punktSpans returns the sentence spans [start, end) of s in runes
// (span_tokenize with realign_boundaries=True).
func punktSpans(s []rune) [][2]int {
	m := punktEnglish()
	// _slices_from_text over _match_potential_end_contexts
	var slices [][2]int
	lastBreak := 0
	prevSlice := [2]int{0, 0}
	var prev *punktMatch
	emit := func(pm punktMatch, sl [2]int) {
		ctx := make([]rune, 0, sl[1]-sl[0]+1+pm.afterEnd-pm.pos)
		ctx = append(ctx, s[sl[0]:sl[1]]...)
		ctx = append(ctx, s[pm.pos:pm.afterEnd]...)
		if m.containsSentbreak(ctx) {
			slices = append(slices, [2]int{lastBreak, pm.pos + 1})
			if pm.nextStart >= 0 {
				lastBreak = pm.nextStart
			} else {
				lastBreak = pm.pos + 1
			}
		}
	}
	matches := punktEndContexts(s)
	for i := range matches {
		mt := matches[i]
		before := s[prevSlice[1]:mt.pos]
		idx := punktLastASCIIWhitespace(before)
		if idx != 0 {
			idx += prevSlice[1] + 1
		} else {
			idx = prevSlice[0]
		}
		word := [2]int{idx, mt.pos}
		if prev != nil && prevSlice[1] <= word[0] {
			emit(*prev, prevSlice)
		}
		prev = &matches[i]
		prevSlice = word
	}
	if prev != nil {
		emit(*prev, prevSlice)
	}
	end := len(s)
	for end > 0 && rougePyIsSpace(s[end-1]) {
		end--
	}
	slices = append(slices, [2]int{lastBreak, end})

	// _realign_boundaries
	var out [][2]int
	realign := 0
	for i := range slices {
		s1 := [2]int{slices[i][0] + realign, slices[i][1]}
		if i+1 == len(slices) {
			if s1[1] > s1[0] {
				out = append(out, s1)
			}
			continue
		}
		s2 := slices[i+1]
		if n, rstripped, ok := punktRealign(s[s2[0]:max(s2[0], s2[1])]); ok {
			out = append(out, [2]int{s1[0], s2[0] + rstripped})
			realign = n
		} else {
			realign = 0
			if s1[1] > s1[0] {
				out = append(out, s1)
			}
		}
	}
	return out
}

// punktRealign matches re_boundary_realignment ["\')\]}]+?(?:\s+|(?=--)|$)
// at the start of t. It returns the match length, the length of the match
// with trailing whitespace stripped, and whether it matched.
func punktRealign(t []rune) (n, rstripped int, ok bool) {
	for k := 1; k <= len(t); k++ {
		switch t[k-1] {
		case '"', '\'', ')', ']', '}':
		default:
			return 0, 0, false
		}
		if k < len(t) && rougePyIsSpace(t[k]) {
			j := k
			for j < len(t) && rougePyIsSpace(t[j]) {
				j++
			}
			return j, k, true
		}
		if k+1 < len(t) && t[k] == '-' && t[k+1] == '-' {
			return k, k, true
		}
		if k == len(t) || t[k] == '\n' {
			return k, k, true
		}
	}
	return 0, 0, false
}
