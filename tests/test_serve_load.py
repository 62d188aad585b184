"""`gamedsl serve` under load, bounded: bench/serve_load.py with 50 tables at once (two WebSocket
players, a bot and a spectator each) for 10 s instead of its 60: no error, no move lost."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_serve_50_tables_at_once_without_an_error_or_a_lost_move():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "serve_load.py"), "--tables", "50", "--seconds", "10",
                           "--json"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    r = json.loads(proc.stdout)
    assert r["errors"] == 0 and r["error_messages"] == [], r
    assert r["lost_moves"] == 0 and r["phantom_moves"] == 0 and r["server_alive"], r
    assert r["tables_played"] >= 50 and r["moves_sent"] > 500, r
    assert 0 < r["server_p50_ms"] <= r["server_p99_ms"] and 0 < r["round_trip_p50_ms"] <= r["round_trip_p99_ms"]
