"""`gamedsl serve` in a real browser: Playwright for Python driving headless Chromium, one browser
context per person, clicking the table page's buttons. Skipped, with how to install it, only when
no Chromium is found."""
from __future__ import annotations

import os
import re
import time

import pytest

from serve_helpers import GAMES, Served, create_table, log_lines, log_of, needs_chromium, wait_in_page

MOVED_ON = "the game has moved on since that move was chosen: it was not played"
REFERENCE = GAMES.parent / "tests" / "reference" / "phone-lol-table.png"

pytestmark = needs_chromium


def _lobby(browser, url: str, players: int, seats: list[str], options: dict, seed: int) -> tuple[list[str], str]:
    """Create a table with the lobby's form, as a host does: the seat links and the spectator link."""
    page = browser.new_page()
    page.goto(url + "/")
    page.wait_for_selector("#seats select")
    page.select_option("#players", str(players))
    for k, kind in enumerate(seats):
        page.locator("#seats select").nth(k).select_option(kind)
    for name, value in options.items():
        field = page.locator(f"[data-option={name}]")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(str(value))
    page.fill("#seed", str(seed))
    page.click("#create")
    page.wait_for_selector("#links a.spectator-link")
    links = [a.get_attribute("href") for a in page.locator("#links a.seat-link").all()]
    spectator = page.locator("#links a.spectator-link").get_attribute("href")
    page.close()
    return links, spectator


def _seat_pages(browser, url: str, links: list[str]) -> list:
    """One browser context per person (separate cookies and storage, like separate machines)."""
    pages = []
    for link in links:
        page = browser.new_context(viewport={"width": 1200, "height": 820}).new_page()
        page.goto(url + link)
        pages.append(page)
    return pages


def _buttons(page) -> list[tuple[str, object]]:
    return [(b.text_content(), b) for b in page.locator("#moves button:not([disabled])").all()]


def _click(page, prefer) -> str | None:
    """Click the move `prefer` picks among the enabled buttons, if there are any."""
    try:
        buttons = _buttons(page)
        if not buttons:
            return None
        text, button = prefer([t for t, _ in buttons])
        button = dict(buttons)[text]
        button.click(timeout=2000)
        return text
    except Exception as exc:  # the page redrew under the click: look again
        if "Timeout" in type(exc).__name__ or "detached" in str(exc) or "not attached" in str(exc):
            return None
        raise


def _play(pages, prefer, done, seconds: float) -> list[str]:
    clicked = []
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"not done after {seconds} s; clicked {clicked[-10:]}"
        for page in pages:
            text = _click(page, prefer)
            if text:
                clicked.append(text)
        pages[0].wait_for_timeout(40)
    return clicked


def _lol_prefer(texts: list[str]):
    """A person who jumps in and catches whenever they can, races, and never says «ЛОЛ!» (so they can be
    caught); else plays a «Бах!» first, then any card."""
    for prefix in ("jump in", "catch", "cover", "play Бах!", "play two", "play", "cover with", "pass it on",
                   "swap hands", "name", "draw", "take the cards", "pass"):
        for t in texts:
            if t.startswith(prefix) and t != "pass it on":
                return t, None
    for t in texts:
        if t != "ЛОЛ!":
            return t, None
    return texts[0], None


