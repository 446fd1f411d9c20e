#!/usr/bin/env python3
"""Generates the BERT/SQuAD golden files from the MLPerf reference code.

Test tooling, not part of the product. It runs the reference's own Python
(fetched separately, never committed here):

  REF/create_squad_data.py   mlcommons/inference language/bert/
  REF/accuracy-squad.py      mlcommons/inference language/bert/
  REF/evaluate_v1.1.py       mlcommons/inference language/bert/
  REF/tokenization.py        NVIDIA/DeepLearningExamples at b03375bd6c2c,
                             PyTorch/LanguageModeling/BERT/tokenization.py
                             (the submodule accuracy-squad.py imports)

The feature builder of squad_QSL.py uses transformers.BertTokenizer 2.4.0
(the version the reference Dockerfile pins), which is not installed here.
HFBertTokenizer below reproduces what that class does when it is built as
BertTokenizer(vocab_file): split the text around the special tokens (exact
case), then the BasicTokenizer (never_split = the special tokens) and the
WordpieceTokenizer (max 100 characters per word) of tokenization.py.

Usage:
  cd models/bert/testdata && python3 gen_goldens.py --ref REF \
      --vocab ../../../.deps/bert/vocab.txt \
      --squad ../../../datasets/squad/testdata/synth_small.json \
      --out . --acc-out ../../../accuracy/squadeval/testdata
"""

import argparse
import collections
import importlib.util
import json
import random
import struct
import sys
import types


def load_reference(ref):
    sys.path.insert(0, ref)
    # tokenization.py imports file_utils.cached_path (downloads); unused here.
    fu = types.ModuleType("file_utils")
    fu.cached_path = lambda p, cache_dir=None: p
    sys.modules["file_utils"] = fu
    import tokenization  # noqa: E402
    import create_squad_data  # noqa: E402

    # accuracy-squad.py: stub the modules it imports at the top but that
    # write_predictions/get_final_text do not use.
    np = types.ModuleType("numpy")
    for name in ["int8", "int16", "int32", "int64", "float16", "float32", "float64"]:
        setattr(np, name, name)
    sys.modules["numpy"] = np
    pr = types.ModuleType("pkg_resources")
    pr.working_set = []
    sys.modules["pkg_resources"] = pr
    tr = types.ModuleType("transformers")
    tr.BertTokenizer = None
    sys.modules["transformers"] = tr
    spec = importlib.util.spec_from_file_location("accuracy_squad", ref + "/accuracy-squad.py")
    acc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(acc)
    spec = importlib.util.spec_from_file_location("evaluate_v11", ref + "/evaluate_v1.1.py")
    ev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ev)
    return tokenization, create_squad_data, acc, ev


SPECIALS = ["[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"]


class HFBertTokenizer:
    """transformers 2.4.0 BertTokenizer(vocab_file) (see the module doc)."""

    def __init__(self, tokenization, vocab_file):
        self.vocab = collections.OrderedDict()
        with open(vocab_file, "r", encoding="utf-8") as f:
            for i, tok in enumerate(f.readlines()):
                self.vocab[tok.rstrip("\n")] = i
        self.basic = tokenization.BasicTokenizer(do_lower_case=True, never_split=tuple(SPECIALS))
        self.wordpiece = tokenization.WordpieceTokenizer(vocab=self.vocab, unk_token="[UNK]", max_input_chars_per_word=100)

    def _tokenize(self, text):
        out = []
        for tok in self.basic.tokenize(text):
            out.extend(self.wordpiece.tokenize(tok))
        return out

    def tokenize(self, text):
        def split_on_token(tok, text):
            result = []
            parts = text.split(tok)
            for i, sub in enumerate(parts):
                sub = sub.strip()
                if i == 0 and not sub:
                    result.append(tok)
                elif i == len(parts) - 1:
                    if sub:
                        result.append(sub)
                else:
                    if sub:
                        result.append(sub)
                    result.append(tok)
            return result

        if not text.strip():
            return []
        texts = [text]
        for tok in SPECIALS:
            nxt = []
            for sub in texts:
                nxt.extend([sub] if sub in SPECIALS else split_on_token(tok, sub))
            texts = nxt
        out = []
        for sub in texts:
            out.extend([sub] if sub in SPECIALS else self._tokenize(sub))
        return out

    def convert_tokens_to_ids(self, tokens):
        return [self.vocab.get(t, self.vocab["[UNK]"]) for t in tokens]


