"""What friends saw at the web table (issue 43), each in a real browser: the status a reactor reads,
a question that stays while its bar runs, Hold'em's lines, Sushi Go's round lines against its scores.
Skipped, with how to install it, only when no Chromium is found."""
from __future__ import annotations

import re

from serve_helpers import GAMES, Served, create_table, needs_chromium, wait_in_page
from test_serve_browser import _lobby, _play, _seat_pages
from test_serve_window import SELF, TELL

pytestmark = needs_chromium

# Kept in the page: what it showed each time its moves were drawn (status, enabled buttons' texts, a
# window's text, the time). Installed by page.evaluate: the page's CSP forbids eval, not this.
RECORD = """() => {
  window.shown = [];
  const note = () => window.shown.push([document.getElementById('status').textContent,
    [...document.querySelectorAll('#moves button:not([disabled])')].map((b) => b.textContent),
    document.getElementById('windowtext').textContent, performance.now()]);
  new MutationObserver(note).observe(document.getElementById('moves'), {childList: true});
  note();
}"""


def _record(page) -> None:
    page.wait_for_selector("#players td")
    page.evaluate(RECORD)


def _shown(page) -> list:
    return page.evaluate("window.shown")


def _click_when_offered(page, text: str, timeout: float = 20) -> None:
    wait_in_page(page, f"[...document.querySelectorAll('#moves button:not([disabled])')]"
                       f".some((b) => b.textContent === {text!r})", timeout)
    page.locator("#moves button:not([disabled])", has_text=re.compile("^" + re.escape(text) + "$")).first.click()


def test_a_player_who_reacts_before_its_own_turn_reads_that_its_answer_is_in(browser, tmp_path):
    """P2 shouts in the window before its own first decision while P1 lets the question sit: P2's page
    says its answer is in and the others are waited for. It read its own name "P2 to move", with no
    buttons (what friends saw, 1)."""
    (tmp_path / "self.game").write_text(SELF, encoding="utf-8")
    with Served(tmp_path / "self.game", tmp_path / "data", "--window-seconds", "30") as server:
        table = create_table(server.url, 2, ["human", "human"], seed=3)
        p1, p2 = _seat_pages(browser, server.url, [s["link"] for s in table["seats"]])
        _record(p2)
        _click_when_offered(p1, "no reaction")  # the window before P1's first move
        wait_in_page(p1, "[...document.querySelectorAll('#moves button')].some((b) => b.textContent.startsWith('play'))")
        p1.locator("#moves button", has_text="play").first.click()
        _click_when_offered(p2, "shout")  # the window after it, before P2's own turn; P1 does not answer
        wait_in_page(p2, "document.getElementById('status').textContent === 'answered: waiting for the others'")
        assert p2.locator("#moves").text_content() == "your answer is in"
        assert "P1" in p1.locator("#log").text_content()
        _click_when_offered(p1, "no reaction")  # the moment ends: the shout is heard...
        # ... and before P2's decision a new moment asks P2 (it may point at the top card; P1 let that
        # pass already): its answer, and P2's turn comes (it waited for the window's 30 s before)
        _click_when_offered(p2, "no reaction", timeout=10)
        wait_in_page(p2, "document.getElementById('status').textContent === 'your move'", timeout=10)
    shown = _shown(p2)
    assert [s for s in shown if s[0] == "P2 to move"] == [], shown  # never its own name without its buttons
    assert any(s[0] == "answered: waiting for the others" and not s[1] for s in shown)


