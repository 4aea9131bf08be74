"""Helpers for the live-table browser tests: people in browser contexts, forced positions, card clicks."""

from __future__ import annotations

import os
import re
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

from django.conf import settings
from django.test import Client

from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.models import Game, Hand, Rematch, Table
from games.services.table.seating import create_table, sit
from tests.factories import make_user

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# Cards that are not in play but make the pozzetti real (never more than two copies of a card).
POZZETTO_A = ["2S", "3C", "4S", "6D", "7C", "8S", "9S", "TS", "JC", "QS", "KH"]
POZZETTO_B = ["2D", "3H", "4D", "6S", "7D", "8H", "9H", "TH", "JH", "QH", "AC"]

# Two players: Anna (seat 0) has her pozzetto and a clean burraco, and can close on her second turn.
TWO_PLAYER_CLOSING = dict(
    hands=[["TS", "JS", "QS", "KS"], ["4C", "5C", "9D", "JD", "QH"]],
    stock=["8C", "6C", "4D", "7C"],
    discard=["3C"],
    pozzetti=[None, POZZETTO_B],
    melds=[[["3H", "4H", "5H", "6H", "7H", "8H", "9H"]], []],
    to_move=0,
)

# Four players: Anna and Carla (seats 0 and 2) have their pozzetto and a burraco; Bruno moves first
# and Anna closes at the end of the first round (see play_four_player_closing).
FOUR_PLAYER_CLOSING = dict(
    hands=[["TS", "JS", "QS", "KS"], ["4C", "5C", "9D", "JD", "QH"], ["6C", "7C", "8C", "AD"],
           ["3D", "5D", "KC", "KD"]],
    stock=["8D", "TC", "JC", "4D", "5S", "6S"],
    discard=["3C"],
    pozzetti=[None, POZZETTO_B],
    melds=[[["3H", "4H", "5H", "6H", "7H", "8H", "9H"]], []],
    to_move=1,
)


# TWO_PLAYER_CLOSING with more stock: with the classico rules a stock down to two cards would end
# the hand before Anna closes.
CLOSING_WITH_STOCK = TWO_PLAYER_CLOSING | {"stock": TWO_PLAYER_CLOSING["stock"] + ["5D", "6D", "TC"]}


def signed_in_page(browser, live_site: str, user, viewport=DESKTOP, *, tour: bool = False, **context_options):
    """A new browser context carrying `user`'s session cookie (made by Django's test client).
    `context_options` go to Playwright's new_context (e.g. reduced_motion="reduce")."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context = browser.new_context(viewport=viewport, locale="it-IT", **context_options)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_site}])
    if not tour:
        # The first visit's tour is its own test (test_table_ui.py); elsewhere it has been seen.
        context.add_init_script("try { localStorage.setItem('burraco:tour-done', '1'); } catch (e) {}")
    context.add_init_script(FRAME_RECORDER)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors  # checked at the end of each test: the page never threw
    return context, page


# Every socket's opening, closing and frames (type and version), so a wait that times out can say
# what the page had received (see wait_version).
FRAME_RECORDER = """
window.__wire = [];
(() => {
  const Native = window.WebSocket;
  const note = (entry) => { window.__wire.push([Math.round(performance.now()), ...entry]);
                            if (window.__wire.length > 60) window.__wire.shift(); };
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      note(["connect", String(args[0])]);
      this.addEventListener("open", () => note(["open"]));
      this.addEventListener("close", (e) => note(["close", e.code]));
      this.addEventListener("message", (e) => {
        try { const f = JSON.parse(e.data); note(["in", f.type, f.version ?? null]); } catch (err) { note(["in?"]); }
      });
    }
    send(data) {
      try { const f = JSON.parse(data); note(["out", f.type, f.action ? f.action.type : null]); } catch (err) {}
      return super.send(data);
    }
  };
})();
"""


@contextmanager
def present(live_site: str, table: Table, users):
    """`users` sit at `table` with a socket open each, as their own pages would have (no browser):
    the page under test sees them online, and no notice says they are away. Whatever the server
    sends them is read and dropped."""
    from websockets.sync.client import connect

    with ExitStack() as stack:
        sockets = []
        for user in users:
            client = Client()
            client.force_login(user)
            cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
            sockets.append(stack.enter_context(connect(
                f"{live_site.replace('http://', 'ws://')}/ws/table/{table.pk}/",
                additional_headers={"Origin": live_site, "Cookie": cookie},
                open_timeout=10, ping_interval=None, max_queue=None)))
        yield sockets


def page_report(page) -> str:
    """What the page shows and what its sockets carried, and the game as the database has it."""
    import re

    try:
        seen = page.evaluate(
            "() => ({version: window.burracoTable && window.burracoTable.state.version,"
            " wire: (window.__wire || []).slice(-25), now: Math.round(performance.now())})"
        )
    except Exception as exc:  # noqa: BLE001 - a report must not hide the failure it reports
        seen = {"error": str(exc)}
    found = re.search(r"/tavolo/(\d+)/", page.url)
    stored = None
    if found:
        stored = list(Game.objects.filter(table_id=int(found.group(1)))
                      .values_list("version", "to_move", "turn_deadline", "due_at"))
    return f"page {page.url}: {seen}; database (version, to_move, deadline, due_at): {stored}"


def force_position(table: Table, **setup) -> EngineGame:
    """Replace the dealt hand of `table`'s game with an exact position (engine Game.setup), keeping
    the version, so the test knows every card. Call before the pages (re)connect."""
    game = Game.objects.get(table=table)
    ruleset = Ruleset.from_dict(table.options)
    engine = EngineGame.setup(ruleset, **setup)
    game.state = engine.to_dict()
    game.to_move = engine.to_move
    game.save(update_fields=["state", "to_move", "updated_at"])
    Hand.objects.filter(game=game, number=game.hand_number).update(deal=engine.deal)
    return engine


def wait_page(page, expression: str, what: str, *, arg=None, timeout: float = 10_000) -> None:
    """page.wait_for_function, failing with what the page and the database had (page_report)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(expression, arg=arg, timeout=timeout)
    except PlaywrightTimeout:
        raise AssertionError(f"{what} not shown within {timeout / 1000:.0f} s; {page_report(page)}") from None


