"""Two Daphne processes on PostgreSQL + Redis, one player's browser on each: whole hands.

This is how the site scales out (deploy/nginx.conf): any process serves any table, so a
2-player and a 4-player hand must play to the scoring with the players split between processes.
"""

from __future__ import annotations

import pytest

from games.engine import Ruleset
from games.models import Table
from games.services.table.seating import create_table, sit
from tests.factories import make_user

from .table_helpers import (
    DESKTOP,
    FOUR_PLAYER_CLOSING,
    PHONE,
    TWO_PLAYER_CLOSING,
    card,
    force_position,
    play_four_player_closing,
    select,
    shoot,
    signed_in_page,
    wait_version,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_two_players_on_two_servers_play_a_whole_hand(live_site, second_live_site, browser, screenshot_dir):
    anna, bruno = make_user("anna2s"), make_user("bruno2s")
    table = create_table(creator=anna, ruleset=Ruleset.preset("mano_unica", draw_seconds=300, play_seconds=300))
    sit(table_id=table.pk, user=bruno, position=1)
    force_position(table, **TWO_PLAYER_CLOSING)
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, second_live_site, bruno, PHONE)
    try:
        page_a.goto(f"{live_site}/tavolo/{table.pk}/")
        page_b.goto(f"{second_live_site}/tavolo/{table.pk}/")
        wait_version(page_a, 0)
        wait_version(page_b, 0)

        page_a.click("#btn-draw")
        wait_version(page_a, 1)
        card(page_a, "8C").drag_to(page_a.locator("#discard"))
        wait_version(page_b, 2)  # Bruno's server relays Anna's discard
        assert page_b.locator("#discard .pcard").last.get_attribute("data-card") == "8C"
        page_b.click("#btn-draw")
        wait_version(page_b, 3)
        card(page_b, "9D").drag_to(page_b.locator("#discard"))

        wait_version(page_a, 4)
        page_a.click("#btn-draw")
        wait_version(page_a, 5)
        select(page_a, "TS", "JS", "QS")
        page_a.click("#btn-meld")
        wait_version(page_a, 6)
        card(page_a, "KS").drag_to(page_a.locator("#melds-us .meld[data-meld-id]").last)
        wait_version(page_a, 7)
        card(page_a, "4D").drag_to(page_a.locator("#discard"))

        for page in (page_a, page_b):
            page.locator("#score-dialog[open]").wait_for()
        assert page_b.locator("#score-table tr.total td").all_inner_texts() == ["385", "-135"]
        assert "Vince anna2s" in page_b.locator("#score-result").inner_text()
        shoot(page_b, screenshot_dir, "two-servers-score-390")
        table.refresh_from_db()
        assert table.status == Table.Status.FINISHED
        assert page_a.js_errors == [] and page_b.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()


def test_four_players_split_over_two_servers_play_a_whole_hand(live_site, second_live_site, browser):
    users = [make_user(n) for n in ("anna4s", "bruno4s", "carla4s", "dario4s")]
    table = create_table(creator=users[0], ruleset=Ruleset.preset("classico", players=4, draw_seconds=300,
                                                                    play_seconds=300))
    for position in (1, 2, 3):
        sit(table_id=table.pk, user=users[position], position=position)
    force_position(table, **FOUR_PLAYER_CLOSING)
    sites = [live_site, second_live_site, live_site, second_live_site]  # partners on different servers
    opened = [signed_in_page(browser, site, user, DESKTOP) for site, user in zip(sites, users, strict=True)]
    anna, bruno, carla, dario = (page for _ctx, page in opened)
    try:
        for page, site in zip((anna, bruno, carla, dario), sites, strict=True):
            page.goto(f"{site}/tavolo/{table.pk}/")
            wait_version(page, 0)

        def carla_meld_crossed_servers(_pages):
            assert anna.locator("#melds-us .meld").count() == 2  # Carla is on the other server

        play_four_player_closing(anna, bruno, carla, dario, carla_meld_crossed_servers)
        for page in (anna, bruno, carla, dario):
            page.locator("#score-dialog[open]").wait_for()
        assert dario.locator("#score-table tr.total td").all_inner_texts() == ["395", "-175"]
        for page in (anna, bruno, carla, dario):
            assert page.js_errors == []
    finally:
        for ctx, _page in opened:
            ctx.close()
