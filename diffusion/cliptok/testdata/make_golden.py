# Regenerates the CLIP tokenizer golden (clip_golden.json) and the part of
# CLIP's vocabulary it needs (clip_subset/vocab.json, merges.txt), with
# OpenAI's own tokenizer as the oracle.
#
# Usage: python3 make_golden.py CLIP_DIR CAPTIONS_TSV
#   CLIP_DIR      a folder holding simple_tokenizer.py and
#                 bpe_simple_vocab_16e6.txt.gz from github.com/openai/CLIP
#                 (clip/), importable with the regex module; ftfy may be a
#                 stub whose fix_text returns its argument (the texts below
#                 are plain text, which ftfy leaves as is)
#   CAPTIONS_TSV  the reference's captions_source.tsv
#
# The golden holds simple_tokenizer.encode(text) for the first 300 COCO
# captions of the reference's selection, SDXL's negative and warm-up
# prompts and some edge cases. The vocabulary subset keeps every merge
# that was a candidate (present in a word and ranked) at any step of
# those encodings, in the original order, so that merge ranks compare as
# in the full list; token ids are the real ones.
import csv
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
import simple_tokenizer as st  # noqa: E402

tok = st.SimpleTokenizer(os.path.join(sys.argv[1], "bpe_simple_vocab_16e6.txt.gz"))
with open(sys.argv[2], newline="") as f:
    caps = [r["caption"] for r in csv.DictReader(f, delimiter="\t")][:300]
texts = caps + [
    "normal quality, low quality, worst quality, low res, blurry, nsfw, nude",
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit",
    "a photo of a cat",
    "It's 2 o'clock: 12:45pm!! They're here, we'll see; I'd go, you've been.",
    "Fish &amp; chips   and\ttabs\nnewlines",
    "Caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u00fcber stra\u00dfe",
    "emoji \U0001F600 and symbols \u00a9 \u2122 \u20ac100",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    " ".join(["word"] * 90),
]

used = set()
orig_bpe = tok.bpe


def recording_bpe(token):
    word = tuple(token[:-1]) + (token[-1] + "</w>",)
    while len(word) > 1:
        pairs = st.get_pairs(word)
        for p in pairs:
            if p in tok.bpe_ranks:
                used.add(p)
        bigram = min(pairs, key=lambda p: tok.bpe_ranks.get(p, float("inf")))
        if bigram not in tok.bpe_ranks:
            break
        first, second = bigram
        new, i = [], 0
        while i < len(word):
            try:
                j = word.index(first, i)
                new.extend(word[i:j])
                i = j
            except ValueError:
                new.extend(word[i:])
                break
            if word[i] == first and i < len(word) - 1 and word[i + 1] == second:
                new.append(first + second)
                i += 2
            else:
                new.append(word[i])
                i += 1
        word = tuple(new)
    return orig_bpe(token)


tok.bpe = recording_bpe
tok.cache = {}
golden = [{"text": t, "ids": tok.encode(t)} for t in texts]
merges = sorted(used, key=lambda p: tok.bpe_ranks[p])
vocab = {}
for b in st.bytes_to_unicode().values():
    vocab[b] = tok.encoder[b]
    vocab[b + "</w>"] = tok.encoder[b + "</w>"]
for a, b in merges:
    vocab[a + b] = tok.encoder[a + b]
for s in ("<|startoftext|>", "<|endoftext|>", "!"):
    vocab[s] = tok.encoder[s]
os.makedirs("clip_subset", exist_ok=True)
with open("clip_subset/vocab.json", "w") as f:
    json.dump(vocab, f, ensure_ascii=False, sort_keys=True)
with open("clip_subset/merges.txt", "w") as f:
    f.write("#version: 0.2\n")
    for a, b in merges:
        f.write(a + " " + b + "\n")
with open("clip_golden.json", "w") as f:
    json.dump(golden, f, ensure_ascii=False, indent=0)