def wait_version(page, version: int, timeout: float = 10_000) -> None:
    wait_page(page, "v => window.burracoTable && window.burracoTable.state.version === v",
              f"version {version}", arg=version, timeout=timeout)


def wait_snapshot(page, timeout: float = 10_000) -> None:
    """The page has drawn the game from a snapshot (whatever its version)."""
    wait_page(page, "() => window.burracoTable && window.burracoTable.state.version !== null",
              "a snapshot", timeout=timeout)


def wait_my_draw(page, timeout: float = 30_000) -> None:
    """It is this page's player's turn, and the turn starts with the draw."""
    wait_page(page, "() => { const v = window.burracoTable && window.burracoTable.state.view;"
              " return Boolean(v && v.my_turn && v.phase === 'draw'); }", "my turn to draw", timeout=timeout)


def hand(page) -> list[str]:
    return page.locator("#hand .pcard").evaluate_all("els => els.map(e => e.dataset.card)")


def card(page, text: str):
    """An unselected card of our hand with this notation (there may be two copies)."""
    return page.locator(f'#hand .pcard[data-card="{text}"]:not(.selected)').first


def select(page, *cards: str) -> None:
    for text in cards:
        card(page, text).click()


def meld_cards(page, side: str) -> list[list[str]]:
    """The melds shown on one side ("us" or "them") as lists of cards."""
    return page.locator(f"#melds-{side} .meld").evaluate_all(
        "els => els.map(m => [...m.querySelectorAll('.pcard')].map(c => c.dataset.card))"
    )


def open_pane(page, pane: str) -> None:
    """Show one side pane (score, log, chat, rules, more): on a narrow screen the panes are a
    drawer opened from the bar in the table's head; on a wide one they are all in view already."""
    tab = page.locator(f'.side-tab[data-pane="{pane}"]')
    if tab.is_visible() and tab.get_attribute("aria-expanded") != "true":
        tab.click()
    page.locator(f'.board-side .panel[data-pane="{pane}"]').first.wait_for()


def close_panes(page) -> None:
    """Close the drawer of side panes if one is open (narrow screens)."""
    close = page.locator("#side-close")
    if close.is_visible():
        close.click()
    page.locator("body.side-open").wait_for(state="detached")


