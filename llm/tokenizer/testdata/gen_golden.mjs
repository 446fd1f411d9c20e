// Regenerates golden.json: token ids of texts.json from the reference
// JavaScript tokenizers of the npm packages themselves.
//
//   tmp=$(mktemp -d); (cd $tmp && npm pack gpt-3-encoder@1.1.4 llama-tokenizer-js@1.2.2 &&
//     mkdir g l && tar xzf gpt-3-encoder-1.1.4.tgz -C g && tar xzf llama-tokenizer-js-1.2.2.tgz -C l)
//   node gen_golden.mjs $tmp/g/package $tmp/l/package > golden.json
//
// Test tooling only; the product never runs JavaScript.
import { createRequire } from 'module';
import { readFileSync } from 'fs';
import path from 'path';
import { pathToFileURL, fileURLToPath } from 'url';

const [gptDir, llamaDir] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const gpt = require(path.resolve(gptDir, 'index.js'));
const llama = (await import(pathToFileURL(path.resolve(llamaDir, 'llama-tokenizer.js')).href)).default;
const here = path.dirname(fileURLToPath(import.meta.url));
const texts = JSON.parse(readFileSync(path.join(here, 'texts.json'), 'utf-8'));
const out = { gpt2: [], llama: [] };
for (const t of texts) {
  out.gpt2.push({ text: t, ids: gpt.encode(t) });
  out.llama.push({ text: t, ids: llama.encode(t, true, true) });
}
const rows = (a) => a.map((e) => '  ' + JSON.stringify(e)).join(',\n');
console.log('{\n "gpt2": [\n' + rows(out.gpt2) + '\n ],\n "llama": [\n' + rows(out.llama) + '\n ]\n}');
