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
