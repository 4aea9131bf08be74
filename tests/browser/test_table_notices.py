"""Telling the player what happened (issue 12, item 7), with the real timers: the server plays a
turn whose time ran out, then covers the seat with the computer, a player goes away during
their turn; each page says so in words that stay, the tab title and a notification (when the
tab is hidden and the player allowed them) say it is your turn. Desktop and phone."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from games.engine import Ruleset
from games.models import Game, Seat
from games.services.table.seating import create_table, sit
from tests.factories import make_user

from .table_helpers import (
    DESKTOP,
    PHONE,
    POZZETTO_A,
    POZZETTO_B,
    card,
    celery_worker,
    force_position,
    log_lines,
    select,
    shoot,
    signed_in_page,
    two_people,
    wait_version,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A Notification the test can read: granted, and every notice recorded (headless Chromium has none).
NOTIFICATION_STUB = """
window.__notes = []; window.__asked = 0;
let stubPermission = "default";
try { stubPermission = localStorage.getItem("stub-permission") || "default"; } catch (e) {}
window.Notification = class {
  static permission = stubPermission;
  static requestPermission() { window.__asked += 1; return Promise.resolve(this.permission); }
  constructor(title, options) { window.__notes.push(title); }
};
"""


@pytest.fixture
def timers(django_db_blocker):
    with celery_worker(django_db_blocker) as worker:  # Redis: a real worker; its scheduler times turns out
        yield worker


def time_runs_out(table) -> None:
    """The turn's deadline has passed: the scheduler (about once a second) completes the turn."""
    past = timezone.now() - timedelta(seconds=1)
    Game.objects.filter(table=table).update(turn_deadline=past, due_at=past)


def notice_texts(page) -> list[str]:
    return page.locator("#notices .notice-text").all_inner_texts()


def test_timeouts_covers_and_absences_are_told(live_site, browser, screenshot_dir, timers):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = create_table(creator=anna, ruleset=Ruleset.preset("classico", draw_seconds=300, play_seconds=300))
    sit(table_id=table.pk, user=bruno, position=1)
    force_position(
        table,
        hands=[["5H", "7H", "8H", "9H", "KS", "KD", "KC", "4C", "JS", "QD", "3S"],
               ["5S", "6S", "7S", "9C", "9D", "AS", "AD", "4H", "TD", "6C", "8D"]],
        stock=["6H", "3D", "8C", "TC", "5C", "JD", "7D", "4S", "QH", "2C"],
        discard=["QC"], pozzetti=[POZZETTO_A, POZZETTO_B], to_move=0,
    )
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
    ctx_a.add_init_script(NOTIFICATION_STUB)
    ctx_b.add_init_script("localStorage.setItem('stub-permission', 'granted');" + NOTIFICATION_STUB)
    try:
        for page in (page_a, page_b):
            page.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_version(page, 0)
        # Notifications are offered, never asked for by themselves.
        assert page_a.locator("#btn-notify").is_visible()
        # already allowed: nothing to ask (the attribute: the phone's drawer of panes is closed anyway)
        assert page_b.locator("#btn-notify[hidden]").count() == 1
        # Bruno's tab goes to the background: his turn will come as a notification.
        page_b.evaluate("Object.defineProperty(document, 'hidden', {configurable: true, get: () => true})")

        # Anna lets her time run out: the server draws and discards for her, and both pages say so.
        time_runs_out(table)
        wait_version(page_a, 2, timeout=20_000)
        page_a.locator(".notice-timeout").wait_for()
        assert notice_texts(page_a) == ["Tempo scaduto: il server ha pescato e scartato per te."]
        wait_version(page_b, 2)
        page_b.locator(".notice-timeout").wait_for()
        assert notice_texts(page_b) == ["Tempo scaduto per anna: il server ha finito il turno."]
        lines = log_lines(page_b)
        assert lines[0] == "anna pesca dal tallone (tempo scaduto)"
        assert lines[1].startswith("anna scarta ") and lines[1].endswith(" (tempo scaduto)")
        assert page_b.evaluate("window.__notes") == ["Tocca a te"]
        assert page_a.evaluate("window.__asked") == 0
        shoot(page_a, screenshot_dir, "notice-timeout-1280")
        page_b.screenshot(path=str(screenshot_dir / "notice-timeout-390.png"))

        # Bruno plays his turn; the notice on his page can be closed.
        page_b.locator("#notices .notice-close").click()
        assert notice_texts(page_b) == []
        page_b.click("#btn-draw")
        wait_version(page_b, 3)
        page_b.locator("#hand .pcard").first.click()
        page_b.click("#btn-discard")
        wait_version(page_a, 4)

        # A second timeout in a row: the computer covers Anna's seat until she is back.
        time_runs_out(table)
        page_b.locator(".notice-cover").wait_for(timeout=20_000)
        assert "Il computer gioca per anna finché non torna." in notice_texts(page_b)
        page_a.locator(".notice-cover").wait_for()
        assert "Il computer gioca per te finché non torni: premi «Sono tornato»." in notice_texts(page_a)
        assert page_a.locator("#back-wrap").is_visible()
        page_b.screenshot(path=str(screenshot_dir / "notice-cover-390.png"))
        page_a.click("#btn-back")
        page_a.locator(".notice-cover").wait_for(state="detached")
        page_b.locator(".notice-cover").wait_for(state="detached")
        assert not Seat.objects.get(table=table, position=0).covered_by_computer

        # Bruno goes away during his turn: Anna sees him away, and the time before the computer plays.
        wait_version(page_a, 6)
        assert Game.objects.get(table=table).to_move == 1
        ctx_b.close()
        away = page_a.locator(".notice-away")
        away.wait_for()
        first = away.inner_text()
        assert re.fullmatch(r"bruno non è in linea: tra 0:[0-4]\d il computer gioca al suo posto\.", first), first
        page_a.wait_for_function("t => document.querySelector('.notice-away').textContent !== t", arg=first)
        shoot(page_a, screenshot_dir, "notice-away-1280")
        # Anna asks for notifications herself, once.
        page_a.click("#btn-notify")
        page_a.locator("#btn-notify").wait_for(state="hidden")
        assert page_a.evaluate("window.__asked") == 1
        assert page_a.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()