def test_a_lol_round_in_the_browser_with_a_jump_in_a_race_and_a_catch(browser, tmp_path):
    data = tmp_path / "data"
    with Served(GAMES / "lol.game", data, "--window-seconds", "20", "--bot-delay", "0.05") as server:
        links, spectator = _lobby(browser, server.url, 3, ["human", "human", "greedy"], {"mode": "first_out"}, 3)
        assert len(links) == 2
        pages = _seat_pages(browser, server.url, links)
        watch = _seat_pages(browser, server.url, [spectator])[0]
        table = re.search(r"[0-9a-f]{12}", str(sorted((data / "logs").iterdir())[0]))[0]

        def moves():
            return [m for m in log_lines(log_of(data, table)) if m["type"] == "move"]

        def seen():
            texts = [(m["player"], m["text"]) for m in moves()]
            return {"jump": any(p < 2 and t.startswith("jump in") for p, t in texts),
                    "catch": any(t.startswith("catch") for _, t in texts),
                    "race": any(t == "cover" for _, t in texts)}

        def round_over():
            where = pages[0].locator("#where").text_content() or ""
            return "round 1," not in where or pages[0].locator("#over").is_visible()

        def done():
            return round_over() and all(seen().values())

        shot = None
        statuses = set()

        def prefer(texts):
            nonlocal shot
            if shot is None and len(moves()) > 40 and pages[0].locator("#countdown").is_visible():
                shot = pages[0].screenshot()  # mid-race (or a reaction window): for docs/serve.md
            statuses.update(p.locator("#status").text_content() for p in pages)
            return _lol_prefer(texts)
        clicked = _play(pages, prefer, done, 150)
        # a reaction window asks someone: the others' header never turns to "waiting…" (no tell)
        assert "waiting…" not in statuses and any(s.endswith("to move") for s in statuses)
        assert all(seen().values()) and any(t.startswith("jump in") for t in clicked)
        for page in pages + [watch]:  # (a move made early, beaten by a reaction, is refused: no fault)
            assert set(page.evaluate("window.gamedslErrors")) <= {MOVED_ON}
        # the spectator sees no hand but counts
        assert "card" in watch.locator("#players").text_content()
        assert watch.locator("#moves button").count() == 0
        log = [m for m in log_lines(log_of(data, table)) if m["type"] == "move"]
        covers = [m for m in log if m["text"] == "cover"]
        assert covers and all("time" in m for m in covers)  # each race answer with its reaction time
        human_covers = [m["time"] for m in covers if m["player"] < 2]
        assert human_covers and all(0 <= t < 20 for t in human_covers)
        if os.environ.get("GAMEDSL_SCREENSHOT") and shot:
            (GAMES.parent / "docs" / "serve-table.png").write_bytes(shot)
            phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            phone.goto(server.url + links[1])
            phone.wait_for_selector("#players td")
            (GAMES.parent / "docs" / "serve-table-phone.png").write_bytes(phone.screenshot())


