"""`gamedsl serve`: any game played by several people in their browsers, the engine as the referee.

`command.py` (the subparser; no web module imported until the command runs), `store.py` (the
lobby's records in SQLite), `table.py` (one game in progress: its seats, the moves it receives,
its log), `windows.py` (its reaction windows and races: who is asked what, their clocks, the
decision after a window shown at once), `bots.py` (the bots' moves, in worker processes),
`views.py` (what is sent to one seat or to a spectator), `security.py` (the defences: Host and
Origin checks, the CSRF token, headers, limits), `app.py` (the Starlette application: lobby,
host controls, table page, WebSocket) and `static/` (the pages, plain HTML and JavaScript). Only
app.py and command.py's runner import starlette.
"""
