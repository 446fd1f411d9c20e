"""Decode goldens for models/whisper: openai/whisper's tokenizer decode and
the reference SUT's label encoding, on seeded id sequences.

    /usr/bin/python3 gen_decode_golden.py /path/to/openai-whisper > decode.json

tiktoken is not in Debian; its decode is reproduced from its definition:
the mergeable ranks of whisper/assets/multilingual.tiktoken read as
get_encoding reads them (base64.b64decode of each token), the bytes of
the ids joined and decoded with bytes.decode("utf-8", "replace"); special
ids (50257 and above) are skipped, as vLLM's skip_special_tokens does.
The labels are reference_SUT.py's: text.lower().strip(), then the index
of each character among its 42 labels."""
import base64
import json
import random
import sys

path = sys.argv[1] + "/whisper/assets/multilingual.tiktoken"
ranks = {int(r): base64.b64decode(t) for t, r in (line.split() for line in open(path) if line)}
labels = [" ", *"abcdefghijklmnopqrstuvwxyz", "'", *"0123456789", "$", "%", "+", "-"]
rng = random.Random(20251101)
cases = [
    [50258, 50259, 50360, 50364, 50257],
    [50256, 50256],
    [220],
]
for n in range(300):
    k = rng.randint(1, 30)
    ids = [rng.randrange(50257) if rng.random() < 0.9 else rng.randrange(50257, 51866) for _ in range(k)]
    cases.append(ids)
# byte-level pieces: ids whose bytes are not valid UTF-8 alone
partial = [i for i, b in ranks.items() if b and b[0] >= 0x80 and not b.decode("utf-8", "ignore")][:200]
for n in range(100):
    cases.append([rng.choice(partial) for _ in range(rng.randint(1, 6))])
out = []
for ids in cases:
    text = b"".join(ranks[i] for i in ids if i < 50257).decode("utf-8", "replace")
    out.append({"ids": ids, "text": text,
                "labels": [labels.index(c) for c in text.lower().strip() if c in labels]})
json.dump(out, sys.stdout, ensure_ascii=False)
print()
