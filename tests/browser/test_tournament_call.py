"""A tournament's call cannot be missed (issue 29, item 4): when round 2 is paired (by the live
server's own scheduler), a player on the lobby page and one on the tournament page get a
full-screen call with the table's link and a countdown, hear it (their pages have had a click),
and are at their tables within 3 s. A player who never sat in round 1 is named in the standings
and in that table's result as played by the computer; a tournament table's end links back to the
event and offers no rematch."""

from __future__ import annotations

import random
import re
import time

import pytest

from games.models import Seat, TournamentPairing, TournamentRound
from games.services import tournaments
from tests.factories import make_user
from tests.tournaments.test_services import play_out, seated

from .axe import serious_violations
from .table_helpers import DESKTOP, PHONE, celery_worker, signed_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_score(page) -> None:
    """A finished table's page: its scoring, open on arrival or from the bar that stays."""
    page.wait_for_function("() => document.getElementById('score-dialog').open"
                           " || !document.getElementById('finished-bar').hidden")
    if not page.evaluate("document.getElementById('score-dialog').open"):
        page.click("#finished-score")
    page.locator("#score-dialog").wait_for()


@pytest.fixture
def scheduler(django_db_blocker):
    with celery_worker(django_db_blocker) as worker:  # Redis: a real worker, whose scheduler pairs rounds
        yield worker


def test_round_two_calls_players_from_any_page_to_their_tables(live_site, browser, scheduler, screenshot_dir):
    anna, bruno, carla, dario = (make_user(n) for n in ("anna_call", "bruno_call", "carla_call", "dario_call"))
    t = tournaments.create_tournament(name="Torneo della chiamata", kind="sitgo", capacity=4)
    for person in (anna, bruno, carla, dario):
        tournaments.register(tournament_id=t.pk, user=person)  # the last place starts round 1
    first = list(TournamentPairing.objects.filter(round__tournament=t, round__number=1).select_related("table"))
    assert len(first) == 2
    annas = next(p for p in first if anna in seated(p.table).values())
    other = next(p for p in first if p is not annas)
    absent_user = seated(other.table)[1]

    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    bruno_is = bruno if bruno != absent_user else dario
    ctx_b, page_b = signed_in_page(browser, live_site, bruno_is, PHONE)
    try:
        page_a.goto(f"{live_site}/gioca/")
        page_a.locator("#lobby-live").wait_for()
        page_b.goto(f"{live_site}/tornei/{t.pk}/")
        page_b.locator("#tournament-live").wait_for()
        for page in (page_a, page_b):  # the page's socket and the bell's (the lobby's is both)
            page.wait_for_function("n => window.__wire.filter(e => e[1] === 'open').length >= n",
                                   arg=1 if page is page_a else 2)
        for page in (page_a, page_b):
            page.locator("h1").click()  # any interaction: the page may play sounds from now on

        rng = random.Random(11)
        play_out(annas.table, rng, seated(annas.table))
        play_out(other.table, rng, seated(other.table), away=1)
        # The live server's scheduler pairs round 2 (about once a second); from that moment, 3 s.
        deadline = time.monotonic() + 15
        while not TournamentRound.objects.filter(tournament=t, number=2).exists():
            assert time.monotonic() < deadline, "round 2 was not paired"
            time.sleep(0.05)
        paired = time.time()
        second = TournamentPairing.objects.filter(round__tournament=t, round__number=2)
        anna_table = next(p.table_id for p in second if Seat.objects.filter(table_id=p.table_id, user=anna).exists())
        b_table = next(p.table_id for p in second
                       if Seat.objects.filter(table_id=p.table_id, user=bruno_is).exists())

        read = ("() => { const d = document.getElementById('tournament-call-dialog');"
                " return {href: d.querySelector('#call-go').getAttribute('href'), text: d.innerText,"
                " open: d.open, played: window.burracoBell.sounds.played}; }")
        page_a.locator("#tournament-call-dialog").wait_for()
        call = page_a.evaluate(read)
        page_a.screenshot(path=str(screenshot_dir / "tournament-call-1280.png"))
        page_b.locator("#tournament-call-dialog").wait_for()
        call_b = page_b.evaluate(read)
        page_b.screenshot(path=str(screenshot_dir / "tournament-call-390.png"))
        assert call["open"] and call["href"] == f"/tavolo/{anna_table}/"
        assert "Torneo: comincia il turno 2" in call["text"] and "Torneo della chiamata" in call["text"]
        assert "Ti portiamo al tavolo tra 1 s" in call["text"]
        assert "matched" in call["played"] and "matched" in call_b["played"]
        assert call_b["href"] == f"/tavolo/{b_table}/"

        page_a.wait_for_url(re.compile(rf".*/tavolo/{anna_table}/$"), timeout=5000)
        # When the table's page was there (its document parsed), by the browser's own clock.
        timing = page_a.evaluate("[performance.timing.navigationStart, performance.timing.domContentLoadedEventEnd]")
        left, arrived = (moment / 1000 - paired for moment in timing)
        page_b.wait_for_url(re.compile(rf".*/tavolo/{b_table}/$"), timeout=5000)
        assert arrived <= 3.0, f"at the table {arrived:.1f} s after round 2 was paired (left {left:.1f} s)"
        assert page_a.locator("#tournament-call-dialog").count() == 0

        # The standings and the pairing name who never sat in round 1.
        page_a.goto(f"{live_site}/tornei/{t.pk}/")
        row = page_a.locator("#standings tbody tr", has_text=absent_user.username)
        assert "al suo posto il computer, turno 1" in row.inner_text()
        assert f"per {absent_user.username} ha giocato il computer" in page_a.locator("#rounds").inner_text()
        # That table's result says so; a tournament table's end leads back to the event, no rematch.
        page_a.goto(f"{live_site}/tavolo/{other.table_id}/")
        open_score(page_a)
        assert f"Per {absent_user.username} ha giocato il computer" in page_a.locator("#score-computer").inner_text()
        page_a.goto(f"{live_site}/tavolo/{annas.table_id}/")
        open_score(page_a)
        assert page_a.locator("#rematch-button").count() == 0
        back = page_a.locator("#score-tournament")
        assert back.is_visible() and back.get_attribute("href") == f"/tornei/{t.pk}/"
        assert serious_violations(page_a) == []
        page_a.screenshot(path=str(screenshot_dir / "tournament-table-end-1280.png"))
        assert page_a.js_errors == [] and page_b.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()
