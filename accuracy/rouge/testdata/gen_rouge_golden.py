#!/usr/bin/env python3
"""Writes rouge_golden.json: expected outputs of the reference tools for
accuracy/rouge/*.go.

  NLTK_DATA=DIR PYTHONPATH=ROUGE_SRC python3 gen_rouge_golden.py > rouge_golden.json

- NLTK 3.8 from Debian (apt-get install python3-nltk python3-numpy
  python3-six python3-absl); DIR holds tokenizers/punkt/PY3/english.pickle
  from nltk_data (what nltk.sent_tokenize loads).
- ROUGE_SRC holds the package rouge_score (rouge_scorer.py, scoring.py,
  tokenize.py, tokenizers.py of google-research/rouge, rouge-score 0.1.2;
  its imports say `rouge_score`), run from a scratch folder, not committed.

It computes, for fixed texts: nltk.sent_tokenize splits, PorterStemmer
stems, rouge_score tokens, per-pair rouge1/2/L/Lsum precision, recall and
F-measure after the MLPerf postprocess_text (strip, sent_tokenize,
"\\n".join), and the dicts that language/gpt-j/evaluation.py and
language/llama2-70b/evaluate-accuracy.py print for them. Test tooling only.
"""
import json
import random

import nltk
import numpy as np
from nltk.stem import porter
from rouge_score import rouge_scorer, tokenize

SENT_TEXTS = [
    "Mr. Smith went to Washington. He arrived at 5 p.m. on Monday! Really? Yes.",
    "The U.S. economy grew 2.5% in Q3. Analysts at J.P. Morgan expected more.",
    "He said \"Stop.\" Then he left. (She stayed.) The end.",
    "Wait... what happened? I don't know... Maybe nothing.",
    "Dr. A. B. Clark met Gen. Petraeus in Jan. 2010. They talked.",
    "It costs $3.50. That's cheap. Isn't it?!? Sure.",
    "First line.\nSecond line without period\nThird line. Fourth sentence.",
    "Ellipsis . . . in the middle. And more.",
    "Numbers like 1. and 2. are tricky. 3. Is this a sentence?",
    "The company (Acme Inc.) reported profits. Shares rose 5 pct. in trading.",
    "She lives on St. James St. near the U.K. border. Nice place.",
    "'Quoted sentence.' Another one. \"Double quoted!\" he said.",
    "No terminal punctuation here",
    "",
    "   leading and trailing spaces.   Second.   ",
    "Unicode: Café au lait. Ünïcödé text! 東京に行きました。 Done.",
    "Multiple   spaces.  Two spaces after period.   Three.",
    "He scored 3-0 vs. the Lakers. The crowd cheered -- loudly. End.",
    "A sentence.Another without space. Third one.",
    "Is it e.g. this or i.e. that? Etc. etc. Fine.",
    "The vote was 52-48. Sen. McCain voted no. Rep. Pelosi disagreed.",
    "(CNN) -- A man was arrested Tuesday. Police said he fled.\n\nA new paragraph starts here. It ends.",
    "Oct. 5 was the date. Nov. 6 the next. Dec. is cold.",
    "Tabs\tand\tnewlines.\tHere.\nNext line!",
    "What?! No way!! Really!!! OK.",
    "He works at the U.N. He is happy.",
    "The ratio is 3.14. Pi is irrational.",
    "Items: a) one. b) two. c) three.",
    "He said: 'I'm leaving.' She replied: 'Fine.' Then silence.",
    "U.S.-based firms grew. E.U.-wide rules apply.",
]

PORTER_WORDS = """caresses ponies ties caress cats feed agreed plastered bled motoring sing
conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky
relational conditional rational valenci hesitanci digitizer conformabli radicalli
differentli vileli analogousli vietnamization predication operator feudalism decisiveness
hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize
electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic
adjustable defensible irritant replacement adjustment dependent adoption homologou
communism activate angulariti homologous effective bowdlerize probate rate cease controll
roll dying lying tying news innings outings cannings howe proceed exceed succeed skies
generously analogi analogies fulli enjoy spy dies died lied flies tried spied cries
agreement generalization universities running runner ran connection connected
connecting connections argued arguing argues argument syzygy toy yoyo yelling eyed
aaaa aaab abcd zzzz 1234 2019s 3rds covid19 mp3s ieee yyyy eed ing ied ies sses
hop hopped hoping hope hoped filled fizzing dressing assess agrees feeds lies
mississippi ability possibly probably stability sensibility responsibilities
""".split()

