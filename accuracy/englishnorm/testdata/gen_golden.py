"""Goldens for accuracy/englishnorm: openai/whisper's own
EnglishTextNormalizer run on hand-written and seeded random texts.

    /usr/bin/python3 gen_golden.py /path/to/openai-whisper > golden.json

The whisper package's __init__ needs torch, tiktoken and numba; only its
normalizers subpackage is loaded here (a stub package whose __path__ is the
checkout's whisper/ folder), which needs python3-regex and
python3-more-itertools (Debian). Inputs the normaliser raises on are
recorded with "error": the exception type."""
import json
import random
import sys
import types

pkg = types.ModuleType("whisper")
pkg.__path__ = [sys.argv[1] + "/whisper"]
sys.modules["whisper"] = pkg
from whisper.normalizers import EnglishTextNormalizer  # noqa: E402

normalizer = EnglishTextNormalizer()
spelling = list(normalizer.standardize_spellings.mapping.items())
numbers = normalizer.standardize_numbers

HAND = [
    "", " ", "Hello, World!", "Mr. Smith paid $20 million, twenty five dollars and seven cents",
    "I won't colour it, hmm", "one oh one", "two thousand three hundred and forty-five",
    "it's 3.5%", "the 1960s were fine", "double seven", "triple oh", "one and a half",
    "and a half", "five and a half thousand", "a hundred and twenty three", "twenty first",
    "the twenty-first of may", "nineth", "fifty percent", "fifty per cent", "per cent",
    "minus five degrees", "plus", "positive eight point five", "point five", "point",
    "three point one four one five nine", "1,000,000 dollars", "$5 and 7¢", "$5 ¢7",
    "£0.05", "€0.5", "$0.07 cents", "1s and 2s", "one", "ones", "I have 1 apple",
    "the 1st, 2nd, 3rd and 4th", "1 st", "2 nd place", "7 th", "ninety nine bottles",
    "nineteen eighty four", "one two three four", "twelve hundred", "a million and one",
    "two million five hundred thousand", "one decillion", "decillionth", "thousands",
    "hundreds of millions", "zero", "oh oh seven", "o", "twenty twenty", "3. 5", "3 point",
    "1.5 million", "1.5 millionth", "0 hundred", "zero thousand", "5 hundredths",
    "Dr. Who and St. John met Prof. X", "Gen. Lee, Col. Mustard & Lt. Dan Jr.",
    "y'all gonna wanna gotta", "i'ma imma woulda coulda shoulda ma'am", "ain't can't let's",
    "he'd been there, she's gone, we'd done it, it's got to be", "they're we'll you've I'm isn't",
    "[NOISE] hello <unk> (laughs) world", "(a) (b)", "uh um mhm mm mmm hmm", "umm uhh",
    "Café naïve Øresund straße Þór Łódź Æsir", "İstanbul", "ΟΔΥΣΣΕΥΣ", "Σ", "ΑΣ.",
    "colour flavour honour centre theatre analyse", "COLOUR", "colourful", "the travelling salesman",
    "½ ² ③ ٣ ۷", "٣ dollars", "it costs ٣.٥ dollars", "hello\u00a0world\u2003again\x1cend",
    "tab\tseparated\nlines\r\n", "multiple    spaces", "'quoted' words", "rock 'n' roll",
    "e.g. i.e. etc.", "3.14.15", "192.168.0.1", "version 2.0", "1,2,3", "a,b", "5%", "%5",
    "100 % sure", "$ 5", "$five", "five $", "pounds", "five pounds", "a pound of flesh",
    "euro", "ten euros", "one cent", "two cents", "one dollar and one cent",
    "twenty dollars and fifty cents", "nine hundred and ninety nine thousand",
    "minus minus five", "negative", "the year two thousand and one", "two thousand one",
    "eleven twelve", "twenty one twenty two", "sixties", "the seventies", "sixtieth",
    "first second third", "a second", "one third", "two thirds", "fourth fifths",
    "one hundred and first", "hundredth", "thousandth", "millionths", "double", "triple five",
    "double trouble", "and", "and one", "one and", "ten and ten", "point point", "point 5",
    "5 point 5", "5 point five", "five point", "oh point five", "1960 s", "1960's",
    "25th", "x1", "a1b2c3", "3d", "mp3 player", "r2d2", "4x4", "—dash—", "semi;colon:",
    "email@example.com", "#hashtag", "under_score", "hy-phen-ated", "don't stop",
    "I can't won't shouldn't", "'s", "'", "''", "n't", "st", "mr", "mrs.", "sr.", "esq",
]

VOCAB = sorted(numbers.words) + [
    "5", "1.5", "007", "1,000", "3.", "$20", "£5", "€3", "¢7", "-4", "+2", "1st", "2nd",
    "1960s", "0", "100", "42", "3.14", "0.5", "$0.05", "£0.5", "99%", "2.0", "10,000",
    "a", "the", "of", "to", "mr", "dr.", "st.", "won't", "it's", "they'd", "i'm", "y'all",
    "hmm", "uh", "um", "(aside)", "[noise]", "<unk>", ",", ".", "!", "?", "'", "-", "$",
    "%", "£", "€", "¢", "café", "Øre", "Hello", "WORLD", "and a half", "per cent",
] + [k for k, _ in spelling[::40]]

LABELS = " abcdefghijklmnopqrstuvwxyz'0123456789$%+-"
LABEL_WORDS = sorted(numbers.words) + ["a", "the", "mr", "st", "won't", "it's", "i'm", "hmm",
    "um", "5", "20", "1960s", "$5", "5%", "-3", "+2", "1st", "colour", "centre", "o'clock",
    "rock'n'roll", "'", "''", "-", "$", "%", "+"] + [k for k, _ in spelling[::60] if all(c in LABELS for c in k)]

rng = random.Random(20250601)


def rand_text():
    n = rng.randint(1, 12)
    words = [rng.choice(VOCAB) for _ in range(n)]
    out = ""
    for w in words:
        out += w + rng.choice([" ", " ", " ", "  ", "", ", ", ". "])
    return out


def rand_label_text():
    if rng.random() < 0.3:
        return "".join(rng.choice(LABELS) for _ in range(rng.randint(1, 40)))
    return " ".join(rng.choice(LABEL_WORDS) for _ in range(rng.randint(1, 15)))


cases = [("hand", s) for s in HAND]
cases += [("random", rand_text()) for _ in range(1200)]
cases += [("labels", rand_label_text()) for _ in range(1000)]
cases += [("spelling", " ".join(k for k, _ in spelling[i:i + 7])) for i in range(0, len(spelling), 7)]

out = []
for kind, s in cases:
    rec = {"kind": kind, "in": s}
    try:
        rec["out"] = normalizer(s)
    except Exception as e:  # recorded: the Go port must fail too
        rec["error"] = type(e).__name__
    out.append(rec)
json.dump(out, sys.stdout, ensure_ascii=False, indent=0)
print()