def test_the_computer_playing_for_someone_who_never_sat_is_told_live(live_site, browser, screenshot_dir, timers):
    """Bruno never opens the table: the timer plays his turn. When Anna closes the match's one
    hand, her page says at once, without a reload, that the computer played for him, and so does a
    spectator's page in English; the page opened afterwards says the same."""
    anna, bruno, table = two_people("mano_unica", "never")
    carlo = make_user("carlo_never")
    type(carlo).objects.filter(pk=carlo.pk).update(language="en")
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_c, page_c = signed_in_page(browser, live_site, carlo, PHONE)
    try:
        for page in (page_a, page_c):
            page.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_version(page, 0)
        assert page_a.locator("#score-computer:visible").count() == 0
        page_a.click("#btn-draw")
        wait_version(page_a, 1)
        card(page_a, "8C").drag_to(page_a.locator("#discard"))
        wait_version(page_a, 2)
        time_runs_out(table)  # Bruno's turn: the server draws and discards for him
        wait_version(page_a, 4, timeout=20_000)
        page_a.click("#btn-draw")
        wait_version(page_a, 5)
        select(page_a, "TS", "JS", "QS")
        page_a.click("#btn-meld")
        wait_version(page_a, 6)
        card(page_a, "KS").drag_to(page_a.locator("#melds-us .meld[data-meld-id]").last)
        wait_version(page_a, 7)
        card(page_a, "4D").drag_to(page_a.locator("#discard"))  # Anna closes: the match is over
        wanted = f"Per {bruno.username} ha giocato il computer: non si è mai seduto al tavolo."
        for page, text in ((page_a, wanted),
                           (page_c, f"The computer played for {bruno.username}, who never sat down at the table.")):
            page.locator("#score-dialog[open]").wait_for()
            line = page.locator("#score-computer")
            line.wait_for(state="visible", timeout=5000)
            assert line.inner_text() == text
        shoot(page_a, screenshot_dir, "computer-for-live-1280")
        page_c.screenshot(path=str(screenshot_dir / "computer-for-live-390-en.png"))
        # The same words on the page opened now.
        page_a.reload()
        page_a.wait_for_function("() => document.getElementById('score-dialog').open"
                                 " || !document.getElementById('finished-bar').hidden")
        if not page_a.evaluate("document.getElementById('score-dialog').open"):
            page_a.click("#finished-score")
        assert page_a.locator("#score-computer").inner_text() == wanted
        assert page_a.js_errors == [] and page_c.js_errors == []
    finally:
        ctx_a.close()
        ctx_c.close()
