"""The editor setups of docs/editors.md, run in the editors they are for: the setup is taken from the
docs as written, the editor runs headless (Neovim) or in batch (Emacs), opens a copy of laus.game
with a misspelt zone, and must get the server's error at its place; its keys are mapped, keywords
coloured, and saving formats the file. Helix has no headless mode: it runs in a terminal of tmux's,
read off the screen. Skipped, saying how to install them, when the editor is not found (.ci/run
installs Debian 12's Neovim 0.7.2 and Emacs 28 with elpa-eglot; Debian 12 has no Helix).

With GAMEDSL_EDITORS_ROOT set to a Debian root holding newer editors (editors/try-newer.sh makes
one of Debian 13's and one of unstable's), the editors are those of that root, run in it by chroot,
with this checkout and its Python mounted at the same paths."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gamedsl.language.format import format_source

ROOT = Path(__file__).resolve().parent.parent
DOCS = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
TYPO = ("  move c to me.played\n", "  move c to me.plyed\n")  # laus.game's line 68
ERROR = "68:16: unknown per-player variable or zone 'plyed'"


def _block(after: str, language: str) -> str:
    """The first ```language block of docs/editors.md after the text `after`."""
    at = DOCS.index(after)
    found = re.compile(rf"```{language}\n(.*?)```", re.S).search(DOCS, at)
    assert found, f"no {language} block after {after!r}"
    return found[1]


def _files(tmp_path: Path) -> tuple[Path, Path]:
    laus = (ROOT / "games" / "laus.game").read_text(encoding="utf-8")
    assert laus.count(TYPO[0]) == 1
    typo = tmp_path / "typo.game"
    typo.write_text(laus.replace(*TYPO), encoding="utf-8")
    messy = tmp_path / "messy.game"  # laus.game laid out badly: saving it formats it
    messy.write_text(laus.replace("zone hand per player: owner", "zone   hand per player :owner"), encoding="utf-8")
    return typo, messy


def _env() -> dict:
    """`gamedsl` on the PATH (this Python's), and a home of the test's own (no user settings)."""
    return {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}


EDITORS_ROOT = os.environ.get("GAMEDSL_EDITORS_ROOT", "")


def _which(program: str) -> str | None:
    if EDITORS_ROOT:
        return shutil.which(program, path=f"{EDITORS_ROOT}/usr/bin:{EDITORS_ROOT}/bin")
    return shutil.which(program)


def _command(argv: list[str], cwd: Path) -> list[str]:
    """`argv` run in `cwd`: in EDITORS_ROOT when it is set."""
    if not EDITORS_ROOT:
        return argv
    return ["chroot", EDITORS_ROOT, "sh", "-c", 'cd "$0" && exec "$@"', str(cwd), *argv]


def _version(program: str, pattern: str) -> tuple[int, int]:
    out = subprocess.run(_command([program, "--version"], Path("/")), capture_output=True, text=True,
                         check=True).stdout
    major, minor = re.search(pattern, out).groups()
    return int(major), int(minor)


NVIM_PROBE = '''
local ok = vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local out = { "filetype " .. vim.bo.filetype }
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out, string.format("%d:%d: %s", d.lnum + 1, d.col + 1, vim.split(d.message, "\\n")[1]))
end
if vim.lsp.semantic_tokens then  -- 0.9 and later colour from the server's semantic tokens: line 64's 'play'
  local at = function() return vim.lsp.semantic_tokens.get_at_pos(0, 63, 7) or {} end
  vim.wait(10000, function() return #at() > 0 end, 50)
  for _, token in ipairs(at()) do
    table.insert(out, "token " .. token.type .. " " .. table.concat(vim.tbl_keys(token.modifiers), " "))
  end
end
for _, key in ipairs({ "K", "gd" }) do
  local m = vim.fn.maparg(key, "n", false, true)
  table.insert(out, key .. " " .. (m.desc or m.rhs or "unmapped"))
end
vim.cmd("edit MESSY")
vim.wait(10000, function() return #vim.lsp.buf_get_clients(0) > 0 end, 50)
vim.wait(500)
vim.cmd("write")
vim.fn.writefile(out, "OUT")
vim.cmd("qa!")
'''


def test_the_neovim_setup_of_the_docs_gets_errors_keys_and_format_on_save(tmp_path):
    if _which("nvim") is None:
        pytest.skip("no nvim found: apt-get install neovim (.ci/run installs it)")
    version = _version("nvim", r"NVIM v(\d+)\.(\d+)")
    heading = "**Neovim 0.7**" if version < (0, 8) else "**Neovim 0.8 to 0.10**" if version < (0, 11) \
        else "**Neovim 0.11 or later**"
    init = tmp_path / "init.lua"
    init.write_text(_block(heading, "lua"), encoding="utf-8")
    typo, messy = _files(tmp_path)
    probe = tmp_path / "probe.lua"
    probe.write_text(NVIM_PROBE.replace("MESSY", str(messy)).replace("OUT", str(tmp_path / "out.txt")),
                     encoding="utf-8")
    subprocess.run(_command(["nvim", "--headless", "-u", str(init), str(typo), "-c", f"luafile {probe}"], tmp_path),
                   cwd=tmp_path,
                   env={**_env(), "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")},
                   timeout=120, check=True, capture_output=True)
    out = (tmp_path / "out.txt").read_text(encoding="utf-8").split("\n")
    assert out[0] == "filetype gamedsl" and out[1] == ERROR, out
    if version < (0, 11):  # (0.11 maps K itself)
        assert "K say what the name under the cursor is" in out, out
    assert any(line.startswith("gd go to") for line in out), out
    if version >= (0, 9):  # the action 'play' coloured by the server as a method, at its declaration
        assert "token method declaration" in out, out
    assert messy.read_text(encoding="utf-8") == format_source(messy.read_text(encoding="utf-8"), str(messy))
    assert "zone hand per player: owner" in messy.read_text(encoding="utf-8")


EMACS_PROBE = '''
(find-file "TYPO")
(run-hooks 'post-command-hook)  ; eglot-ensure connects after the command that opened the file
(let ((deadline (+ (float-time) 30)))
  (while (and (< (float-time) deadline) (null (flymake-diagnostics)))
    (accept-process-output nil 0.05)))
(font-lock-ensure)
(let ((lines (list (format "mode %s" major-mode)
                   (format "face %s" (save-excursion (goto-char (point-min)) (forward-line 63)
                                                     (get-text-property (point) 'face))))))
  (dolist (d (flymake-diagnostics))
    (push (format "%d:%d: %s" (line-number-at-pos (flymake-diagnostic-beg d))
                  (save-excursion (goto-char (flymake-diagnostic-beg d)) (1+ (current-column)))
                  (car (split-string (flymake-diagnostic-text d) "\\n"))) lines))
  (find-file "MESSY")
  (run-hooks 'post-command-hook)
  (let ((deadline (+ (float-time) 30)))
    (while (and (< (float-time) deadline) (not (eglot-current-server))) (accept-process-output nil 0.05)))
  (set-buffer-modified-p t)
  (save-buffer)
  (with-temp-file "OUT" (insert (mapconcat #'identity (reverse lines) "\\n") "\\n")))
(kill-emacs 0)
'''


def test_the_emacs_setup_of_the_docs_gets_errors_colours_and_format_on_save(tmp_path):
    if _which("emacs") is None:
        pytest.skip("no emacs found: apt-get install emacs-nox elpa-eglot (.ci/run installs them)")
    init = tmp_path / "init.el"
    init.write_text(_block("### Emacs", "elisp"), encoding="utf-8")
    typo, messy = _files(tmp_path)
    probe = tmp_path / "probe.el"
    probe.write_text(EMACS_PROBE.replace("TYPO", str(typo)).replace("MESSY", str(messy))
                     .replace("OUT", str(tmp_path / "out.txt")), encoding="utf-8")
    done = subprocess.run(_command(["emacs", "--batch", "-l", str(init), "-l", str(probe)], tmp_path), cwd=tmp_path,
                          env={**_env(), "HOME": str(tmp_path)}, timeout=120, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    out = (tmp_path / "out.txt").read_text(encoding="utf-8").split("\n")
    assert {"mode gamedsl-mode", "face font-lock-keyword-face", "68:16: gamedsl: " + ERROR[7:]} <= set(out), out
    assert messy.read_text(encoding="utf-8") == format_source(messy.read_text(encoding="utf-8"), str(messy))
    assert "zone hand per player: owner" in messy.read_text(encoding="utf-8")


class Screen:
    """A program in a terminal of tmux's (a server of its own, 160 by 50), read off its screen."""

    def __init__(self, tmp_path: Path, argv: list[str], env: dict):
        self.tmux = ["tmux", "-S", str(tmp_path / "tmux.sock")]
        script = tmp_path / "run.sh"
        script.write_text("".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items()
                                  if k in ("PATH", "HOME", "XDG_CONFIG_HOME", "LANG"))
                          + "export TERM=xterm-256color\nexec " + shlex.join(argv) + "\n", encoding="utf-8")
        subprocess.run([*self.tmux, "new-session", "-d", "-x", "160", "-y", "50", f"sh {script}"], check=True)

    def text(self) -> str:
        return subprocess.run([*self.tmux, "capture-pane", "-p"], capture_output=True, text=True).stdout

    def keys(self, *keys: str):
        subprocess.run([*self.tmux, "send-keys", *keys], check=True)

    def wait(self, what: str, seconds: float = 30) -> str:
        """The screen, once it shows `what` (a regular expression)."""
        deadline = time.monotonic() + seconds
        while not re.search(what, screen := self.text()):
            assert time.monotonic() < deadline, f"{what!r} never shown; the screen:\n{screen}"
            time.sleep(0.1)
        return screen

    def close(self):
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


def test_the_helix_setup_of_the_docs_gets_errors_and_format_on_save(tmp_path):
    if _which("hx") is None:
        pytest.skip("no hx found: Debian 12 has no Helix (editors/try-newer.sh runs this test in Debian 13's "
                    "and unstable's)")
    if shutil.which("tmux") is None:
        pytest.skip("no tmux found: apt-get install tmux")
    config = tmp_path / "config" / "helix"
    config.mkdir(parents=True)
    (config / "languages.toml").write_text(_block("### Helix", "toml"), encoding="utf-8")
    typo, messy = _files(tmp_path)
    env = {**_env(), "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"), "LANG": "C.UTF-8"}
    screen = Screen(tmp_path, _command(["hx", str(typo)], tmp_path), env)
    try:
        screen.wait(r"typo\.game.*● 1 ")  # the status line: one error in the file
        screen.keys("]", "d")  # to the next diagnostic: its range selected, the cursor on its last character
        shown = screen.wait(r" 1 sel +68:20\s*$")  # 'plyed', columns 16 to 20 of line 68
        assert "unknown per-player variable or zone 'plyed'" in shown, shown
        screen.keys(":open " + str(messy), "Enter")
        screen.wait(r"messy\.game")
        time.sleep(1)  # (the server started for the file)
        screen.keys(":write", "Enter")
        screen.wait(r"written")
        assert messy.read_text(encoding="utf-8") == format_source(messy.read_text(encoding="utf-8"), str(messy))
        assert "zone hand per player: owner" in messy.read_text(encoding="utf-8")
    finally:
        screen.close()
