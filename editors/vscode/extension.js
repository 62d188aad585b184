// The gamedsl extension for VS Code: the language (colours from syntaxes/gamedsl.tmLanguage.json,
// brackets and comments from language-configuration.json, both declared in package.json), and a
// client of the language server `gamedsl lsp` (errors as you type, outline, hovers, definitions,
// references, rename, completion, colours by meaning). Plain JavaScript: no build step.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

const INSTALL = "pip install 'gamedsl[lsp]'";
let client = null;

/** The command and arguments that start the server, from the settings. */
function serverCommand() {
  const config = vscode.workspace.getConfiguration("gamedsl");
  const configured = config.get("server.path");
  const command = typeof configured === "string" && configured.trim() ? configured.trim() : "gamedsl";
  const args = config.get("server.args");
  return { command, args: Array.isArray(args) ? args.map(String) : ["lsp"] };
}

function isExecutable(file) {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (process.platform !== "win32") fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch (err) {
    return false;
  }
}

/** The full path of `command` (a name looked up on the PATH, or a path: `~` is the home directory,
 * a relative path is taken from the first workspace folder), or null when there is none. */
function findExecutable(command, env = process.env) {
  const exts = process.platform === "win32" ? ["", ...(env.PATHEXT || ".COM;.EXE;.BAT;.CMD").split(";")] : [""];
  if (command.startsWith("~")) command = path.join(os.homedir(), command.slice(1));
  if (command.includes("/") || command.includes(path.sep)) {
    if (!path.isAbsolute(command)) {
      const folder = (vscode.workspace.workspaceFolders || [])[0];
      command = path.resolve(folder ? folder.uri.fsPath : process.cwd(), command);
    }
    return exts.map((ext) => command + ext).find(isExecutable) || null;
  }
  for (const dir of (env.PATH || env.Path || "").split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const file = path.join(dir, command + ext);
      if (isExecutable(file)) return file;
    }
  }
  return null;
}

function notFound(command) {
  const message = `gamedsl: the language server command '${command}' was not found, so .game files get ` +
    `colours but no errors, outline or hovers. Install it with \`${INSTALL}\`, or set ` +
    "gamedsl.server.path to its full path (such as /path/to/.venv/bin/gamedsl).";
  vscode.window.showErrorMessage(message, "Open Settings").then((choice) => {
    if (choice === "Open Settings") {
      vscode.commands.executeCommand("workbench.action.openSettings", "gamedsl.server.path");
    }
  });
}

async function startClient() {
  const { command, args } = serverCommand();
  const found = findExecutable(command);
  if (found === null) {
    notFound(command);
    return;
  }
  const serverOptions = { command: found, args };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "gamedsl" },
      { scheme: "untitled", language: "gamedsl" },
    ],
  };
  client = new LanguageClient("gamedsl", "gamedsl language server", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (err) {
    client = null;
    vscode.window.showErrorMessage(
      `gamedsl: '${found} ${args.join(" ")}' did not start the language server (${err && err.message ? err.message : err}). ` +
      `Does \`${command} lsp\` run in a terminal? The server needs \`${INSTALL}\`.`);
  }
}

async function stopClient() {
  const running = client;
  client = null;
  if (running) {
    try {
      await running.stop();
    } catch (err) {
      // a server that already exited: nothing to stop
    }
  }
}

async function restartClient() {
  await stopClient();
  await startClient();
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("gamedsl.restartServer", restartClient),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("gamedsl.server")) restartClient();
    }),
  );
  await startClient();
}

function deactivate() {
  return stopClient();
}

module.exports = { activate, deactivate, findExecutable, serverCommand };
