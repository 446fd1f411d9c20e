package cnndm

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// SynthConfig sizes a synthetic cnn_eval.json. Articles have between
// MinSentences and MaxSentences sentences, except every LongEvery-th one
// (1-based: records LongEvery-1, 2·LongEvery-1, …; 0 means none) which has
// LongSentences, enough to exceed GPT-J's 1919-token prompt limit and be
// truncated as the reference truncates.
type SynthConfig struct {
	Seed          uint64
	Records       int
	MinSentences  int
	MaxSentences  int
	LongEvery     int
	LongSentences int
}

// SmallSynth is the test fixture's shape: 8 articles, 2 of them long.
var SmallSynth = SynthConfig{Seed: 1, Records: 8, MinSentences: 6, MaxSentences: 30, LongEvery: 4, LongSentences: 110}

// Synth returns cfg.Records generated news articles in the cnn_eval.json
// record format: CNN-style "(CNN) -- " and Daily Mail-style "By . NAME .
// PUBLISHED: ..." openings, quotes, abbreviations ("Mr.", "U.S."),
// accented names, currency and other non-ASCII punctuation, and highlights
// of 2 to 4 sentences joined with " .\n" as the Hugging Face data set has
// them. Same config, same records.
func Synth(cfg SynthConfig) ([]Record, error) {
	if cfg.Records < 1 || cfg.MinSentences < 1 || cfg.MaxSentences < cfg.MinSentences || cfg.LongEvery < 0 || (cfg.LongEvery > 0 && cfg.LongSentences < 1) {
		return nil, fmt.Errorf("cnndm: bad synth config %+v", cfg)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x636e6e646d))
	recs := make([]Record, cfg.Records)
	for i := range recs {
		n := cfg.MinSentences + rng.IntN(cfg.MaxSentences-cfg.MinSentences+1)
		if cfg.LongEvery > 0 && (i+1)%cfg.LongEvery == 0 {
			n = cfg.LongSentences
		}
		recs[i] = synthRecord(rng, n)
	}
	return recs, nil
}

var (
	synthPeople = []string{"José Álvarez", "Zoë Müller", "Siobhán O'Neill", "François Lefèvre", "Chloé Dubois", "Mr. Björn Åberg",
		"Dr. Amara Okafor", "Lt. Col. James Whitaker", "Ms. Nguyễn Thị Lan", "Sen. Patricia Gómez", "Prof. Łukasz Wiśniewski", "Mrs. Hannah O'Brien"}
	synthPlaces = []string{"São Paulo", "Zürich", "Kraków", "the U.S. Capitol", "Reykjavík", "Málaga", "Düsseldorf", "New Orleans, Louisiana",
		"the U.K.", "Montréal", "Bogotá", "Cape Town"}
	synthOrgs = []string{"the Environmental Protection Agency", "Manchester United", "the Met Office", "NATO", "the World Health Organization",
		"Scotland Yard", "the Food & Drug Administration", "a Silicon Valley start-up", "the Crown Prosecution Service", "Real Madrid"}
	synthThings = []string{"the £20million deal", "a €3.5bn rescue package", "the 10-year-old's drawing", "a 45ft humpback whale",
		"the ¥1.2 trillion budget", "a rare 19th-century manuscript", "the 2,000-mile pipeline", "a $4.99 smartphone app", "the 72°F heatwave",
		"the 'unprecedented' flood warnings"}
	synthVerbs  = []string{"announced", "criticised", "unveiled", "defended", "rejected", "investigated", "celebrated", "questioned", "postponed", "praised"}
	synthAdverb = []string{"on Monday", "late on Tuesday night", "earlier this week", "last month", "in a statement on Friday", "at dawn on Sunday", "after a 3½-hour hearing"}
	synthQuotes = []string{"We are absolutely devastated", "This is not what we signed up for", "I never thought it would come to this",
		"It's a fantastic day for everyone involved", "Frankly, the numbers don't add up", "We'll keep fighting — whatever it takes",
		"Nobody saw this coming… nobody", "It was like something out of a film"}
)

func pick(rng *rand.Rand, s []string) string { return s[rng.IntN(len(s))] }

// synthSentence returns one news sentence.
func synthSentence(rng *rand.Rand) string {
	switch rng.IntN(6) {
	case 0:
		return fmt.Sprintf("%s %s %s %s.", pick(rng, synthPeople), pick(rng, synthVerbs), pick(rng, synthThings), pick(rng, synthAdverb))
	case 1:
		return fmt.Sprintf("“%s,” said %s, speaking in %s.", pick(rng, synthQuotes), pick(rng, synthPeople), pick(rng, synthPlaces))
	case 2:
		return fmt.Sprintf("Officials from %s %s the plan %s, saying it would cost at least %d.%d%% more than forecast.",
			pick(rng, synthOrgs), pick(rng, synthVerbs), pick(rng, synthAdverb), rng.IntN(40), rng.IntN(10))
	case 3:
		return fmt.Sprintf("The incident in %s — the third this year — left %d people injured; %d were taken to hospital.",
			pick(rng, synthPlaces), 2+rng.IntN(60), 1+rng.IntN(9))
	case 4:
		return fmt.Sprintf("Asked whether %s had been warned, %s replied: 'Not as far as I know.'", pick(rng, synthOrgs), pick(rng, synthPeople))
	default:
		return fmt.Sprintf("%s, 4%d, of %s, is expected to appear before magistrates on %d March (pictured, left) after %s %s %s.",
			pick(rng, synthPeople), rng.IntN(10), pick(rng, synthPlaces), 1+rng.IntN(28), pick(rng, synthOrgs), pick(rng, synthVerbs), pick(rng, synthThings))
	}
}

func synthRecord(rng *rand.Rand, sentences int) Record {
	var b strings.Builder
	if rng.IntN(2) == 0 {
		fmt.Fprintf(&b, "(CNN) -- ")
	} else {
		fmt.Fprintf(&b, "By . %s . PUBLISHED: . %02d:%02d EST, %d June 2013 . | . UPDATED: . %02d:%02d EST, %d June 2013 . ",
			strings.ToUpper(pick(rng, synthPeople)), rng.IntN(24), rng.IntN(60), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), 1+rng.IntN(28))
	}
	for i := range sentences {
		if i > 0 {
			if rng.IntN(5) == 0 {
				b.WriteString(" \n")
			}
			b.WriteByte(' ')
		}
		b.WriteString(synthSentence(rng))
	}
	nh := 2 + rng.IntN(3)
	hl := make([]string, nh)
	for i := range hl {
		s := synthSentence(rng)
		hl[i] = strings.TrimSuffix(s, ".") + " ."
	}
	return Record{Instruction: Instruction, Input: b.String(), Output: strings.Join(hl, "\n")}
}