def shoot(page, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


@contextmanager
def celery_worker(django_db_blocker):
    """With REDIS_URL the live server has no embedded worker (production runs a separate one), so
    start a real `celery worker` on the test database for the computer players and the turn
    scheduler (a thread of the worker); without it, the server's embedded worker already plays
    them and nothing is started."""
    if not os.environ.get("REDIS_URL"):
        yield None
        return
    from tests.conftest import celery_worker_process, server_env

    with django_db_blocker.unblock():
        env = server_env({"BOT_MOVE_DELAY_SECONDS": "0.2"})
    with celery_worker_process(env, name="browser") as process:
        yield process


def play_four_player_closing(anna, bruno, carla, dario, at_anna_turn=None) -> None:
    """From FOUR_PLAYER_CLOSING, play one round through the four pages: Bruno draws and discards,
    Carla melds, Dario discards, and Anna melds, lays off and closes (version 11).
    `at_anna_turn(pages)` runs when Anna's turn has come (version 7), before she draws."""
    bruno.click("#btn-draw")
    wait_version(bruno, 1)
    select(bruno, "9D")
    bruno.click("#btn-discard")

    wait_version(carla, 2)
    carla.locator("#stock").drag_to(carla.locator("#hand"))
    wait_version(carla, 3)
    select(carla, "6C", "7C", "8C")
    carla.click("#btn-meld")
    wait_version(carla, 4)
    card(carla, "AD").drag_to(carla.locator("#discard"))

    wait_version(dario, 5)
    dario.click("#btn-draw")
    wait_version(dario, 6)
    card(dario, "3D").drag_to(dario.locator("#discard"))

    wait_version(anna, 7)
    if at_anna_turn is not None:
        at_anna_turn((anna, bruno, carla, dario))
    anna.click("#btn-draw")
    wait_version(anna, 8)
    select(anna, "TS", "JS", "QS")
    anna.click("#btn-meld")
    wait_version(anna, 9)
    card(anna, "KS").drag_to(anna.locator('#melds-us .meld[data-meld-id]').last)
    wait_version(anna, 10)
    card(anna, "4D").drag_to(anna.locator("#discard"))


def two_people(preset: str, tag: str = ""):
    """Anna (seat 0) and Bruno (seat 1) at a started table of `preset` at CLOSING_WITH_STOCK, where
    close_the_hand ends the hand (and, with one hand to play, the match). Returns (anna, bruno, table)."""
    anna, bruno = make_user(f"anna_{tag}{preset[:4]}"), make_user(f"bruno_{tag}{preset[:4]}")
    table = create_table(creator=anna, ruleset=Ruleset.preset(preset, draw_seconds=300, play_seconds=300))
    sit(table_id=table.pk, user=bruno, position=1)
    force_position(table, **CLOSING_WITH_STOCK)
    return anna, bruno, table


def close_the_hand(anna, bruno) -> None:
    """From TWO_PLAYER_CLOSING (Anna in seat 0, to move at version 0): two rounds, and Anna closes
    with 4D (version 8)."""
    anna.click("#btn-draw")
    wait_version(anna, 1)
    card(anna, "8C").drag_to(anna.locator("#discard"))
    wait_version(bruno, 2)
    bruno.click("#btn-draw")
    wait_version(bruno, 3)
    card(bruno, "9D").drag_to(bruno.locator("#discard"))
    wait_version(anna, 4)
    anna.click("#btn-draw")
    wait_version(anna, 5)
    select(anna, "TS", "JS", "QS")
    card(anna, "KS").click(button="right")
    wait_version(anna, 6)
    card(anna, "KS").drag_to(anna.locator("#melds-us .meld[data-meld-id]").last)
    wait_version(anna, 7)
    card(anna, "4D").drag_to(anna.locator("#discard"))


def play_to_the_score(live_site: str, table: Table, anna, bruno) -> None:
    """Both pages open `table` (at CLOSING_WITH_STOCK, version 0), Anna closes the hand, and
    both show its scoring."""
    for page in (anna, bruno):
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_version(page, 0)
    close_the_hand(anna, bruno)
    for page in (anna, bruno):
        page.locator("#score-dialog[open]").wait_for()


def ask_rematch(asker, asker_name: str, other, other_name: str) -> None:
    """At the end of a match: `asker` asks for a rematch and `other`'s page hears it at once."""
    asker.click("#rematch-button")
    asker.locator("#rematch-text", has_text="si aspetta").wait_for()
    assert asker.locator("#rematch-text").inner_text() == f"Rivincita chiesta: si aspetta {other_name}."
    other.locator("#rematch-text", has_text="vuole la rivincita").wait_for()
    assert other.locator("#rematch-text").inner_text() == f"{asker_name} vuole la rivincita."


def rematch_live(asker, asker_name: str, accepter, accepter_name: str, table: Table, offered=None) -> Table:
    """At the end of `table`'s match: `asker` asks for a rematch, `accepter`'s page hears it at once
    (`offered()` runs then, e.g. for screenshots) and accepts; both pages reach the new table's
    first snapshot. Returns the new table."""
    ask_rematch(asker, asker_name, accepter, accepter_name)
    if offered is not None:
        offered()
    accepter.click("#rematch-button")  # over the socket: the new table exists once the frame is back
    deadline = time.monotonic() + 10
    while (new := Rematch.objects.get(table=table).new_table) is None:
        assert time.monotonic() < deadline, "the rematch did not start"
        time.sleep(0.05)
    for page in (asker, accepter):
        page.wait_for_url(f"**/tavolo/{new.pk}/")
        wait_version(page, 0)
    return new


def log_lines(page) -> list[str]:
    """The move log's lines as read, each without the number drawn before it (its own span)."""
    return [re.sub(r"^\d+\.\s*", "", text) for text in page.locator("#move-log li").all_inner_texts()]
