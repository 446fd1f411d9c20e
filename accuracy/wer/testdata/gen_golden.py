"""Goldens for accuracy/wer from the MLPerf reference itself.

    /usr/bin/python3 gen_golden.py /path/to/openai-whisper /path/to/mlcommons-inference/speech2text

1. alignment.json: helpers.compute_wer_with_concatenation,
   get_expanded_wordlist and legacy_helpers.__levenshtein on seeded random
   word lists (small vocabularies, so that splits and joins occur).
2. sut.json: reference_SUT.py's text → labels step (lower, strip, keep
   the 42 labels) on recorded Whisper-style hypotheses.
3. For each case folder under cases/: a repacked-style manifest
   (dev-all-repack.json, one clip over 30 s that the Manifest filters
   out), mlperf_log_accuracy.json of those hypotheses as int64 labels in
   hex, and expected.txt, the line accuracy_eval.py prints on them (run as
   a script; whisper.normalizers loaded from the checkout without the
   package's torch and tiktoken imports)."""
import array
import contextlib
import io
import json
import os
import random
import runpy
import sys
import types

whisper_dir, s2t = sys.argv[1], sys.argv[2]
pkg = types.ModuleType("whisper")
pkg.__path__ = [whisper_dir + "/whisper"]
sys.modules["whisper"] = pkg
sys.path.insert(0, s2t)
import helpers  # noqa: E402
import legacy_helpers  # noqa: E402

lev = getattr(legacy_helpers, "__levenshtein")
rng = random.Random(20250602)

# 1. alignment
VOCAB = ["a", "b", "ab", "c", "bc", "abc", "the", "day", "every", "everyday", "to", "day",
         "today", "any", "one", "anyone", "x"]
align = []


def joined(words):
    """words with random neighbours joined (up to three), or split back."""
    out, i = [], 0
    while i < len(words):
        k = rng.choice([1, 1, 2, 3])
        out.append("".join(words[i:i + k]))
        i += k
    if rng.random() < 0.3 and out:
        out[rng.randrange(len(out))] = rng.choice(VOCAB)
    return out


for n in range(600):
    r = [rng.choice(VOCAB) for _ in range(rng.randint(0, 9))]
    if n % 2:
        h = [rng.choice(VOCAB) for _ in range(rng.randint(0, 9))]
    elif n % 4:
        h = joined(r)
    else:
        h, r = r, joined(r)
    d, w = helpers.compute_wer_with_concatenation(h, r)
    align.append({"hyp": h, "ref": r, "distance": d, "words": w, "levenshtein": lev(h, r),
                  "expanded": helpers.get_expanded_wordlist(list(h), r)})
with open("alignment.json", "w") as f:
    json.dump(align, f, indent=0)

# 2. the SUT's mapping, on recorded hypotheses
labels = [" ", *"abcdefghijklmnopqrstuvwxyz", "'", *"0123456789", "$", "%", "+", "-"]
labels_dict = {c: i for i, c in enumerate(labels)}


def sut_labels(text):
    # reference_SUT.py: result.lower().strip(), then the labels it knows
    return [labels_dict[s] for s in text.lower().strip() if s in labels_dict]


REFS = [
    "he hoped there would be stew for dinner turnips and carrots and bruised potatoes",
    "mister quilter is the apostle of the middle classes and we are glad to welcome his gospel",
    "nor is mister quilter's manner less interesting than his matter",
    "he tells us that at this festive season of the year with christmas and roast beef looming before us",
    "the colour of the sky was grey and the harbour lay quiet",
    "she paid twenty five dollars for one hundred and twenty three apples",
    "everyday he walks to the station at seven o'clock",
    "i won't be there until the twenty first of may",
    "uh the meeting is at three thirty",
    "it was nineteen eighty four and the world was different",
    "any one of them could have done it",
    "the theatre in the centre of town",
]
HYPS = [
    " He hoped there would be stew for dinner, turnips and carrots and bruised potatoes.",
    " Mr. Quilter is the apostle of the middle classes, and we are glad to welcome his gospel.",
    " Nor is Mr. Quilter's manner less interesting than his matter.",
    " He tells us that at this festive season of the year, with Christmas and roast beef looming before us,",
    " The color of the sky was gray and the harbor lay quiet.",
    " She paid $25 for 123 apples.",
    " Every day he walks to the station at 7 o'clock.",
    " I will not be there until the 21st of May.",
    " The meeting is at 3.30.",
    " It was 1984, and the world was different.",
    " Anyone of them could have done it!",
    " The theater in the center of town — naïve café.",
]
with open("sut.json", "w") as f:
    json.dump([{"text": h, "labels": sut_labels(h)} for h in HYPS + ["", "   ", " ÉCOLE Straße 5½ %", "\x1c hello \u3000"]], f, indent=0, ensure_ascii=False)


def write_case(name, refs, hyps, entries, long_first=True):
    d = os.path.join("cases", name)
    os.makedirs(d, exist_ok=True)
    manifest = []
    if long_first:  # a clip over 30 s: the Manifest drops it, indices shift
        manifest.append({"transcript": "too long to keep", "files": [{"fname": "dev-all-repack/long_0.wav", "speed": 1, "duration": 31.0}], "original_duration": 31.0, "original_num_samples": 496000})
    for i, r in enumerate(refs):
        manifest.append({"transcript": r, "files": [{"channels": 1, "sample_rate": 16000.0, "bitdepth": 16, "bitrate": 256000.0, "duration": 10.0, "num_samples": 160000, "encoding": "Signed Integer PCM", "silent": False, "fname": f"dev-all-repack/s_{i}.wav", "speed": 1}], "original_duration": 10.0, "original_num_samples": 160000})
    with open(os.path.join(d, "dev-all-repack.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    log = []
    for seq, (qsl, text) in enumerate(entries):
        log.append({"seq_id": seq, "qsl_idx": qsl, "data": array.array("q", sut_labels(text)).tobytes().hex().upper()})
    with open(os.path.join(d, "mlperf_log_accuracy.json"), "w") as f:
        json.dump(log, f, indent=4)
    argv = sys.argv
    sys.argv = ["accuracy_eval.py", "--log_dir", d, "--dataset_dir", d, "--manifest", os.path.join(d, "dev-all-repack.json")]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        runpy.run_path(os.path.join(s2t, "accuracy_eval.py"), run_name="__main__")
    sys.argv = argv
    with open(os.path.join(d, "expected.txt"), "w") as f:
        f.write(buf.getvalue())


write_case("recorded", REFS, HYPS, list(enumerate(HYPS)))
write_case("perfect", REFS[:3], REFS[:3], [(2, REFS[2]), (0, REFS[0]), (1, REFS[1])])
# out of order, one sample twice, one missing, an empty response
write_case("repeated", REFS, HYPS, [(3, HYPS[3]), (1, HYPS[1]), (3, HYPS[3]), (0, ""), (5, HYPS[5])], long_first=False)
