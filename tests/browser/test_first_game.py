"""A newcomer's first game (issue 29, item 3): the tour "Come si gioca qui" never runs on a clock.
At a practice table (nobody but the computer) the turn clock stands still while the tour is open
and the turn starts again with its full time when it closes; on the phone the tour never covers the
hand; at a table with people it is a link to the controls page, never an overlay."""

from __future__ import annotations

import re
import time

import pytest
from django.utils import timezone

from games.models import Game, Move, Seat, Table
from tests.factories import make_user

from .table_helpers import DESKTOP, PHONE, celery_worker, shoot, signed_in_page, two_people, wait_page, wait_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def timers(django_db_blocker):
    with celery_worker(django_db_blocker) as worker:  # Redis: a real worker plays and times turns out
        yield worker


def clock_seconds(page) -> int:
    text = page.locator("#turn-clock").inner_text().strip()
    found = re.fullmatch(r"(\d+):(\d\d)", text)
    assert found, f"no clock shown: {text!r}"
    return int(found.group(1)) * 60 + int(found.group(2))


def first_game(browser, live_site, name: str, viewport):
    """A newcomer (the tour never seen on this device) presses "Gioca subito" in the lobby."""
    user = make_user(name)
    context, page = signed_in_page(browser, live_site, user, viewport, tour=True)
    page.goto(f"{live_site}/gioca/")
    page.click("#play-computer")
    page.wait_for_url(re.compile(r".*/tavolo/\d+/$"))
    page.locator("#tour").wait_for()
    table = Table.objects.get(seats__user=user)
    return context, page, table


def test_a_newcomer_reads_the_tour_for_a_minute_and_keeps_a_full_draw_clock(live_site, browser, timers,
                                                                           screenshot_dir):
    context, page, table = first_game(browser, live_site, "nuovo_lettore", DESKTOP)
    try:
        assert table.draw_seconds == 30
        # The hold travels over the table's socket once it is open: on a loaded machine the turn
        # may have started its clock a moment before (it starts again in full when the tour ends).
        wait_page(page, "() => window.burracoTable.state.view && window.burracoTable.state.deadline === null",
                  "the clock held by the tour")
        shoot(page, screenshot_dir, "first-game-tour-1280")
        started = time.monotonic()
        steps = page.locator("#tour-count").inner_text()
        total = int(steps.split()[-1])
        assert total >= 5, steps
        assert page.locator("#tour-held").inner_text() == "Il tempo del turno è fermo finché leggi la guida."
        # Read it at a slow pace: the whole minute, step by step (a draw clock would have run out twice).
        for step in range(1, total + 1):
            assert page.locator("#tour-count").inner_text() == f"{step} di {total}"
            page.wait_for_timeout(1000)
            mine = Game.objects.get(table=table)
            if mine.to_move == 0:
                assert mine.turn_deadline is None and mine.due_at is None, "the clock runs under the tour"
            until = started + 60 * step / total
            page.wait_for_timeout(max(0, int((until - time.monotonic()) * 1000)))
            page.click("#tour-next")
        assert time.monotonic() - started >= 60
        assert page.locator("#tour").count() == 0
        # Nothing was played for the newcomer, and their turn to draw starts now with all its time.
        assert not Move.objects.filter(game__table=table, actor=Move.Actor.TIMEOUT).exists()
        wait_page(page, "() => { const v = window.burracoTable.state.view; return v && v.my_turn && v.phase === 'draw'"
                  " && window.burracoTable.state.deadline; }", "my turn to draw, on the clock")
        assert clock_seconds(page) >= 29
        assert len(page.locator("#hand .pcard").all()) == 11
        shoot(page, screenshot_dir, "first-game-after-tour-1280")
        # The tour again from its button: the clock stops again, and starts full when it closes.
        page.click("#btn-tour")
        page.locator("#tour").wait_for()
        wait_page(page, "() => window.burracoTable.state.deadline === null", "the clock stopped")
        page.click("#tour-skip")
        wait_page(page, "() => window.burracoTable.state.deadline !== null", "the clock running again")
        assert clock_seconds(page) >= 29
        # A page closed with the tour open leaves no game without its clock: back, the clock runs.
        page.click("#btn-tour")
        wait_page(page, "() => window.burracoTable.state.deadline === null", "the clock stopped")
        page.reload()
        wait_page(page, "() => window.burracoTable.state.deadline !== null", "the clock running after a reload")
        assert page.locator("#tour").count() == 0 and clock_seconds(page) >= 29
        assert page.js_errors == []
    finally:
        context.close()


def test_a_page_closed_with_the_tour_open_lets_the_clock_go_at_once(live_site, browser, timers):
    """The hold belongs to the page that asked for it: when that page goes (its socket closes),
    the turn's clock runs again within seconds, with its full time, not after a quarter of an hour."""
    context, page, table = first_game(browser, live_site, "nuovo_chiude", DESKTOP)
    open_page = True
    try:
        position = Seat.objects.get(table=table, user__username="nuovo_chiude").position
        # The newcomer's turn (the computer may play first), its clock stopped by the open tour.
        wait_page(page, "() => { const s = window.burracoTable.state;"
                  " return Boolean(s.view && s.view.my_turn && s.deadline === null); }", "my turn, the clock held",
                  timeout=30_000)
        game = Game.objects.get(table=table)
        assert game.to_move == position and game.turn_deadline is None and game.due_at is None
        assert page.locator("#tour").count() == 1
        context.close()
        open_page = False
        closed = time.monotonic()
        while (game := Game.objects.get(table=table)).turn_deadline is None:
            assert time.monotonic() - closed < 5, "the clock still held 5 s after the page closed"
            time.sleep(0.1)
        # The turn starts again with all its time, and the scheduler will look at it.
        assert game.to_move == position
        assert (game.turn_deadline - timezone.now()).total_seconds() >= 25
        assert game.due_at is not None and game.due_at <= game.turn_deadline
    finally:
        if open_page:
            context.close()


def test_on_the_phone_the_tour_never_covers_the_hand(live_site, browser, timers, screenshot_dir):
    context, page, table = first_game(browser, live_site, "nuovo_telefono", PHONE)
    try:
        total = int(page.locator("#tour-count").inner_text().split()[-1])
        for step in range(1, total + 1):
            box = page.locator("#tour").bounding_box()
            hand = page.locator("#hand").bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (step, box)
            assert box["y"] + box["height"] <= hand["y"] or box["y"] >= hand["y"] + hand["height"], (step, box, hand)
            if step in (1, 3):
                shoot(page, screenshot_dir, f"first-game-tour-{step}-390")
            page.click("#tour-next")
        assert page.locator("#tour").count() == 0
        assert page.js_errors == []
    finally:
        context.close()


def test_at_a_table_with_people_the_tour_is_a_link(live_site, browser):
    anna, bruno, table = two_people("classico", "tour")
    context, page = signed_in_page(browser, live_site, anna, DESKTOP, tour=True)
    try:
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_version(page, 0)
        page.wait_for_timeout(500)
        assert page.locator("#tour").count() == 0  # no overlay on a clock that people share
        link = page.locator("#btn-tour")
        assert link.evaluate("e => e.tagName") == "A" and link.get_attribute("href") == "/comandi/"
        deadline = Game.objects.get(table=table).turn_deadline
        assert deadline is not None
        page.evaluate("window.burracoTable.socket.send(JSON.stringify({type: 'tour', open: true}))")
        page.wait_for_timeout(500)
        assert Game.objects.get(table=table).turn_deadline == deadline  # the server refuses to stop it
        assert page.js_errors == []
    finally:
        context.close()
