// Tokenizes .game files with the real TextMate engine, as VS Code does (vscode-textmate, with
// the Oniguruma regular expressions compiled to WebAssembly), for tests/test_textmate.py.
//   node tokenize.js GRAMMAR.json FILE...
// prints {"FILE": [[[start, end, [scope, ...]], ...] one list per line], ...} on stdout, with
// columns counted in characters (code points, as Python and gamedsl count them), not UTF-16 units.
"use strict";
const fs = require("fs");
const path = require("path");
const oniguruma = require("vscode-oniguruma");
const vsctm = require("vscode-textmate");

async function main() {
  const [grammarPath, ...files] = process.argv.slice(2);
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== "source.gamedsl") return null;
      return vsctm.parseRawGrammar(fs.readFileSync(grammarPath, "utf8"), grammarPath);
    },
  });
  const grammar = await registry.loadGrammar("source.gamedsl");
  const out = {};
  for (const file of files) {
    let ruleStack = vsctm.INITIAL;
    const lines = [];
    for (const line of fs.readFileSync(file, "utf8").split("\n")) {
      const text = line.replace(/\r$/, "");
      const result = grammar.tokenizeLine(text, ruleStack);
      // UTF-16 offset -> code point offset
      const cp = new Array(text.length + 1);
      let k = 0;
      for (let i = 0; i <= text.length; i++) {
        cp[i] = k;
        const c = text.charCodeAt(i);
        if (!(c >= 0xd800 && c <= 0xdbff)) k++;
      }
      const tokens = result.tokens.map((t) => [cp[t.startIndex], cp[Math.min(t.endIndex, text.length)], t.scopes]);
      lines.push(tokens.filter((t) => t[1] > t[0]));
      ruleStack = result.ruleStack;
    }
    out[file] = lines;
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