PAIRS = [
    ("The quick brown fox jumps over the lazy dog.", "The quick brown dog jumps on the log."),
    ("", "A reference with words."),
    ("A prediction with words.", ""),
    ("", ""),
    ("!!! ??? ...", "Only punctuation here?"),
    ("Police arrested a man on Tuesday. He was charged with theft. The victim was unharmed.",
     "A man was arrested Tuesday on theft charges.\nPolice say the victim was not hurt."),
    ("Mr. Smith went to Washington. He arrived at 5 p.m. on Monday!",
     "Smith arrived in Washington, D.C., on Monday at 5 p.m. local time."),
    ("The U.S. economy grew 2.5% in the third quarter, beating forecasts. Analysts said consumer spending drove growth.",
     "U.S. GDP grew 2.5 percent in Q3 .\nConsumer spending was the main driver ."),
    ("Caf\u00e9 owners in Z\u00fcrich say \u0130stanbul visitors love the \u212aelvin-themed menu. Prices rose 10%.",
     "Zurich cafe owners report more visitors from Istanbul; menu prices up 10 percent."),
    ("running runs ran runner connection connected connecting", "run running runner connect connections"),
    ("the the the the the", "the cat the dog the"),
    ("a b c d e f g", "g f e d c b a"),
    ("Generalization of universities' abilities is probably possible.", "Universities generalize; ability probable."),
    ("He said \"Stop.\" Then he left. (She stayed.)", "He told them to stop and left, but she stayed."),
    ("Wait... what happened? I don't know... Maybe nothing.", "Nobody knows what happened."),
    ("Line one\nLine two\n\nLine three", "Line one. Line two. Line three."),
    ("Dr. A. B. Clark met Gen. Petraeus in Jan. 2010.", "Clark and Petraeus met in January 2010."),
    ("   spaced    out   text   ", "spaced out text"),
    ("\u6771\u4eac \u5927\u962a only cjk and words", "words only"),
    ("Numbers 1, 2, 3 and 4.5 and 1,000", "numbers 1 2 3 4 5 1 000"),
]


def rand_text(rng, vocab, n_words):
    words = []
    for i in range(n_words):
        w = rng.choice(vocab)
        if i == 0 or words[-1].endswith(('.', '!', '?')):
            w = w.capitalize()
        r = rng.random()
        if r < 0.08:
            w += '.'
        elif r < 0.12:
            w += ','
        elif r < 0.13:
            w += '?'
        elif r < 0.14:
            w = '"' + w + '"'
        elif r < 0.15:
            w += "'s"
        words.append(w)
    return ' '.join(words) + '.'


def main():
    rng = random.Random(20240601)
    vocab = PORTER_WORDS + ("police said the man was arrested on monday after a chase "
                            "through downtown streets officials say the economy grew in "
                            "u.s. mr. dr. st. inc. jan. oct. p.m. a.m. 5 10 2019 percent").split()
    pairs = list(PAIRS)
    for _ in range(40):
        pairs.append((rand_text(rng, vocab, rng.randint(5, 80)), rand_text(rng, vocab, rng.randint(5, 80))))

    stemmer = porter.PorterStemmer()
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)

    def post(s):  # language/gpt-j/evaluation.py postprocess_text
        return "\n".join(nltk.sent_tokenize(s.strip()))

    out = {"sentences": [], "stems": {}, "tokens": [], "pairs": []}
    for t in SENT_TEXTS:
        out["sentences"].append({"text": t, "sents": nltk.sent_tokenize(t)})
    words = set(PORTER_WORDS)
    for p, t in pairs:
        words.update(tokenize.tokenize(p, None))
        words.update(tokenize.tokenize(t, None))
    for w in sorted(words):
        out["stems"][w] = stemmer.stem(w)
    for t in SENT_TEXTS + [p for p, _ in PAIRS]:
        out["tokens"].append({"text": t, "tokens": tokenize.tokenize(t, stemmer)})

    preds, targets, counts = [], [], []
    for i, (p, t) in enumerate(pairs):
        pp, tt = post(p), post(t)
        s = scorer.score(tt, pp)
        out["pairs"].append({
            "prediction": p, "target": t, "post_prediction": pp, "post_target": tt,
            "scores": {k: [v.precision, v.recall, v.fmeasure] for k, v in s.items()},
        })
        preds.append(pp)
        targets.append(tt)
        counts.append(len(p.split()) + 1)

    # evaluate.load("rouge").compute(..., use_stemmer=True, use_aggregator=False)
    scores = [scorer.score(r, p) for r, p in zip(targets, preds)]
    result = {k: [s[k].fmeasure for s in scores] for k in scores[0]}
    gptj = {k: f"{round(np.mean(v) * 100, 4)}" for k, v in result.items()}
    gptj["gen_len"] = np.sum([len(p) for p in preds])
    gptj["gen_num"] = len(preds)
    llama = {k: round(np.mean(v) * 100, 4) for k, v in result.items()}
    gen_tok_len = sum(counts)
    llama.update({"gen_len": np.sum([len(p) for p in preds]), "gen_num": len(preds),
                  "gen_tok_len": gen_tok_len, "tokens_per_sample": round(gen_tok_len / len(preds), 1)})
    out["token_counts"] = counts
    out["gptj_print"] = str(gptj)
    out["llama2_print"] = str(llama)
    print(json.dumps(out, ensure_ascii=False, indent=0))


if __name__ == "__main__":
    main()
