#!/usr/bin/env python3
"""Writes ../tables.json, the macro, environment and specials tables of
pylatexenc 2.10's default contexts (latexwalker's argument specifications,
latex2text's replacements), which package latextext embeds. pylatexenc is
MIT licensed (../LICENSE.pylatexenc). Run with Debian's python3-pylatexenc:

  python3 accuracy/latextext/testdata/make_tables.py
"""
import json
import os

import pylatexenc
from pylatexenc import latex2text, latexwalker, macrospec

HERE = os.path.dirname(os.path.abspath(__file__))


def argspec(spec):
    p = spec.args_parser
    if isinstance(p, macrospec.VerbatimArgsParser):
        return {"verbatim": p.verbatim_arg_type}
    d = {"args": p.argspec}
    if getattr(p, "optional_arg_no_space", False):
        d["optnospace"] = True
    return d


def repl(spec):
    r = spec.simplify_repl
    if r is None:
        return {"discard": bool(spec.discard)}
    if isinstance(r, str):
        return {"repl": r}
    name = getattr(r, "__qualname__", repr(r))
    d = getattr(r, "__defaults__", None) or ()
    if name.endswith("_mathxx_formatter.<locals>.formatter"):
        return {"func": "style", "arg": d[0]}
    if "<lambda>" in name and len(d) == 1 and isinstance(d[0], str) and len(d[0]) == 1 and 0x300 <= ord(d[0]) < 0x370 or name.endswith("<lambda>") and d and isinstance(d[0], str) and d[0] in [c for _, c in latex2text._defaultspecs.unicode_accents_list]:
        return {"func": "accent", "arg": d[0]}
    if name == "fmt_matrix_environment_node":
        return {"func": "matrix"}
    if name == "fmt_equation_environment":
        return {"func": "equation"}
    if name == "fmt_input_macro":
        return {"func": "input"}
    if "placeholder_node_formatter" in name:
        return {"func": "placeholder", "arg": d[0]}
    return {"func": "callable:" + name}


def main():
    walker = latexwalker.get_default_latex_context_db()
    text = latex2text.get_default_latex_context_db()
    macros = {}
    names = {m.macroname for m in walker.iter_macro_specs()} | {m.macroname for m in text.iter_macro_specs()}
    for n in sorted(names):
        e = {}
        w = walker.get_macro_spec(n)
        if w is not None:
            e.update(argspec(w))
        t = text.get_macro_spec(n)
        if t is not None:
            e.update(repl(t))
        macros[n] = e
    envs = {}
    names = {m.environmentname for m in walker.iter_environment_specs()} | {m.environmentname for m in text.iter_environment_specs()}
    for n in sorted(names):
        e = {}
        w = walker.get_environment_spec(n)
        if w is not None:
            e.update(argspec(w))
            if w.is_math_mode:
                e["math"] = True
        t = text.get_environment_spec(n)
        if t is not None:
            e.update(repl(t))
        envs[n] = e
    specials = {}
    for s in walker.iter_specials_specs():
        t = text.get_specials_spec(s.specials_chars)
        specials[s.specials_chars] = repl(t) if t is not None else {}
    out = {"pylatexenc": pylatexenc.__version__, "macros": macros, "environments": envs, "specials": specials}
    with open(os.path.join(HERE, "..", "tables.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