def test_a_whole_laus_game_in_the_browser(browser, tmp_path):
    data = tmp_path / "data"
    with Served(GAMES / "laus.game", data, "--bot-delay", "0.05") as server:
        links, spectator = _lobby(browser, server.url, 3, ["human", "greedy", "human"], {"target": "60"}, 7)
        pages = _seat_pages(browser, server.url, links)
        first = lambda texts: (texts[0], None)  # noqa: E731
        _play(pages, first, lambda: pages[0].locator("#log div").count() >= 12, 60)
        # a reloaded page comes back with the game where it is and the whole log
        before = pages[0].locator("#log div").all_text_contents()
        pages[0].reload()
        wait_in_page(pages[0], f"document.querySelectorAll('#log div').length >= {len(before)}")
        assert pages[0].locator("#log div").all_text_contents()[:len(before)] == before
        _play(pages, first, lambda: pages[0].locator("#over").is_visible(), 150)
        for page in pages:
            page.wait_for_selector("#over:not([hidden])")
            assert page.evaluate("window.gamedslErrors") == []
            assert "game over" in page.locator("#status").text_content()
        results = pages[1].locator("#results").text_content()
        assert "win" in results or "lose" in results
        logs = list((data / "logs").iterdir())
        assert log_lines(logs[0])[-1]["type"] == "end"


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_names_are_shown_to_everyone_escaped_and_go_along_to_a_rematch(browser, tmp_path):
    data = tmp_path / "data"
    with Served(GAMES / "laus.game", data, "--bot-delay", "0.05") as server:
        links, _ = _lobby(browser, server.url, 3, ["human", "greedy", "human"], {"target": "60"}, 7)
        pages = _seat_pages(browser, server.url, links)
        for page, name in zip(pages, ["Ann", "<b>Bo</b>"]):
            page.wait_for_selector("#name-form:not([hidden])")
            page.fill("#name", name)
            page.click("#name-form button")
        wait_in_page(pages[0], "document.querySelector('#players').textContent.includes('<b>Bo</b> (P3)')")
        assert "Ann (P1)" in pages[1].locator("#players").text_content()
        assert pages[0].locator("#players b").count() == 0  # shown as text, never as markup
        assert pages[0].locator("#seat").text_content() == "you are Ann (P1)"
        first = lambda texts: (texts[0], None)  # noqa: E731
        _play(pages, first, lambda: pages[0].locator("#over").is_visible(), 150)
        # the narrated log, in people's names: who took each trick and with what, each deal's points
        said = pages[1].locator("#log .said").all_text_contents()
        assert any(re.fullmatch(r"(Ann \(P1\)|<b>Bo</b> \(P3\)|P2) takes the trick with \S+", t) for t in said), said
        assert any(" scores " in t and "card points" in t for t in said)
        if os.environ.get("GAMEDSL_SCREENSHOT"):
            (GAMES.parent / "docs" / "serve-laus-over.png").write_bytes(pages[0].screenshot(full_page=True))
            phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            phone.goto(server.url + links[0])
            phone.wait_for_selector("#over:not([hidden])")
            (GAMES.parent / "docs" / "serve-laus-over-phone.png").write_bytes(phone.screenshot(full_page=True))
        pages[0].wait_for_selector("#rematch:not([hidden])")
        pages[0].click("#rematch")
        for page in pages:
            page.wait_for_selector("#rematch-go")
        pages[1].click("#rematch-go")
        pages[1].wait_for_selector("#players td")
        wait_in_page(pages[1], "document.querySelector('#seat').textContent === 'you are <b>Bo</b> (P3)'")
        assert "Ann (P1)" in pages[1].locator("#players").text_content()
        tables = sorted(p.stem for p in (data / "logs").iterdir())
        assert len(tables) == 2  # the rematch is a table of its own


def test_a_lost_connection_shows_a_banner_and_a_click_made_meanwhile_is_sent_when_it_is_back(browser, tmp_path):
    data = tmp_path / "data"
    port = _free_port()
    server = Served(GAMES / "laus.game", data, "--port", str(port), "--bot-delay", "0.05").start()
    try:
        links, _ = _lobby(browser, server.url, 3, ["human", "greedy", "greedy"], {"target": "60"}, 8)
        page = _seat_pages(browser, server.url, links[:1])[0]
        page.wait_for_selector("#moves button:not([disabled])")
        assert page.locator("#offline").is_hidden()
    finally:
        server.kill()
    page.wait_for_selector("#offline:not([hidden])")
    assert "Connection lost" in page.locator("#offline").text_content()
    text = page.locator("#moves button").first.text_content()
    page.locator("#moves button").first.click()
    assert "will be sent as soon as the connection is back" in page.locator("#notice").text_content()
    table = sorted((data / "logs").iterdir())[0]
    with Served(GAMES / "laus.game", data, "--port", str(port), "--bot-delay", "0.05"):
        page.wait_for_selector("#offline", state="hidden", timeout=15000)
        mine = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not mine:
            mine = [m for m in log_lines(table) if m["type"] == "move" and m["player"] == 0]
            time.sleep(0.1)
        assert mine and mine[0]["text"] == text  # the click, sent once the server was back


