"""A duplicate sit-and-go's page in Chromium at 1280x800 and 390x844: during round 1 its tables
show no score and cannot be watched; as the last table of a round ends the standings (totals of
the deal scores) and the per-deal table reach the open pages without a reload; screenshots of the
standings after the event (test-output/screenshots/tournament-duplicate-*.png). The tables are
played out through the play service (each seat by its own person, a beginner's choices)."""

from __future__ import annotations

import random

import pytest

from games.models import Tournament, TournamentPairing
from games.services import tournaments
from tests.factories import make_user
from tests.tournaments.test_services import play_out, seated

from .axe import serious_violations
from .table_helpers import DESKTOP, PHONE, signed_in_page
from .test_tournament_browser import play_out_and_advance, shots

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_duplicate_sit_and_go_page(live_site, browser, screenshot_dir):
    folk = [make_user(n) for n in ("anna", "bruno", "carla", "dario", "elena", "fabio", "gina", "ugo")]
    t = tournaments.create_tournament(name="Duplicato della sera", kind="sitgo", capacity=8, rounds=2,
                                      duplicate_deals=2, duplicate_scoring="mp")
    for person in folk:
        tournaments.register(tournament_id=t.pk, user=person)
    viewer = make_user("zoe")  # not entered: only watches the event's page
    ctx_a, page_a = signed_in_page(browser, live_site, viewer, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, make_user("yuri"), PHONE)
    pages = [(page_a, "1280"), (page_b, "390")]
    try:
        rng = random.Random(11)
        first = list(TournamentPairing.objects.filter(round__tournament=t).select_related("table"))
        play_out(first[0].table, rng, seated(first[0].table))
        for page, _label in pages:
            page.goto(f"{live_site}/tornei/{t.pk}/")
            page.locator("#tournament-live").wait_for()
        # Round 1 in play: one table done, no score and no "watch" link for any of them.
        assert "2 smazzate a turno" in page_a.locator("#tournament-duplicate").inner_text()
        assert page_a.locator("#rounds .pairing .score").count() == 0
        assert page_a.locator("#rounds a.small-link").count() == 0
        assert "il risultato esce a fine turno" in page_a.locator("#rounds .pairing.done").inner_text()
        assert page_a.locator("#no-deals").is_visible()
        page_a.goto(f"{live_site}/tavolo/{first[1].table_id}/")
        assert "finché tutti i tavoli del turno" in page_a.locator("#error-message").inner_text()
        assert serious_violations(page_a) == []
        page_a.goto(f"{live_site}/tornei/{t.pk}/")
        page_a.locator("#tournament-live").wait_for()
        shots(pages, screenshot_dir, "duplicate-during")

        for pairing in first[1:-1]:
            play_out(pairing.table, rng, seated(pairing.table))
        assert play_out_and_advance(first[-1].table, rng)["rounds"] == 1
        # The round's results reach the open pages live: the per-deal table of round 1.
        for page, _label in pages:
            page.locator('#deal-results .deal-round[data-round="1"]').wait_for()
            assert page.locator("#deal-results .deal-round tbody tr:not(.deal-head)").count() == 8  # 2 deals x 4 tables
        second = list(TournamentPairing.objects.filter(round__tournament=t, round__number=2).select_related("table"))
        for pairing in second[:-1]:
            play_out(pairing.table, rng, seated(pairing.table))
        assert play_out_and_advance(second[-1].table, rng)["finished"] == 1
        t.refresh_from_db()
        assert t.status == Tournament.Status.FINISHED
        for page, _label in pages:
            page.wait_for_function("document.getElementById('standings-title').textContent === 'Classifica finale'")
            page.locator('#deal-results .deal-round[data-round="2"]').wait_for()
            assert page.locator("#standings tbody tr").count() == 8
        winner = t.entries.get(final_rank=1)
        assert page_a.locator("#standings tbody tr").first.get_attribute("data-entry") == str(winner.pk)
        # What the live frames drew is what the page draws when loaded.
        cells = "#standings th, #standings td, #deal-results th, #deal-results td, #deal-results h3"
        live_cells = [" ".join(x.split()) for x in page_a.locator(cells).all_inner_texts()]
        page_a.reload()
        page_a.locator("#tournament-live").wait_for()
        assert [" ".join(x.split()) for x in page_a.locator(cells).all_inner_texts()] == live_cells
        shots(pages, screenshot_dir, "duplicate-after")
        for page, label in pages:
            for part, selector in (("standings", "#standings"), ("deals", "#deal-results")):
                page.locator(selector).screenshot(path=str(screenshot_dir / f"tournament-duplicate-{part}-{label}.png"))
        # On the phone nothing is wider than the screen but the scrolling tables themselves.
        overflow = page_b.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, overflow
        assert page_a.js_errors == [] and page_b.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()
