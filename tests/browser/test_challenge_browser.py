"""Challenges in Chromium (issue 14 item 3): Anna challenges Bruno from his profile; Bruno's lobby
(desktop and phone) shows the invitation live with Accetta/Rifiuta; he accepts and both pages go
to one private, unrated table."""

from __future__ import annotations

import re

import pytest

from games.models import Challenge, Table
from tests.factories import make_user

from .axe import serious_violations
from .table_helpers import DESKTOP, PHONE, signed_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_challenge_from_the_profile_reaches_the_lobby_live_and_is_accepted(live_site, browser, screenshot_dir):
    anna, bruno = make_user("anna"), make_user("bruno")
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, DESKTOP)
    ctx_p, page_p = signed_in_page(browser, live_site, bruno, PHONE)
    try:
        for page in (page_b, page_p):
            page.goto(f"{live_site}/gioca/")
            page.locator("#lobby-live").wait_for()
        assert page_b.locator("#invitations").is_hidden()

        page_a.goto(f"{live_site}/giocatori/bruno/")
        page_a.click("details.challenge > summary")
        page_a.select_option("details.challenge select[name=preset]", "mano_unica")
        page_a.screenshot(path=str(screenshot_dir / "challenge-profile-1280.png"))
        assert serious_violations(page_a) == []
        page_a.click("details.challenge button[type=submit]")
        page_a.wait_for_url(f"{live_site}/gioca/")
        assert "Invito mandato a bruno" in page_a.locator(".messages").inner_text()
        assert "Hai sfidato bruno" in page_a.locator("#invitations-list").inner_text()
        page_a.locator("#lobby-live").wait_for()

        for page, label in ((page_b, "1280"), (page_p, "390")):
            notice = page.locator("#challenge-notice")
            notice.wait_for()
            assert notice.inner_text() == "anna ti sfida a una partita (Mano unica)."
            item = page.locator("#invitations-list .invitation").first
            assert "anna ti sfida" in item.inner_text() and "Accetta" in item.inner_text()
            page.locator("#invitations").scroll_into_view_if_needed()
            page.screenshot(path=str(screenshot_dir / f"challenge-lobby-{label}.png"))
            assert serious_violations(page) == []

        page_b.click("#invitations-list .invitation button:has-text('Accetta')")
        page_b.wait_for_url(re.compile(r"/tavolo/\d+/\?trovata=sfida$"))
        page_a.wait_for_url(re.compile(r"/tavolo/\d+/\?trovata=sfida$"))
        assert page_a.url == page_b.url
        challenge = Challenge.objects.get()
        table = Table.objects.get(pk=challenge.table_id)
        assert challenge.status == "accepted" and table.private and not table.rated
        assert table.status == Table.Status.PLAYING
        # Her home page lists the game, with the way back to it.
        page_a.goto(f"{live_site}/")
        game = page_a.locator(f'#in-progress [data-table-id="{table.pk}"]')
        assert "Contro: bruno" in game.inner_text()
        assert game.locator("a").get_attribute("href") == f"/tavolo/{table.pk}/"
        page_a.screenshot(path=str(screenshot_dir / "home-in-progress-1280.png"))
        assert page_a.js_errors == [] and page_b.js_errors == [] and page_p.js_errors == []
    finally:
        for ctx in (ctx_a, ctx_b, ctx_p):
            ctx.close()