def test_a_lol_table_on_a_phone(browser, tmp_path):
    """390 px wide: nothing overflows sideways, the hand wraps, and the page looks as the checked-in
    reference does (within a tolerance; GAMEDSL_SCREENSHOT=1 writes it anew)."""
    from PIL import Image, ImageChops

    data = tmp_path / "data"
    with Served(GAMES / "lol.game", data) as server:
        links, _ = _lobby(browser, server.url, 3, ["human", "human", "human"], {"mode": "first_out"}, 21)
        context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
        page = context.new_page()
        page.goto(server.url + links[0])
        page.wait_for_selector("#players td")
        page.wait_for_selector("#offline", state="hidden")
        shot = page.screenshot(full_page=False)
        if os.environ.get("GAMEDSL_SCREENSHOT"):
            REFERENCE.write_bytes(shot)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        cards = page.locator("#players tr.me .card")
        tops = {round(cards.nth(k).bounding_box()["y"]) for k in range(cards.count())}
        assert cards.count() >= 5 and len(tops) <= 2  # the hand on a line or two, not a card a line
        # the moves, then the last lines of the log, on the first screen (the log sat below the players)
        moves, log = page.locator("#act").bounding_box(), page.locator("#log").bounding_box()
        assert moves["y"] < log["y"] and log["y"] + min(log["height"], 60) < 844
        assert page.locator("#log div").count() and page.locator("#log div").last.bounding_box()["y"] < 844
    path = tmp_path / "phone.png"
    path.write_bytes(shot)
    now, reference = Image.open(path).convert("RGB"), Image.open(REFERENCE).convert("RGB")
    assert now.size == reference.size
    diff = ImageChops.difference(now, reference).convert("L").point(lambda v: 255 if v > 40 else 0)
    changed = diff.histogram()[255] / (now.size[0] * now.size[1])  # the share of pixels clearly different
    assert changed < 0.03, f"{changed:.1%} of the page differs from {REFERENCE.name}"


def test_klondike_s_columns_are_a_tableau_in_the_browser(browser, tmp_path):
    """A family of zones is drawn as a tableau: a column per zone, its cards from the bottom down,
    the face-down count of each column above its face-up run."""
    with Served(GAMES / "klondike.game", tmp_path / "data") as server:
        links, _ = _lobby(browser, server.url, 1, ["human"], {}, seed=3)
        (page,) = _seat_pages(browser, server.url, links)
        page.wait_for_selector("table.tableau")
        heads = page.locator("table.tableau").first.locator("th").all_inner_texts()
        assert heads == [f"column {k}" for k in range(1, 8)]
        cells = page.locator("table.tableau").first.locator("td").all()
        assert [cell.locator("div").first.inner_text() for cell in cells] == \
            ["0 cards"] + [f"{k} card{'s' if k > 1 else ''}" for k in range(1, 7)]
        assert all(cell.locator(".card").count() == 1 for cell in cells)  # one face-up card under each count
        page.context.close()


