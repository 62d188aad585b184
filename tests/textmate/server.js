// Runs editors/vscode/extension.js with a stand-in for the `vscode` module (no real VS Code here)
// and a LanguageClient that starts the server from the options the extension gives it, as
// vscode-languageclient does (the command and its arguments, over stdin and stdout), then asks it,
// with vscode-jsonrpc from the extension's own node_modules, what VS Code asks when a .game file is
// opened: its errors, its outline, a hover; then types an error into it. For tests/test_textmate.py:
//   node server.js EXTENSION.js PATH GAME_FILE
// prints {"serverOptions", "diagnostics", "symbols", "hover", "typed"} as JSON.
"use strict";
const Module = require("module");
const fs = require("fs");
const path = require("path");
const { spawn } = require("child_process");
const { pathToFileURL } = require("url");

const [extensionPath, searchPath, gameFile] = process.argv.slice(2);
const extensionDir = path.dirname(extensionPath);
const rpc = require(path.join(extensionDir, "node_modules", "vscode-jsonrpc", "node"));
const manifest = require(path.join(extensionDir, "package.json"));
const settings = {};
for (const [key, spec] of Object.entries(manifest.contributes.configuration.properties)) settings[key] = spec.default;

const out = { errors: [] };
let conversation = null;

class LanguageClient {
  constructor(id, name, serverOptions, clientOptions) {
    out.serverOptions = serverOptions;
    out.documentSelector = clientOptions.documentSelector;
  }
  async start() {
    const server = spawn(out.serverOptions.command, out.serverOptions.args, { stdio: ["pipe", "pipe", "inherit"] });
    const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(server.stdout),
                                                   new rpc.StreamMessageWriter(server.stdin));
    const published = [];
    let waiting = null;
    connection.onNotification("textDocument/publishDiagnostics", (params) => {
      published.push(params);
      if (waiting) waiting();
    });
    connection.listen();
    const diagnostics = async (count) => {
      while (published.length < count) await new Promise((resolve) => { waiting = resolve; });
      return published[count - 1].diagnostics;
    };
    conversation = (async () => {
      await connection.sendRequest("initialize", {
        processId: process.pid, rootUri: null,
        capabilities: { textDocument: { documentSymbol: { hierarchicalDocumentSymbolSupport: true },
                                        hover: { contentFormat: ["markdown", "plaintext"] },
                                        publishDiagnostics: {} } },
      });
      connection.sendNotification("initialized", {});
      const uri = pathToFileURL(gameFile).href;
      const text = fs.readFileSync(gameFile, "utf8");
      connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "gamedsl", version: 1, text } });
      out.diagnostics = await diagnostics(1);
      const symbols = await connection.sendRequest("textDocument/documentSymbol", { textDocument: { uri } });
      out.symbols = symbols.map((s) => s.name);
      const lines = text.split("\n");
      const line = lines.findIndex((l) => l.includes("card(A, hearts)"));
      const character = lines[line].indexOf("card(A, hearts)") + 1;
      const hover = await connection.sendRequest("textDocument/hover", { textDocument: { uri }, position: { line, character } });
      out.hover = hover && (hover.contents.value || hover.contents);
      const typo = text.replace("move c to pot", "move c to pott");
      connection.sendNotification("textDocument/didChange", { textDocument: { uri, version: 2 }, contentChanges: [{ text: typo }] });
      out.typed = (await diagnostics(2)).map((d) => ({ line: d.range.start.line, message: d.message }));
      await connection.sendRequest("shutdown");
      connection.sendNotification("exit");
    })();
  }
  async stop() {}
}

const vscode = {
  workspace: {
    getConfiguration: (section) => ({ get: (key) => settings[`${section}.${key}`] }),
    onDidChangeConfiguration: () => ({ dispose() {} }),
  },
  window: { showErrorMessage: (message) => { out.errors.push(message); return Promise.resolve(undefined); } },
  commands: { registerCommand: () => ({ dispose() {} }), executeCommand: () => Promise.resolve() },
};
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === "vscode") return vscode;
  if (request === "vscode-languageclient/node") return { LanguageClient };
  return load.call(this, request, ...rest);
};

async function main() {
  process.env.PATH = searchPath;
  await require(extensionPath).activate({ subscriptions: [] });
  if (conversation) await conversation;
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
