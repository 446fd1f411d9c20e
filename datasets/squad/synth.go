package squad

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// SynthConfig sizes a synthetic SQuAD file. Contexts have between MinWords
// and MaxWords words, except a LongFraction of them that have between
// LongMinWords and LongMaxWords (long enough to need several 384-token
// windows). Questions are spread evenly over the paragraphs.
type SynthConfig struct {
	Seed         uint64
	Articles     int
	Paragraphs   int
	Questions    int
	MinWords     int
	MaxWords     int
	LongFraction float64
	LongMinWords int
	LongMaxWords int
}

// SmallSynth is the test fixture's shape: a few paragraphs, most of them
// long, so that every question spans several document windows.
var SmallSynth = SynthConfig{
	Seed: 1, Articles: 2, Paragraphs: 4, Questions: 12,
	MinWords: 40, MaxWords: 80, LongFraction: 0.75, LongMinWords: 420, LongMaxWords: 700,
}

// DevSizedSynth has the shape of dev-v1.1.json: 48 articles, 2067
// paragraphs, 10570 questions, context lengths chosen so that the
// reference feature construction yields about as many features (10833) as
// the real file.
var DevSizedSynth = SynthConfig{
	Seed: 11, Articles: 48, Paragraphs: DevParagraphs, Questions: DevQuestions,
	MinWords: 60, MaxWords: 190, LongFraction: 0.0105, LongMinWords: 330, LongMaxWords: 620,
}

func (c SynthConfig) validate() error {
	switch {
	case c.Articles <= 0 || c.Paragraphs < c.Articles || c.Questions < 0:
		return fmt.Errorf("squad: synth: need 0 < articles (%d) <= paragraphs (%d) and questions (%d) >= 0", c.Articles, c.Paragraphs, c.Questions)
	case c.MinWords <= 0 || c.MaxWords < c.MinWords:
		return fmt.Errorf("squad: synth: need 0 < min words (%d) <= max words (%d)", c.MinWords, c.MaxWords)
	case c.LongFraction < 0 || c.LongFraction > 1:
		return fmt.Errorf("squad: synth: long fraction %g not in [0, 1]", c.LongFraction)
	case c.LongFraction > 0 && (c.LongMinWords <= 0 || c.LongMaxWords < c.LongMinWords):
		return fmt.Errorf("squad: synth: need 0 < long min words (%d) <= long max words (%d)", c.LongMinWords, c.LongMaxWords)
	}
	return nil
}

// Synth builds a deterministic SQuAD v1.1 data set: the same config gives
// the same bytes. The text mixes English words with accented Latin, Greek
// (including words ending in capital sigma), Cyrillic, CJK, combining
// marks, no-break and narrow no-break spaces, zero-width characters,
// emoji, a ligature, an over-long word, literal BERT special tokens and
// plenty of punctuation. Every answer is a substring of its context at its
// answer_start (counted in code points, as SQuAD does).
func Synth(cfg SynthConfig) (*Dataset, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed5eed))
	ds := &Dataset{Version: Version}
	qid := 0
	for a := 0; a < cfg.Articles; a++ {
		art := Article{Title: fmt.Sprintf("Synthetic_article_%d", a)}
		p0 := a * cfg.Paragraphs / cfg.Articles
		p1 := (a + 1) * cfg.Paragraphs / cfg.Articles
		for p := p0; p < p1; p++ {
			nq := (p+1)*cfg.Questions/cfg.Paragraphs - p*cfg.Questions/cfg.Paragraphs
			lo, hi := cfg.MinWords, cfg.MaxWords
			if rng.Float64() < cfg.LongFraction {
				lo, hi = cfg.LongMinWords, cfg.LongMaxWords
			}
			ctx := synthContext(rng, lo+rng.IntN(hi-lo+1))
			par := Paragraph{Context: ctx.text}
			for q := 0; q < nq; q++ {
				par.QAs = append(par.QAs, synthQA(rng, &ctx, fmt.Sprintf("%024x", 0x5a0000+qid)))
				qid++
			}
			art.Paragraphs = append(art.Paragraphs, par)
		}
		ds.Data = append(ds.Data, art)
	}
	return ds, nil
}

var synthWords = strings.Fields(`the of and in to a was is for on as by with from that at his an
which were are it also first its their has be this city century war new world government
university river church one two three years time national state people school during known
between after several large early modern history power music population north south east west
area system water major including under became other these called film building company team
season king empire century island army league public american british french german roman
president council research language species house record album series station party museum
design energy market trade science culture theory law court economy temperature mountain ocean`)

