"""The table page shows the hand's commitment (the seed's SHA-256) from its first snapshot, and
never the seed (docs/fairness.md)."""

from __future__ import annotations

import pytest

from games.models import Hand
from games.services.table.seating import play_against_computer
from tests.factories import make_user

from .table_helpers import DESKTOP, signed_in_page, wait_snapshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_table_shows_the_deals_hash_and_not_its_seed(live_site, browser):
    anna = make_user("anna")
    table = play_against_computer(user=anna, level="principiante", preset="classico")
    hand = Hand.objects.get(game__table=table, number=1)
    ctx, page = signed_in_page(browser, live_site, anna, DESKTOP)
    try:
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_snapshot(page)
        page.wait_for_selector("#deal-hash:not([hidden])", state="attached")
        assert page.get_attribute("#deal-hash-value", "title") == hand.deal["commitment"]["hash"]
        assert page.text_content("#deal-hash-value") == hand.deal["commitment"]["hash"][:16] + "…"
        assert hand.seed not in page.content()
    finally:
        ctx.close()


def test_a_seated_player_sets_a_seed_for_the_next_deal_from_the_table(live_site, browser):
    """The score panel's field: a bad seed is refused in Italian and changes nothing; a good one
    goes with a `hello` to the player's seat, where the next deal reads it."""
    from games.models import Seat
    from games.services.table.fairness import draw_for
    from tests.timers.conftest import wait_for

    anna = make_user("anna")
    table = play_against_computer(user=anna, level="principiante", preset="classico")
    ctx, page = signed_in_page(browser, live_site, anna, DESKTOP)
    try:
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_snapshot(page)
        page.fill("#client-seed", "due parole")
        page.click("#client-seed-send")
        assert "senza spazi" in page.text_content("#client-seed-status")
        assert "has-error" in page.get_attribute("#client-seed-form", "class")
        page.fill("#client-seed", "mio-seme-42")
        page.click("#client-seed-send")
        assert "prossima mano" in page.text_content("#client-seed-status")
        mine = wait_for(lambda: Seat.objects.filter(table=table, position=0, client_seed="mio-seme-42").first(),
                        what="the seed on the seat")
        assert mine.user_id == anna.pk
        assert draw_for(Seat.objects.filter(table=table)).fair.client_seeds == ("mio-seme-42", "")
        page.screenshot(path="test-output/screenshots/table-client-seed-1280.png")
        assert page.js_errors == []
    finally:
        ctx.close()