def test_a_question_stays_while_its_bar_runs(browser, tmp_path):
    """P2 is a bot whose decision comes after a window asking P1: P1's question (shout, or let it
    pass) stays on its page for the whole --reaction-seconds its bar shows, then goes with P2's move.
    It vanished after ~0.3 s while the bar still showed most of its time (what friends saw, 2)."""
    (tmp_path / "tell.game").write_text(TELL, encoding="utf-8")
    with Served(tmp_path / "tell.game", tmp_path / "data", "--reaction-seconds", "1.5", "--window-seconds", "30") \
            as server:
        table = create_table(server.url, 2, ["human", "random"], {"react": "true"}, seed=7)
        (p1,) = _seat_pages(browser, server.url, [table["seats"][0]["link"]])
        _record(p1)
        wait_in_page(p1, "[...document.querySelectorAll('#moves button')].some((b) => b.textContent.startsWith('play'))")
        p1.locator("#moves button", has_text="play").first.click()
        wait_in_page(p1, "window.shown.some((s) => s[1].includes('shout'))")
        assert float(p1.locator("#seconds").text_content().split()[0]) <= 1.5  # the bar's whole time
        wait_in_page(p1, "window.shown.some((s, k) => k > 0 && window.shown[k - 1][1].includes('shout') "
                         "&& !s[1].includes('shout'))")
    shown = _shown(p1)
    start = next(k for k, s in enumerate(shown) if "shout" in s[1])
    gone = next(k for k in range(start, len(shown)) if "shout" not in shown[k][1])
    assert 1300 <= shown[gone][3] - shown[start][3] <= 3000, shown[start:gone + 1]


def _call_or_check(texts: list[str]):
    for wanted in ("check", "call"):
        if wanted in texts:
            return wanted, None
    return texts[0], None


def test_hold_em_says_each_action_once_and_names_the_winning_hand(browser, tmp_path):
    """Each bet is its move's line alone (a line only for what it adds, as the bet now), and the
    showdown reads "P2 takes 12 with a pair: 7♣, 7♦, ..." (it logged each action twice, and
    said "take 24 with 2, 2, K, ..."; what friends saw, 4)."""
    with Served(GAMES / "holdem.game", tmp_path / "data", "--bot-delay", "0") as server:
        links, _ = _lobby(browser, server.url, 3, ["human", "greedy", "greedy"], {"hands": "1"}, 7)
        (page,) = _seat_pages(browser, server.url, links[:1])
        _play([page], _call_or_check, lambda: page.locator("#over").is_visible(), 90)
        lines = page.locator("#log div").all_text_contents()
    moves = [re.fullmatch(r"(P\d)(?: \(you\))?: (\w+)", t) for t in lines]
    acted = [(m[1], m[2]) for m in moves if m]
    assert len(acted) >= 6 and {verb for _, verb in acted} >= {"call", "check"}, lines
    said = [t for t, m in zip(lines, moves) if not m]
    # no line says a move again ("P2 calls" after "P2: call")
    assert not [t for t in said if re.match(r"P\d (calls|checks|folds|bets|raises)\b", t)], said
    end = [t for t in said if " with " in t or "uncontested" in t]
    assert len(end) == 1 and re.fullmatch(
        r"P\d (takes|wins) \d+ (with (a|an|two|three|four) [a-z ]+: ([2-9JQKA]|10)[♠♥♦♣](, ([2-9JQKA]|10)[♠♥♦♣]){4,6}"
        r"|uncontested)", end[0]), end


def test_sushi_go_s_round_lines_agree_with_the_scores_shown(browser, tmp_path):
    """At the end of the first round each player's line says what they score and their total, and
    the total is the score the table shows them (the line said 22 while the score rose by 25; what
    friends saw, 7)."""
    with Served(GAMES / "sushi_go.game", tmp_path / "data", "--bot-delay", "0") as server:
        links, _ = _lobby(browser, server.url, 3, ["human", "greedy", "greedy"], {}, 7)
        (page,) = _seat_pages(browser, server.url, links[:1])
        rounds = r"P\d scores \d+ \(\d+ for the tray, \d+ for the maki\): \d+ in all"
        done = lambda: len([t for t in page.locator("#log div").all_text_contents() if re.fullmatch(rounds, t)]) == 3  # noqa: E731
        _play([page], lambda texts: (texts[0], None), done, 60)
        lines = [re.fullmatch(r"(P\d) scores (\d+) \((\d+) for the tray, (\d+) for the maki\): (\d+) in all", t)
                 for t in page.locator("#log div").all_text_contents()]
        header = [th.text_content() for th in page.locator("#players th").all()]
        rows = {r.locator("td").first.text_content()[:2]: [td.text_content() for td in r.locator("td").all()]
                for r in page.locator("#players tr:has(td)").all()}
    said = [m for m in lines if m]
    assert len(said) == 3
    for m in said:
        assert int(m[2]) == int(m[3]) + int(m[4])  # the two parts make the score
        assert rows[m[1]][header.index("score")] == m[5]  # and the total is the table's