TRICKY = [
    "Hello, World!", "unaffable", "Steve Smith's (1895-1943).", "ΟΔΟΣ", "ΟΔΟΣ.", "Σ", "ΑΣ.Β", "ΣΑΣ",
    "ΣΟΦΊΑ", "aΣ'b", "Σίσυφος", "İstanbul", "straße", "ﬁne", "ﬀ", "e\u0301te\u0301", "\u0301", "x\u00ady",
    "zero\u200bwidth", "\ufeffbom", "a\ufffdb", "a\x00b", "a\x1cb\x1dc", "a\u2028b\u2029c", "tab\there\nnew\rline",
    "nb\u00a0sp", "narrow\u202fnb", "ideo\u3000space", "[SEP]", "[sep]", "a[SEP]b", "[CLS] [MASK]", " [UNK]x",
    "[[SEP]]", "x[PAD]", "[MASK][MASK]", "a" * 100, "a" * 101, "ab" * 60, "é" * 101,
    "北京大学", "東京都", "日本語のテキスト", "한국어", "ภาษาไทย", "العربية", "שָׁלוֹם", "हिन्दी", "👩‍👩‍👧",
    "🇺🇸", "☺︎", "\ue000private", "un\u0378assigned", "Ⅻ", "½", "²", "㎏", "Ångström", "Œdipus", "Ñandú",
    "crème-brûlée", "Dvořák", "Łódź", "ʻOkina", "«guillemets»", "¿Qué? ¡Sí!", "A&M <b> C++ C# .NET @user #tag",
    "~tilde ^caret `tick` {brace} |pipe|", "“quoted” ‘single’", "rock'n'roll", "U.S. e.g. $1,000 50% 3.14",
    "co-operate — …", "", "   ", "\u00a0", "Москва", "naïve café Zürich São Paulo", "Ελλάδα",
    "What is the population of Ελλάδα in 1895?",
    "The quick brown fox jumps over the lazy dog" * 3,
]

FINAL_TEXT = [
    ("steve smith", "Steve Smith's"),
    ("1895", "(1895-1943)."),
    ("japanese", "Japanese"),
    ("cafe", "café"),
    ("naive cafe", "naïve café!"),
    ("ete", "e\u0301te\u0301"),          # decomposed accents: lengths differ -> orig
    ("fine", "ﬁne"),                      # not found -> orig
    ("not there", "Something else"),      # not found -> orig
    ("b", "a\u00a0b"),                    # nbsp inside the word: lengths differ
    ("istanbul", "İstanbul"),
    ("οδος", "ΟΔΟΣ."),
    ("[sep]", "x [SEP] y"),
    ("[SEP]", "x [SEP] y"),
    ("sep", "x[SEP]y"),
    ("", "anything"),                     # empty prediction
    ("a", ""),                            # empty original
    ("1 , 000", "$1,000"),
    ("co - operate", "co-operate"),
    ("北 京", "北京大学"),
    ("zerowidth", "zero\u200bwidth"),     # removed control char: lengths differ
    ("the", "the the the"),               # first occurrence
    ("ab", "a b"),                        # spans a space in tok text
]


