// Runs editors/vscode/extension.js with stand-ins for the `vscode` module and for
// vscode-languageclient (no real VS Code here), for tests/test_textmate.py:
//   node client.js EXTENSION.js BIN_DIR
// BIN_DIR becomes the PATH. Prints {scenario: what the extension did} as JSON: the clients it made
// (server options, document selector, started, stopped), the errors it showed, the commands it
// registered and the settings it opened. Settings start from the defaults of package.json.
"use strict";
const Module = require("module");
const path = require("path");

const [extensionPath, binDir] = process.argv.slice(2);
const manifest = require(path.join(path.dirname(extensionPath), "package.json"));
const defaults = {};
for (const [key, spec] of Object.entries(manifest.contributes.configuration.properties)) defaults[key] = spec.default;

let stubs = null;
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === "vscode") return stubs.vscode;
  if (request === "vscode-languageclient/node") return stubs.client;
  return load.call(this, request, ...rest);
};

function makeStubs(settings, { startFails = false } = {}) {
  const record = { clients: [], errors: [], commands: [], opened: [], deactivated: false };
  const listeners = [];
  const values = { ...defaults, ...settings };
  const vscode = {
    workspace: {
      workspaceFolders: undefined,
      getConfiguration: (section) => ({ get: (key) => values[`${section}.${key}`] }),
      onDidChangeConfiguration: (listener) => {
        listeners.push(listener);
        return { dispose() {} };
      },
    },
    window: {
      showErrorMessage: (message, ...items) => {
        record.errors.push({ message, items });
        return Promise.resolve(items[0]);
      },
    },
    commands: {
      registerCommand: (name) => {
        record.commands.push(name);
        return { dispose() {} };
      },
      executeCommand: (name, arg) => {
        if (name === "workbench.action.openSettings") record.opened.push(arg);
        return Promise.resolve();
      },
    },
  };
  class LanguageClient {
    constructor(id, name, serverOptions, clientOptions) {
      this.seen = { id, name, serverOptions, documentSelector: clientOptions.documentSelector, started: false, stopped: false };
      record.clients.push(this.seen);
    }
    async start() {
      if (startFails) throw new Error("spawn failed");
      this.seen.started = true;
    }
    async stop() {
      this.seen.stopped = true;
    }
  }
  return { vscode, client: { LanguageClient }, record, values, listeners };
}

async function scenario(settings, options = {}, then = async () => {}) {
  stubs = makeStubs(settings, options);
  delete require.cache[require.resolve(extensionPath)];
  const extension = require(extensionPath);
  await extension.activate({ subscriptions: [] });
  await then(extension, stubs);
  await new Promise((resolve) => setTimeout(resolve, 20));  // the error message's answer
  return stubs.record;
}

async function main() {
  process.env.PATH = binDir;
  const out = {};
  out.default = await scenario({});
  out.configured = await scenario({ "gamedsl.server.path": path.join(binDir, "gamedsl"),
                                    "gamedsl.server.args": ["lsp", "--verbose"] });
  out.missing = await scenario({ "gamedsl.server.path": "/nowhere/gamedsl" });
  out.failing = await scenario({}, { startFails: true });
  out.changed = await scenario({}, {}, async (extension, s) => {
    s.values["gamedsl.server.args"] = ["lsp"];
    for (const listener of s.listeners) await listener({ affectsConfiguration: (k) => k === "gamedsl.server" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await extension.deactivate();
    s.record.deactivated = true;
  });
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
