"""A sit-and-go's page in Chromium, before, during and after, at 1280x800 and 390x844: Bruno takes
the last place from his phone, both pages see round 1 paired live over the lobby socket and Anna
is called to her table (a notice and the sound); the results, round 2 and the final standings
reach the open pages without a reload. (The round's call takes Anna's page to her table: she
comes back to the event's page.) The tables are played out here through the play service
(each seat by its own person, a beginner's choices), the round paired by the scheduler's pass."""

from __future__ import annotations

import random

import pytest

from games.models import Tournament, TournamentPairing
from games.services import tournaments
from tests.factories import make_user
from tests.tournaments.test_services import play_out, seated

from .axe import serious_violations
from .table_helpers import DESKTOP, PHONE, signed_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A tournament's call takes the page to its table a second after it shows (static/js/bell.js): too
# soon for a test that does anything else meanwhile to read it on screen, and a page whose way to
# the table is held (page.route) answers no page.evaluate at all. So the page notes, in its
# sessionStorage (which the table's page still reads), what the call showed the moment it opened.
CALL_RECORDER = """
new MutationObserver(() => {
  const dialog = document.getElementById("tournament-call-dialog");
  if (!dialog || !dialog.open || dialog.dataset.recorded) return;
  dialog.dataset.recorded = "1";
  sessionStorage.setItem("test:call", JSON.stringify({
    href: document.getElementById("call-go").getAttribute("href"),
    played: window.burracoBell.sounds.played,
  }));
}).observe(document, { childList: true, subtree: true });
"""


def play_out_and_advance(table, rng) -> dict[str, int]:
    """The last table of a round played out (`play_out`) and the scheduler's pass run here, which
    commits with the action that ends the match; returns what the pass did. In the default mode
    the live server's embedded worker runs a scheduler too, about once a second: run apart, its
    pass could see the round over first and pair it (or end the event) itself."""
    done: list[dict[str, int]] = []
    play_out(table, rng, seated(table), then=lambda: done.append(tournaments.advance()))
    return done[0]


def shots(pages, screenshot_dir, moment: str) -> None:
    for page, label in pages:
        page.screenshot(path=str(screenshot_dir / f"tournament-{moment}-{label}.png"), full_page=True)
        assert serious_violations(page) == [], (moment, label)


def test_a_sit_and_go_page_before_during_and_after(live_site, browser, screenshot_dir):
    anna, bruno, carla, dario = (make_user(n) for n in ("anna", "bruno", "carla", "dario"))
    t = tournaments.create_tournament(name="Sit and go della sera", kind="sitgo", capacity=4,
                                      description="Quattro giocatori, due turni da una mano.")
    for person in (anna, carla, dario):
        tournaments.register(tournament_id=t.pk, user=person)
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    page_a.add_init_script(CALL_RECORDER)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
    pages = [(page_a, "1280"), (page_b, "390")]
    try:
        for page, _label in pages:
            page.goto(f"{live_site}/tornei/{t.pk}/")
            page.locator("#tournament-live").wait_for()
        assert "3 iscritti su 4" in page_a.locator("#tournament-entrants").inner_text()
        assert page_a.locator("#withdraw-button").is_visible()
        assert page_b.locator("#register-button").is_visible()
        shots(pages, screenshot_dir, "before")

        page_b.click("#register-button")  # the last place: the event starts in this request
        page_b.wait_for_load_state()
        assert "Iscrizione fatta" in page_b.locator(".messages").inner_text()
        page_b.locator("#tournament-live").wait_for()
        # Anna's page heard it live: the full-screen call to her table, its sound, then the table.
        mine = TournamentPairing.objects.filter(round__tournament=t, table__seats__user=anna).get()
        page_a.wait_for_url(f"**/tavolo/{mine.table_id}/")
        call = page_a.evaluate("JSON.parse(sessionStorage.getItem('test:call'))")
        assert call is not None, "no call was shown"
        assert call["played"].count("matched") == 1
        assert call["href"] == f"/tavolo/{mine.table_id}/"
        # Back on the event's page: round 1, and her call to the table standing there.
        page_a.goto(f"{live_site}/tornei/{t.pk}/")
        page_a.locator("#tournament-live").wait_for()
        page_a.locator("#tournament-call").wait_for()
        page_a.locator('#rounds .round[data-round="1"]').wait_for()
        assert page_a.locator("#rounds .pairing").count() == 2
        assert page_a.locator("#tournament-call-link").get_attribute("href") == f"/tavolo/{mine.table_id}/"
        assert page_b.locator("#tournament-call").is_visible()  # his page came back with the call

        rng = random.Random(7)
        first = list(TournamentPairing.objects.filter(round__tournament=t).select_related("table"))
        play_out(first[0].table, rng, seated(first[0].table))
        page_a.locator("#rounds .pairing.done").wait_for()
        anna_done = first[0].table_id == mine.table_id
        assert page_a.locator("#tournament-call").is_hidden() == anna_done  # her call ends with her table
        for page, _label in pages:
            page.locator("#rounds .pairing.done .score").wait_for()
        shots(pages, screenshot_dir, "during")

        assert play_out_and_advance(first[1].table, rng)["rounds"] == 1
        # Round 2's call takes both pages to their new tables; they come back to the event's page.
        for page, person in ((page_a, anna), (page_b, bruno)):
            table_id = TournamentPairing.objects.get(round__tournament=t, round__number=2,
                                                     table__seats__user=person).table_id
            page.wait_for_url(f"**/tavolo/{table_id}/")
            page.goto(f"{live_site}/tornei/{t.pk}/")
            page.locator("#tournament-live").wait_for()
        page_a.locator('#rounds .round[data-round="2"]').wait_for()
        *others, last = TournamentPairing.objects.filter(round__tournament=t, round__number=2).select_related("table")
        for pairing in others:
            play_out(pairing.table, rng, seated(pairing.table))
        assert play_out_and_advance(last.table, rng)["finished"] == 1
        t.refresh_from_db()
        assert t.status == Tournament.Status.FINISHED
        for page, _label in pages:
            page.wait_for_function("document.getElementById('standings-title').textContent === 'Classifica finale'")
            assert page.locator("#standings tbody tr").count() == 4
            assert page.locator("#rounds .pairing.done").count() == 4
            assert page.locator("#tournament-call").is_hidden() and page.locator("#tournament-actions").is_hidden()
        winner = t.entries.get(final_rank=1)
        assert page_a.locator("#standings tbody tr").first.get_attribute("data-entry") == str(winner.pk)
        shots(pages, screenshot_dir, "after")

        page_a.goto(f"{live_site}/tornei/")
        assert "Sit and go della sera" in page_a.locator("#past-tournaments").inner_text()
        page_a.screenshot(path=str(screenshot_dir / "tournament-list-1280.png"))
        page_a.goto(f"{live_site}/giocatori/anna/")
        assert "Sit and go della sera" in page_a.locator("#profile-tournaments").inner_text()
        assert page_a.js_errors == [] and page_b.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()
