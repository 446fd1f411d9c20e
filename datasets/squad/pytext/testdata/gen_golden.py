#!/usr/bin/env python3
"""Writes golden.json for the pytext tests from the running CPython.

Test tooling: `python3 gen_golden.py > golden.json` (Python 3.11 here,
Unicode 14.0). Character classes are stored as code point ranges over the
code points this Python's Unicode database assigns; tests skip the others.
"""
import json
import re
import struct
import sys
import unicodedata


def ranges(pred):
    out, start = [], None
    for cp in range(0x110000):
        ok = pred(cp)
        if ok and start is None:
            start = cp
        elif not ok and start is not None:
            out.append([start, cp - 1])
            start = None
    if start is not None:
        out.append([start, 0x10FFFF])
    return out


def cat(cp):
    return unicodedata.category(chr(cp))


word = re.compile(r"\w")
strings = [
    "", "ABC", "ΟΔΟΣ", "ΟΔΟΣ.", "ΣΑΣ Σ", "Σ", "aΣ", "aΣb", "aΣ'", "aΣ'b", "a\u0301Σ", "aΣ\u0301", "A.Σ", "1Σ",
    "İstanbul", "İ", "ǅ", "ẞ", "ß", "Ǆ", "ΣΣ", " Σ ", "x\u00adΣ", "Ⅻ", "Ⓐ", "ｶ", "\x1c a \x1f b\x85c\u2028d\u3000",
    "  tabs\t\nand\r\nnewlines  ", "\u00a0nbsp\u00a0", "\u200bzw\u200b", "\ufeff", "МОСКВА", "ǈ", "ΐ", "Ω",
]
floats = [0.0, -0.0, 1.0, 100.0, 25.0, 83.68022705771051, 90.874 * 0.99, 90.874 * 0.999, 1e16, 1e15, 123456789012345678.0,
          0.0001, 0.00001, 1.5e-7, 1 / 3, 2 / 3 * 100, 5e-324, 1.7976931348623157e308, 9999999999999998.0, 0.1 + 0.2]
json.dump({
    "python": sys.version.split()[0],
    "unicode": unicodedata.unidata_version,
    "unassigned": ranges(lambda cp: cat(cp) == "Cn"),
    "space": ranges(lambda cp: chr(cp).isspace()),
    "word": ranges(lambda cp: word.match(chr(cp)) is not None),
    "control": ranges(lambda cp: cat(cp).startswith("C")),
    "punct": ranges(lambda cp: cat(cp).startswith("P")),
    "zs": ranges(lambda cp: cat(cp) == "Zs"),
    "mn": ranges(lambda cp: cat(cp) == "Mn"),
    "lower": {str(cp): chr(cp).lower() for cp in range(0x110000)
              if not 0xD800 <= cp <= 0xDFFF and cat(cp) != "Cn" and chr(cp).lower() != chr(cp)},
    "strings": [{"s": s, "lower": s.lower(), "split": s.split(), "strip": s.strip()} for s in strings],
    "floats": [{"bits": struct.unpack("<Q", struct.pack("<d", f))[0], "repr": repr(f)} for f in floats],
}, sys.stdout, ensure_ascii=True)
