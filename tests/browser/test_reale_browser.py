"""A Burraco Reale table in the browser (RULES §15): the table says which game it is, a set is
refused with Reale's own message and leaves the hand as it was, a run is laid down, and the melds
read as Reale scores them (an ace-to-king run with no pinella standing in: burraco nobile,
drawn as a clean one; a pinella standing in: sporco)."""

from __future__ import annotations

import pytest

from games.engine import Ruleset
from games.services.table.seating import create_table, sit
from tests.factories import make_user

from .table_helpers import (
    DESKTOP,
    PHONE,
    POZZETTO_B,
    card,
    force_position,
    hand,
    meld_cards,
    present,
    select,
    shoot,
    signed_in_page,
    wait_page,
    wait_version,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NOBILE = ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD"]
DIRTY = ["3H", "4H", "2C", "6H", "7H", "8H", "9H"]  # the 2 of clubs stands for the 5 of hearts


def test_a_reale_table_refuses_a_set_lays_a_run_and_names_the_burraco(live_site, browser, screenshot_dir):
    anna, bruno = make_user("anna_reale"), make_user("bruno_reale")
    table = create_table(creator=anna, ruleset=Ruleset.preset("reale", draw_seconds=300, play_seconds=300))
    sit(table_id=table.pk, user=bruno, position=1)
    force_position(table, hands=[["TS", "JS", "QS", "KS", "7C", "7H"], ["4C", "5C", "9S", "JC", "QH"]],
                   stock=["7S", "6C", "4S", "8C"], discard=["3C"], pozzetti=[None, POZZETTO_B],
                   melds=[[DIRTY], [NOBILE]], to_move=0)
    with present(live_site, table, [bruno]):
        ctx, page = signed_in_page(browser, live_site, anna, DESKTOP, reduced_motion="reduce")
        try:
            page.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_version(page, 0)
            assert "Burraco Reale" in page.text_content(".rules-line")
            assert "nobile" in page.text_content("#melds-them .meld .meld-tag").lower()
            assert "sporco" in page.text_content("#melds-us .meld .meld-tag").lower()
            assert page.locator("#melds-them .meld.burraco-pulito").count() == 1  # nobile looks clean

            page.click("#btn-draw")
            wait_version(page, 1)
            before = sorted(hand(page))
            assert before == sorted(["TS", "JS", "QS", "KS", "7C", "7H", "7S"])
            select(page, "7C", "7H", "7S")
            card(page, "KS").click(button="right")  # a right click lays the selection down: a set
            wait_page(page, "() => document.getElementById('table-error').textContent.includes('solo scale')",
                      "Reale's refusal of a set")
            assert sorted(hand(page)) == before
            assert page.evaluate("window.burracoTable.state.version") == 1

            # The refused cards stay selected, as they were: put them back before the run.
            selected = page.locator("#hand .pcard.selected")
            assert selected.count() == 3
            while selected.count():
                selected.first.click()
            select(page, "TS", "JS", "QS")
            card(page, "KS").click(button="right")
            wait_version(page, 2)
            assert ["TS", "JS", "QS"] in meld_cards(page, "us")
            assert sorted(hand(page)) == sorted(["KS", "7C", "7H", "7S"])
            shoot(page, screenshot_dir, "reale-table-desktop")
            page.set_viewport_size(PHONE)
            shoot(page, screenshot_dir, "reale-table-phone")
            assert page.js_errors == []
        finally:
            ctx.close()