// synthUnicode holds the awkward words; some contain characters that split
// words for BERT but not for SQuAD's whitespace split, or the reverse.
var synthUnicode = []string{
	"café", "naïve", "Zürich", "São", "Paulo", "Ελλάδα", "ΟΔΟΣ", "ΛΟΓΟΣ.", "Σίσυφος", "北京", "東京都",
	"Москва", "İstanbul", "straße", "œuvre", "“quoted”", "‘single’", "rock'n'roll", "U.S.", "e.g.",
	"(1895–1943).", "$1,000", "50%", "3.14", "co-operate", "—", "…", "a\u00a0b", "x\u202fy",
	"zero\u200bwidth", "e\u0301te\u0301", "emoji🙂", "ﬁne", "Ångström", "Œdipus", "Ñandú", "crème-brûlée",
	"[MASK]", "x[SEP]y", "ﬀ", "½", "Ⅻ", "²", "日本語のテキスト", "한국어", "ʻOkina", "Dvořák", "Łódź",
	"\u00adsoft\u00adhyphen", "tab\tseparated", "line\nbreak", "«guillemets»", "¿Qué?", "¡Sí!",
	"A&M", "<b>", "C++", "C#", ".NET", "@user", "#tag", "~tilde", "^caret", "`tick`", "{brace}", "|pipe|",
	strings.Repeat("long", 30), "ΣΑΣ", "ΑΣ.Β", "ΣΟΦΊΑ",
}

// synthDoc is a generated context and the code point offset of each word.
type synthDoc struct {
	text   string
	words  []string
	starts []int // code point offset of each word
}

func synthContext(rng *rand.Rand, n int) synthDoc {
	var d synthDoc
	var b strings.Builder
	pos := 0
	sentence := 0
	for i := 0; i < n; i++ {
		var w string
		switch r := rng.IntN(100); {
		case r < 12:
			w = synthUnicode[rng.IntN(len(synthUnicode))]
		case r < 16:
			w = fmt.Sprintf("%d", 1000+rng.IntN(1100))
		default:
			w = synthWords[rng.IntN(len(synthWords))]
		}
		if sentence == 0 && len(w) > 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		sentence++
		if sentence > 6 && rng.IntN(8) == 0 {
			w += [...]string{".", ",", ";", ":", "!", "?", ").", "'s", "\","}[rng.IntN(9)]
			if strings.ContainsAny(w[len(w)-1:], ".!?") {
				sentence = 0
			}
		}
		if i > 0 {
			sep := " "
			switch rng.IntN(40) {
			case 0:
				sep = "  "
			case 1:
				sep = "\n"
			case 2:
				sep = " \u202f"
			}
			b.WriteString(sep)
			pos += utf8.RuneCountInString(sep)
		}
		d.words = append(d.words, w)
		d.starts = append(d.starts, pos)
		b.WriteString(w)
		pos += utf8.RuneCountInString(w)
	}
	d.text = b.String()
	return d
}

var synthQuestionStarts = []string{"What", "Which", "Who", "When", "Where", "How many", "Why", "In what year"}

func synthQA(rng *rand.Rand, d *synthDoc, id string) QA {
	qa := QA{ID: id}
	var q strings.Builder
	q.WriteString(synthQuestionStarts[rng.IntN(len(synthQuestionStarts))])
	nw := 3 + rng.IntN(10)
	if rng.IntN(10) == 0 {
		nw = 70 + rng.IntN(20) // longer than the 64-token query limit
	}
	for i := 0; i < nw; i++ {
		q.WriteByte(' ')
		q.WriteString(d.words[rng.IntN(len(d.words))])
	}
	q.WriteString("?")
	qa.Question = q.String()

	na := 1 + rng.IntN(3)
	first := rng.IntN(len(d.words))
	for i := 0; i < na; i++ {
		start := first
		if i > 0 && rng.IntN(2) == 0 {
			start = rng.IntN(len(d.words))
		}
		n := 1 + rng.IntN(4)
		if start+n > len(d.words) {
			n = len(d.words) - start
		}
		qa.Answers = append(qa.Answers, d.answer(start, n))
	}
	return qa
}

// answer is the context text from word start through word start+n-1, with
// the original separators between them.
func (d *synthDoc) answer(start, n int) Answer {
	from := d.starts[start]
	last := start + n - 1
	to := d.starts[last] + utf8.RuneCountInString(d.words[last])
	runes := []rune(d.text)
	return Answer{Text: string(runes[from:to]), AnswerStart: from}
}