def write_json(path, obj, indent=1):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=indent)
        f.write("\n")


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", required=True)
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--squad", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--acc-out", required=True)
    ap.add_argument("--features-only", action="store_true", help="write only features to --out/FILE.features.json")
    args = ap.parse_args()

    tokenization, csd, acc, ev = load_reference(args.ref)
    tok = HFBertTokenizer(tokenization, args.vocab)

    examples = csd.read_squad_examples(input_file=args.squad, is_training=False, version_2_with_negative=False)
    features = []
    csd.convert_examples_to_features(examples=examples, tokenizer=tok, max_seq_length=384, doc_stride=128,
                                     max_query_length=64, is_training=False, output_fn=features.append)

    feats_json = []
    for f in features:
        n = sum(f.input_mask)
        feats_json.append({
            "unique_id": f.unique_id,
            "example_index": f.example_index,
            "doc_span_index": f.doc_span_index,
            "tokens": f.tokens,
            "token_to_orig_map": [[k, v] for k, v in sorted(f.token_to_orig_map.items())],
            "token_is_max_context": [[k, v] for k, v in sorted(f.token_is_max_context.items())],
            "input_ids": f.input_ids[:n],
            "input_mask": "".join(str(x) for x in f.input_mask),
            "segment_ids": "".join(str(x) for x in f.segment_ids),
        })
    if args.features_only:
        write_json(args.out, {"examples": len(examples), "features": feats_json}, indent=None)
        return

    write_json(args.out + "/features_golden.json", {"examples": len(examples), "features": feats_json}, indent=None)

    # Tokenizer goldens: full tokenizer (ids) and the BasicTokenizer alone.
    write_json(args.out + "/tokenize_golden.json", [
        {"text": t, "tokens": tok.tokenize(t), "ids": tok.convert_tokens_to_ids(tok.tokenize(t)),
         "basic": tokenization.BasicTokenizer(do_lower_case=True).tokenize(t)}
        for t in TRICKY
    ])

    write_json(args.out + "/final_text_golden.json", [
        {"pred": p, "orig": o, "out": acc.get_final_text(p, o, True)} for p, o in FINAL_TEXT
    ])

    # Post-processing: deterministic logits per feature, some boosted on the
    # ground-truth span, some on invalid positions, some tied, some missing.
    with open(args.squad, encoding="utf-8") as fh:
        dataset = json.load(fh)["data"]
    answers = {}
    for art in dataset:
        for par in art["paragraphs"]:
            # char -> word map of read_squad_examples
            c2w, nwords, prev_ws = [], 0, True
            for c in par["context"]:
                if c in " \t\r\n" or ord(c) == 0x202F:
                    prev_ws = True
                else:
                    if prev_ws:
                        nwords += 1
                    prev_ws = False
                c2w.append(nwords - 1)
            for qa in par["qas"]:
                a = qa["answers"][0]
                answers[qa["id"]] = (c2w[a["answer_start"]], c2w[a["answer_start"] + len(a["text"]) - 1])

    rng = random.Random(20261122)
    entries = []
    results = []
    for idx, f in enumerate(features):
        ex = examples[f.example_index]
        mode = rng.choice(["noise", "answer", "answer", "invalid", "ties", "flat", "missing", "long"])
        if mode == "missing":
            continue
        n = 384
        if mode == "flat":
            start = [0.0] * n
            end = [0.0] * n
        elif mode == "ties":
            start = [float(rng.randint(-2, 2)) for _ in range(n)]
            end = [float(rng.randint(-2, 2)) for _ in range(n)]
        else:
            start = [f32(rng.gauss(0, 1)) for _ in range(n)]
            end = [f32(rng.gauss(0, 1)) for _ in range(n)]
        doc_pos = sorted(f.token_to_orig_map)
        if mode == "answer":
            ws, we = answers[ex.qas_id]
            sp = [p for p in doc_pos if f.token_to_orig_map[p] == ws]
            ep = [p for p in doc_pos if f.token_to_orig_map[p] == we]
            if sp and ep:
                start[sp[0]] += 9.5
                end[ep[-1]] += 9.25
        elif mode == "invalid":
            start[0] += 20  # [CLS]
            end[1] += 20    # query
            if len(f.tokens) < 384:
                start[len(f.tokens)] += 15  # padding
            end[doc_pos[0]] += 6
            start[doc_pos[-1]] += 6  # end before start
        elif mode == "long" and len(doc_pos) > 40:
            start[doc_pos[0]] += 12
            end[doc_pos[35]] += 12  # longer than 30
            end[doc_pos[3]] += 4
        start = [f32(x) for x in start]
        end = [f32(x) for x in end]
        trunc = n if rng.random() < 0.9 else len(f.tokens)  # short responses get padded
        data = b"".join(struct.pack("<ff", start[i], end[i]) for i in range(trunc))
        entries.append({"qsl_idx": idx, "data": data.hex().upper()})
        pad_s = [-10000.0] * n
        pad_e = [-10000.0] * n
        pad_s[:trunc] = start[:trunc]
        pad_e[:trunc] = end[:trunc]
        results.append(acc.RawResult(unique_id=f.unique_id, start_logits=pad_s, end_logits=pad_e))

    pred_file = "/tmp/bert_golden_predictions.json"
    acc.write_predictions(examples, features, results, 20, 30, True, pred_file)
    with open(pred_file, encoding="utf-8") as fh:
        predictions = json.load(fh)
    score = json.dumps(ev.evaluate(dataset, predictions))
    write_json(args.out + "/postprocess_golden.json", {"log": entries, "predictions": predictions, "score": score})

    # Scorer goldens: normalisation, EM/F1 pairs, and a whole evaluation.
    norm_cases = [
        "The Cat", "a an the", "An apple a day", "theatre", "the_end", "ΟΔΟΣ", "ΣΑΣ Σ", "İstanbul", "Café!!",
        "U.S.A.", "«the» end", "the\u00a0end", "x\u2028the\u2029y", "\x1cthe\x1fa", "the-end", "l'a", "THE",
        "ånd the ånswer", "1,000", "  spaced   out  ", "", "the", "(a)", "é the", "e\u0301 the", "the\u0301",
        "日本the", "the日本", "²the", "the½", "Ⅻ the", "tab\tthe\nend", "don't", "rock'n'roll", "the“quote”",
    ]
    pairs = [
        ("the cat sat", "a cat sat"), ("Steve Smith", "steve smith's"), ("1895", "1895–1943"),
        ("cat cat cat", "cat"), ("cat", "cat cat dog"), ("", "cat"), ("the", "a"), ("ΟΔΟΣ", "οδος"),
        ("Denver Broncos", "The Denver Broncos!"), ("x y z", "z y x"), ("café", "cafe"), ("50%", "50"),
    ]
    em_preds = {}
    qids = []
    for art in dataset:
        for par in art["paragraphs"]:
            for qa in par["qas"]:
                qids.append(qa["id"])
    for i, q in enumerate(qids):
        if i % 5 == 4:
            continue  # unanswered
        em_preds[q] = predictions[q] if i % 2 else dataset_answer(dataset, q, i)
    write_json(args.acc_out + "/squad_golden.json", {
        "normalize": [{"s": s, "norm": ev.normalize_answer(s)} for s in norm_cases],
        "pairs": [{"pred": p, "gt": g, "em": bool(ev.exact_match_score(p, g)), "f1": repr(float(ev.f1_score(p, g)))}
                  for p, g in pairs],
        "predictions": em_preds,
        "score": json.dumps(ev.evaluate(dataset, em_preds)),
    })


def dataset_answer(dataset, qid, i):
    for art in dataset:
        for par in art["paragraphs"]:
            for qa in par["qas"]:
                if qa["id"] == qid:
                    t = qa["answers"][-1]["text"]
                    return t if i % 3 else t + " extra words"
    return ""


if __name__ == "__main__":
    main()