def test_the_lobby_shows_each_link_once_and_copies_it_without_the_clipboard_api(browser, tmp_path):
    """A table just made has its links under "The links" only (they were shown twice: a test's
    locator met two, by timing); on a LAN address over http there is no navigator.clipboard, and
    the copy buttons threw: they copy through a text field, or leave the link selected."""
    with Served(GAMES / "laus.game", tmp_path / "data") as server:
        page = browser.new_context().new_page()
        page.add_init_script("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.url + "/")
        page.wait_for_selector("#seats select")
        page.click("#create")
        page.wait_for_selector("#mine .mine-table h3")
        wait_in_page(page, "document.querySelector('#mine .mine-table h3').textContent.includes('move')")
        assert page.locator("a.spectator-link").count() == 1
        assert page.locator("#mine .mine-table").inner_text().count("its links are above") == 1
        first = page.locator("#links a.spectator-link").get_attribute("href")
        button = page.locator("#links li", has=page.locator("a.spectator-link")).locator("button.copy")
        button.click()
        wait_in_page(page, "[...document.querySelectorAll('#links button.copy')].some(b => b.textContent !== 'copy')")
        said = button.text_content()
        assert said in ("copied", "selected: copy it") and not errors, (said, errors)
        if said != "copied":
            assert page.evaluate("getSelection().toString()") == server.url + first
        page.click("#create")  # a second table: the first one's links are now under Your tables
        wait_in_page(page, "document.querySelectorAll('#mine .mine-table').length == 2")
        wait_in_page(page, "document.querySelectorAll('a.spectator-link').length == 2")
        assert page.locator("#mine a.spectator-link").get_attribute("href") == first
        assert page.locator("#links a.spectator-link").get_attribute("href") != first


def test_the_table_page_has_the_rules_from_the_game_file(browser, tmp_path):
    """No rules or help were on the table page: a panel shows the file's opening comment, its moves
    with what each needs, and its options."""
    with Served(GAMES / "laus.game", tmp_path / "data") as server:
        links, spectator = _lobby(browser, server.url, 3, ["human", "random", "random"], {}, 5)
        page = browser.new_context().new_page()
        page.goto(server.url + spectator)
        page.wait_for_selector("#rule-moves li", state="attached")
        assert not page.locator("#about").is_visible()  # folded until asked for
        page.click("#rules summary")
        about = page.locator("#about p").all_inner_texts()
        assert about[0] == ("Laus: a trick-taking game for 3 or 4 players. Avoid points: the first player at or "
                            "over the target total loses. Rules: shared/seeds/laus.txt.")
        moves = page.locator("#rule-moves li").all_inner_texts()
        assert any(m.startswith("look at the skat") for m in moves) and any(m.startswith("put back") for m in moves)
        assert "target: the total at which a player loses (default 1500)" in page.locator("#rule-options").inner_text()


def test_the_host_hands_seats_to_bots_and_people_and_gives_new_links_from_the_lobby(browser, tmp_path):
    """Host controls were close and delete only (handing a seat to a bot was API only): a seat nobody
    opened goes to a bot at once, and back to its person (its link plays it again); a seat given a
    new link shuts the old link's page ("closed") and the lobby shows the new one."""
    with Served(GAMES / "laus.game", tmp_path / "data") as server:
        page = browser.new_context().new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("#seats select")
        page.locator("#seats select").nth(1).select_option("human")
        page.click("#create")
        page.wait_for_selector("#mine .give-bot button")
        links = lambda: page.locator("#links a.seat-link").evaluate_all("as => as.map(a => a.getAttribute('href'))")  # noqa: E731
        seats = lambda: page.evaluate("fetch('/api/tables').then(r => r.json())")[0]["seats"]  # noqa: E731
        p1, p2 = links()
        page.select_option("#mine .give-seat", label="P2")
        page.select_option("#mine .give-kind", "greedy")
        page.click("#mine .to-bot")
        wait_in_page(page, "document.querySelector('#links').textContent.includes('P2: greedy, a bot')")
        assert seats()[1] == "greedy" and links() == [p1]
        page.select_option("#mine .give-seat", label="P2")
        page.click("#mine .to-person")
        wait_in_page(page, "document.querySelectorAll('#links a.seat-link').length === 2")
        assert seats()[1] == "human" and links() == [p1, p2]
        player = browser.new_context().new_page()
        player.goto(server.url + p1)
        wait_in_page(player, "document.getElementById('status').textContent.length > 0 && "
                             "document.getElementById('offline').hidden")
        page.select_option("#mine .give-seat", label="P1")
        page.click("#mine .new-link")
        wait_in_page(player, "document.getElementById('status').textContent === 'closed'")
        wait_in_page(page, f"!document.querySelector('#links').innerHTML.includes({p1!r})")
        new = links()[0]
        assert new != p1 and links()[1] == p2
        assert page.evaluate(f"fetch({p1!r}).then(r => r.status)") == 404
        assert page.evaluate(f"fetch({new!r}).then(r => r.status)") == 200


def test_cards_are_drawn_in_the_colours_their_attributes_give_them(browser, tmp_path):
    """Beacons' cards were uncoloured codes ("B3"): a card whose attribute is valued by a colour (or a
    suit) is drawn in it, at the table as at the terminal."""
    with Served(GAMES / "beacons.game", tmp_path / "data") as server:
        links, _ = _lobby(browser, server.url, 2, ["human", "human"], {}, 4)
        (page,) = _seat_pages(browser, server.url, links[:1])
        page.wait_for_selector("#players .card")
        wait_in_page(page, "[...document.querySelectorAll('#players .card')].some(e => e.classList.length > 1)")
        names = {"R": "red", "Y": "yellow", "G": "green", "B": "blue", "W": "white"}
        cards = [(c.text_content(), c.get_attribute("class")) for c in page.locator("#players .card").all()]
        coded = [(text, cls) for text, cls in cards if re.fullmatch(r"[RYGBW][1-5]", text)]
        assert len(coded) >= 5 and all(names[text[0]] in cls.split() for text, cls in coded), coded


@pytest.mark.parametrize("name, players, seats", [
    ("lol", 3, ["human", "greedy", "greedy"]), ("sushi_go", 3, ["human", "greedy", "greedy"]),
    ("beacons", 2, ["human", "greedy"]), ("holdem", 3, ["human", "greedy", "greedy"])])
def test_four_games_at_desktop_and_phone_sizes(browser, tmp_path, name, players, seats):
    """Each game's table at both sizes: nothing overflows sideways, the cards are drawn as cards,
    the moves come before the log on a phone. GAMEDSL_SCREENSHOT=1 writes docs/serve-NAME(-phone).png."""
    with Served(GAMES / f"{name}.game", tmp_path / "data", "--bot-delay", "0") as server:
        links, _ = _lobby(browser, server.url, players, seats, {}, 7)
        for size, suffix in (({"width": 1200, "height": 820}, ""), ({"width": 390, "height": 844}, "-phone")):
            page = browser.new_context(viewport=size, device_scale_factor=1).new_page()
            page.goto(server.url + links[0])
            page.wait_for_selector("#players td")
            page.wait_for_selector("#offline", state="hidden")
            wait_in_page(page, "document.querySelectorAll('#moves button').length > 0")
            assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
            assert page.locator(".card").count() >= 2
            act, log = page.locator("#act").bounding_box(), page.locator("#log").bounding_box()
            assert (act["y"] < log["y"]) if suffix else (act["x"] < log["x"])
            if os.environ.get("GAMEDSL_SCREENSHOT"):
                (GAMES.parent / "docs" / f"serve-{name}{suffix}.png").write_bytes(page.screenshot())
            page.close()


def test_a_window_s_countdown_starts_anew_after_the_server_restarts(browser, tmp_path):
    """A race is open at P1's page when the server is killed; it comes back after the race's time
    would have run out. The page reconnects, and its countdown shows the time the restarted
    clock gives (it waits for the people asked), not the old deadline's "0.0 s left"."""
    import socket

    from test_serve import SLAP

    (tmp_path / "slap.game").write_text(SLAP, encoding="utf-8")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ("--window-seconds", "4", "--port", str(port))
    server = Served(tmp_path / "slap.game", tmp_path / "data", *args).start()
    again = None
    try:
        table = create_table(server.url, 2, ["human", "random"], seed=1)
        page = _seat_pages(browser, server.url, [table["seats"][0]["link"]])[0]
        page.locator("#moves button", has_text="bang").click()
        wait_in_page(page, "document.getElementById('seconds').textContent.endsWith('s left')")
        server.kill()
        time.sleep(4.5)  # past the race's old deadline
        again = Served(tmp_path / "slap.game", tmp_path / "data", *args).start()
        wait_in_page(page, "!document.getElementById('seconds').hidden && "
                           "document.getElementById('seconds').textContent.endsWith('s left') && "
                           "document.getElementById('offline').hidden", timeout=20)
        left = float(page.locator("#seconds").text_content().split()[0])
        assert left > 2.0, page.locator("#seconds").text_content()
    finally:
        server.kill()
        if again is not None:
            again.stop()
