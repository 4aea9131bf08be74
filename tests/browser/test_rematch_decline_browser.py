"""A rematch declined and a rematch that ends because a player left, in two browsers (Anna on a
desktop, Bruno on a phone), over the real table socket: the offerer's page hears the "No, grazie"
at once, the buttons go away on both pages, and no new table is made."""

from __future__ import annotations

import time

import pytest

from games.models import Rematch, Table

from .table_helpers import (
    DESKTOP,
    PHONE,
    ask_rematch,
    close_the_hand,
    shoot,
    signed_in_page,
    two_people,
    wait_version,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def at_the_end(browser, live_site, tag: str):
    """Anna (desktop) and Bruno (phone) at a one-hand table, played to the end of the match."""
    anna, bruno, table = two_people("mano_unica", tag)
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
    for page in (page_a, page_b):
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_version(page, 0)
    close_the_hand(page_a, page_b)
    for page in (page_a, page_b):
        page.locator("#rematch-box").wait_for()
    return anna, bruno, table, (ctx_a, page_a), (ctx_b, page_b)


def test_a_rematch_declined_is_heard_at_once_by_the_offerer(live_site, browser, screenshot_dir):
    anna, bruno, table, (ctx_a, page_a), (ctx_b, page_b) = at_the_end(browser, live_site, "d")
    try:
        # Nobody asked yet: nothing to say no to.
        assert page_a.locator("#rematch-decline").is_hidden() and page_b.locator("#rematch-decline").is_hidden()
        # Anna asks; Bruno's phone hears it with both answers, Anna's desktop has neither.
        ask_rematch(page_a, anna.username, page_b, bruno.username)
        assert page_b.locator("#rematch-button").is_visible() and page_b.locator("#rematch-decline").is_visible()
        assert page_b.locator("#rematch-decline").inner_text() == "No, grazie"
        assert page_a.locator("#rematch-button").is_hidden() and page_a.locator("#rematch-decline").is_hidden()
        page_b.screenshot(path=str(screenshot_dir / "rematch-offered-390.png"))

        page_b.evaluate("window.stillHere = true")  # gone if the page loaded again
        started = time.monotonic()
        page_b.click("#rematch-decline")
        said = f"{bruno.username} ha detto di no alla rivincita."
        page_a.locator("#rematch-text", has_text=said).wait_for()
        heard = time.monotonic() - started
        assert heard < 2.0, heard  # Bruno's frame to the server, the frame back to Anna
        assert page_a.locator("#rematch-text").inner_text() == said
        assert page_a.locator("#rematch-button").is_hidden() and page_a.locator("#rematch-decline").is_hidden()
        assert page_a.locator("#score-lobby").is_visible()  # the way back to the tables stays
        # Bruno's page says what he did; no buttons either.
        page_b.locator("#rematch-text", has_text="Hai detto di no alla rivincita.").wait_for()
        assert page_b.locator("#rematch-button").is_hidden() and page_b.locator("#rematch-decline").is_hidden()
        assert page_b.evaluate("window.stillHere === true")  # said over the socket, not by the form
        shoot(page_a, screenshot_dir, "rematch-declined-1280")
        page_b.screenshot(path=str(screenshot_dir / "rematch-declined-390.png"))

        offer = Rematch.objects.get(table=table)
        assert (offer.ended, offer.ended_by, offer.new_table_id) == ("declined", 1, None)
        assert Table.objects.filter(creator=anna).count() == 1
        assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
        assert page_a.js_errors == [] and page_b.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()


def test_a_rematch_offer_ends_when_the_other_player_leaves(live_site, browser, screenshot_dir):
    anna, bruno, table, (ctx_a, page_a), (ctx_b, page_b) = at_the_end(browser, live_site, "l")
    try:
        ask_rematch(page_a, anna.username, page_b, bruno.username)
        # Bruno goes back to the lobby: his socket at the table closes and does not come back.
        page_b.click("#score-lobby")
        page_b.wait_for_url("**/gioca/")
        left = f"{bruno.username} ha lasciato il tavolo: niente rivincita questa volta."
        page_a.locator("#rematch-text", has_text=left).wait_for(timeout=10_000)
        assert page_a.locator("#rematch-button").is_hidden() and page_a.locator("#rematch-decline").is_hidden()
        shoot(page_a, screenshot_dir, "rematch-left-1280")
        offer = Rematch.objects.get(table=table)
        assert (offer.ended, offer.ended_by, offer.new_table_id) == ("left", 1, None)

        # Bruno comes back to the finished table: the offer is over for him too, nothing to accept.
        page_b.goto(f"{live_site}/tavolo/{table.pk}/")
        page_b.locator("#rematch-text", has_text="Hai lasciato il tavolo: niente rivincita questa volta.").wait_for()
        assert page_b.locator("#rematch-button").is_hidden()
        page_b.screenshot(path=str(screenshot_dir / "rematch-left-390.png"))
        assert page_a.js_errors == [] and page_b.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()
