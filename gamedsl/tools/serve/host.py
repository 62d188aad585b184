"""What the host of a table may do to its seats (POST /api/tables/ID/seats/K, the host token in the
X-Host-Token header), with a JSON body saying what:

- {"bot": SPEC}: a bot plays the seat from now on: at once for a seat nobody has opened yet (an
  empty seat), else after its person has been away for --absent-seconds;
- {"person": true}: the seat goes back to its person (a seat made for a person, given to a bot):
  its link plays it again; a seat made for a bot gets a link (returned), for the person who takes it;
- {"kick": true}: the seat's link is replaced by a new one (returned), and whoever holds the old
  one is shown that it opens nothing now: a link passed on to the wrong person is taken back.
"""
from __future__ import annotations

from ...errors import GamedslError
from ..simulate import seat_problem
from .bots import check_spec, hand_over


class HostRefused(GamedslError):
    """A host's request refused: its HTTP status and why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


KICKED = "the host gave this seat a new link: this one opens nothing now"


async def seat_request(server, table_id: str, token, seat, body) -> dict:
    """Do what the body asks to the seat; the answer's JSON ({"ok": true}, and a new "link" for a kick)."""
    table = server.hosted(table_id, token)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(table.seats):
        raise HostRefused(400, f"there is no seat {seat!r}: seats are numbered from 0")
    if not isinstance(body, dict) or len(body) != 1 or next(iter(body)) not in ("bot", "person", "kick"):
        raise HostRefused(400, 'send one of {"bot": SPEC}, {"person": true}, {"kick": true}')
    name = server.game.player_name(seat)
    if "bot" in body:
        await _to_bot(server, table, seat, body["bot"])
        return {"ok": True}
    if body.get("person") is True:
        if table.seats[seat] == "human":
            raise HostRefused(409, f"{name} is a person's seat already")
        answer = {"ok": True}
        if table.first_seats[seat] != "human":  # a bot's from the start: the host never had its link
            answer["link"] = f"/t/{server.store.reissue_link(table_id, seat)}"
        async with table.lock:
            hand_over(table, seat, "human", f"the host gave {name} back to its person" if len(answer) == 1
                      else f"the host gave {name} to a person")
            await table.broadcast()
        table.wake.set()
        return answer
    if body.get("kick") is True:
        link = server.store.reissue_link(table_id, seat)
        await table.drop_seat(seat, KICKED)
        return {"ok": True, "link": f"/t/{link}"}
    raise HostRefused(400, 'send one of {"bot": SPEC}, {"person": true}, {"kick": true}')


async def _to_bot(server, table, seat: int, spec) -> None:
    problem = "give the bot as a spec, such as greedy" if not isinstance(spec, str) or spec == "human" \
        else seat_problem(spec, human=False) or check_spec(spec, server.settings.max_bot_seconds)
    if problem:
        raise HostRefused(400, problem)
    if seat in table.joined:  # an empty seat (nobody opened it yet) goes to a bot at once
        away = table.away_for(seat)
        if away < server.settings.absent_seconds:
            now = "is connected" if away == 0 else f"has been away for only {away:.1f} s"
            raise HostRefused(409, f"{server.game.player_name(seat)} {now}: a seat can be given to a bot after "
                                   f"{server.settings.absent_seconds:g} s away")
    await table.replace(seat, spec)

