"""Abandoning a match in Chromium: one player gives up through the confirmation dialog, the other
player and a spectator see who left and who wins, live over the WebSocket."""

from __future__ import annotations

import pytest

from games.engine import Ruleset
from games.models import Game, RatingChange, Table
from games.services.table.seating import create_table, sit
from tests.factories import make_user

from .table_helpers import DESKTOP, PHONE, shoot, signed_in_page, wait_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_one_player_abandons_and_the_other_sees_the_result(live_site, browser, screenshot_dir):
    anna, bruno, carlo = make_user("anna"), make_user("bruno"), make_user("carlo")
    ruleset = Ruleset.preset("classico", players=2, draw_seconds=300, play_seconds=300)
    table = create_table(creator=anna, ruleset=ruleset, rated=True)
    sit(table_id=table.pk, user=bruno, position=1)
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
    ctx_c, page_c = signed_in_page(browser, live_site, carlo, DESKTOP)
    try:
        for page in (page_a, page_b, page_c):
            page.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_version(page, 0)
        assert page_c.locator("#btn-abandon").count() == 0  # a spectator has nothing to abandon

        # Changing one's mind first: the dialog closes and the match goes on.
        page_a.click("#btn-abandon")
        dialog = page_a.locator("#abandon-dialog[open]")
        dialog.wait_for()
        assert "La partita finisce subito e la perdi." in dialog.inner_text()
        assert "Conta come una sconfitta in classifica." in dialog.inner_text()
        shoot(page_a, screenshot_dir, "abandon-confirm-1280")
        page_a.click("#abandon-cancel")
        page_a.locator("#abandon-dialog").wait_for(state="hidden")
        assert not Game.objects.get(table=table).finished

        page_a.click("#btn-abandon")
        page_a.click("#abandon-confirm")  # posts the form; the page comes back finished

        page_b.locator("#score-dialog[open]").wait_for()
        assert page_b.locator("#score-title").inner_text() == "Partita abbandonata"
        assert page_b.locator("#score-result").inner_text() == "anna ha abbandonato la partita. Hai vinto!"
        assert page_b.locator("#last-move").inner_text() == "anna ha abbandonato la partita."
        assert page_b.locator("#abandon-panel").is_hidden()
        assert page_b.locator("#status-tag").inner_text() == "Finita"
        shoot(page_b, screenshot_dir, "abandon-other-390")
        page_c.locator("#score-dialog[open]").wait_for()
        assert page_c.locator("#score-result").inner_text() == "anna ha abbandonato la partita. Vince bruno."

        page_a.locator("#score-dialog[open]").wait_for()
        assert page_a.locator("#score-result").inner_text() == "Hai abbandonato la partita. Vince bruno."
        assert "Hai abbandonato la partita." in page_a.locator(".messages").inner_text()
        assert page_a.locator("#btn-abandon").count() == 0
        shoot(page_a, screenshot_dir, "abandon-self-1280")

        game = Game.objects.get(table=table)
        assert game.finished and game.abandoned_by_id == anna.pk and game.winner_side == 1
        assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
        assert dict(RatingChange.objects.filter(game=game).values_list("user__username", "score")) == {
            "anna": 0.0, "bruno": 1.0}

        # Closing the dialog: nobody is to move any more; the game page says who abandoned.
        page_b.click("#score-close")
        assert page_b.locator("#turn-label").inner_text() == "Partita finita."
        assert page_b.locator("#game .seat-box.to-move").count() == 0
        page_b.goto(f"{live_site}/storico/partita/{game.pk}/")
        assert "anna ha abbandonato la partita" in page_b.locator("#result").inner_text()
        assert page_a.js_errors == [] and page_b.js_errors == [] and page_c.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()
        ctx_c.close()
