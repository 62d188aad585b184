"""gamedsl lsp: a Language Server Protocol server for .game files (docs/editors.md): server.py speaks
the protocol (pygls), analysis.py answers from the checker and the parsed model."""
