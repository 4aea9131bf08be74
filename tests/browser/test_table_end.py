"""The end of a hand and of a match (issue 12, bug 1 and item 13), desktop and phone: the scoring
stays until dismissed with the next hand's clock running inside it, the finished table can be
looked at, the next deal marks no card as new; at the end of the match "Partita finita", a
rematch both accept (same seats and options, the other side opens) and the way back to the lobby."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from games.models import Game, Hand, Table

from .axe import serious_violations
from .table_helpers import (
    DESKTOP,
    PHONE,
    hand,
    play_to_the_score,
    rematch_live,
    shoot,
    signed_in_page,
    two_people,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLOCK = re.compile(r"\d+:\d\d")


def test_the_scoring_the_next_hand_and_a_rematch(live_site, browser, screenshot_dir):
    anna, bruno, table = two_people("classico")  # to 2005: the match goes on to hand 2
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
    try:
        play_to_the_score(live_site, table, page_a, page_b)
        for page in (page_a, page_b):
            page.locator("#score-next").wait_for()
        game = Game.objects.get(table=table)
        assert game.hand_number == 2
        # The next hand's first draw has the scoring's extra time, and its clock runs in the dialog.
        left = (game.turn_deadline - timezone.now()).total_seconds()
        assert 300 < left <= 315
        first = game.to_move
        opener, other = (page_a, page_b) if first == 0 else (page_b, page_a)
        assert opener.locator("#score-next.mine").is_visible()
        assert opener.locator("#score-next-text").inner_text() == "Mano 2: tocca a te pescare, il tempo corre già."
        assert CLOCK.fullmatch(opener.locator("#score-clock").inner_text())
        assert other.locator("#score-next-text").inner_text().startswith("Mano 2: comincia ")
        assert page_a.locator("#score-close").inner_text() == "Vai alla mano 2"
        # Behind the scoring the finished hand is still on the table: Anna's melds, her empty hand.
        assert page_a.locator("#melds-us .meld").count() == 2 and hand(page_a) == []
        shoot(page_a, screenshot_dir, "end-score-1280")
        page_b.screenshot(path=str(screenshot_dir / "end-score-390.png"))
        assert serious_violations(page_a) == []

        # Anna puts the scoring aside to look at the finished table; the next hand's clock goes on.
        page_a.click("#score-review")
        banner = page_a.locator("#review-banner")
        banner.wait_for()
        assert "fine della mano 1" in page_a.locator("#review-text").inner_text()
        assert page_a.locator("#review-continue").inner_text().startswith("Vai alla mano 2 ")
        assert page_a.locator("#melds-us .meld").count() == 2
        assert page_a.locator("#move-log li").last.inner_text().endswith("— chiude la mano")  # hand 1's moves
        shoot(page_a, screenshot_dir, "end-review-1280")
        page_a.click("#review-score")  # and back to the scoring
        page_a.locator("#score-dialog[open]").wait_for()
        page_a.click("#score-close")

        # The next deal: eleven cards, none marked as new; the totals carried over.
        for page in (page_a, page_b):
            if page is page_b:
                page.click("#score-close")
            page.wait_for_function("document.querySelectorAll('#hand .pcard').length === 11")
            assert page.locator("#hand .pcard.fresh").count() == 0
            assert "Mano 2" in page.locator("#hand-number").inner_text()
            assert page.locator("#melds-us .meld").count() == 0
            assert page.locator("#move-log li.empty-note").count() == 1
        assert page_a.locator("#totals").inner_text().split()[-3:] == ["385", bruno.username, "-135"]
        assert page_a.js_errors == [] and page_b.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()

    anna, bruno, table = two_people("mano_unica")  # one hand: the match ends with it
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
    try:
        play_to_the_score(live_site, table, page_a, page_b)
        for page in (page_a, page_b):
            page.locator("#rematch-box").wait_for()
            assert page.locator("#score-result").inner_text().startswith("Partita finita.")
            assert page.locator("#score-lobby").is_visible()
            assert page.locator("#score-next").is_hidden()
            assert page.locator("#turn-label").inner_text() == "Partita finita."
        first = Hand.objects.get(game__table=table, number=1).deal["to_move"]

        # Bruno asks for a rematch; Anna's page hears it at once and she accepts.
        def offered() -> None:
            shoot(page_a, screenshot_dir, "end-rematch-1280")
            page_b.screenshot(path=str(screenshot_dir / "end-rematch-390.png"))

        # Both land on the new table: same seats, same rules, the other side opens.
        new = rematch_live(page_b, bruno.username, page_a, anna.username, table, offered)
        assert new.status == Table.Status.PLAYING and new.options == Table.objects.get(pk=table.pk).options
        assert [s.user_id for s in new.seats.order_by("position")] == [anna.pk, bruno.pk]
        assert Game.objects.get(table=new).to_move == (first + 1) % 2
        assert page_b.locator("#slot-bottom .seat-box-name").inner_text() == f"{bruno.username} (tu)"
        assert page_a.js_errors == [] and page_b.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()
