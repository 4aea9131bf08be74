"""Around the table (issue 12, bugs 4–6 and item 7), in Chromium at desktop and phone size: the
lobby says when a two-player variant switches four players to two, the footer's IT/EN works for
a signed-in player, "Alzati" from one's own waiting table lands in the lobby, a table one waits
at tells you when it starts while you are on another page, the favicon, the English rules page."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.engine import Ruleset
from games.models import Table
from games.services.table.seating import create_table
from tests.factories import make_user

from .axe import serious_violations
from .table_helpers import DESKTOP, PHONE, signed_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_lobby_language_and_leaving(live_site, browser, screenshot_dir):
    anna = make_user("anna")
    for label, viewport in (("1280", DESKTOP), ("390", PHONE)):
        context, page = signed_in_page(browser, live_site, anna, viewport)
        try:
            page.goto(f"{live_site}/gioca/")
            # Four players, then a two-player variant: the form says it switched them to two.
            page.select_option("#id_players", "4")
            page.select_option("#id_preset", "mano_unica")
            warning = page.locator("#players-warning")
            assert warning.is_visible() and page.input_value("#id_players") == "2"
            assert warning.inner_text() == ("Questa variante si gioca solo in due: il tavolo ora è per 2 giocatori, "
                                            "non più 4.")
            page.locator("#players-warning").scroll_into_view_if_needed()
            page.screenshot(path=str(screenshot_dir / f"fix-lobby-warning-{label}.png"))
            page.select_option("#id_preset", "testa_a_testa")
            assert warning.inner_text() == "Questa variante si gioca solo in due."  # nothing switched now
            page.select_option("#id_preset", "classico")
            assert warning.is_hidden()
            assert serious_violations(page) == []
            # The site's icon is there.
            icon = page.get_attribute('link[rel="icon"]', "href")
            assert page.request.get(f"{live_site}{icon}").headers["content-type"].startswith("image/svg")
            # "Alzati" from her own waiting table: to the lobby, not to a dead board.
            waiting = create_table(creator=anna, ruleset=Ruleset.preset("classico"))
            page.goto(f"{live_site}/tavolo/{waiting.pk}/")
            page.wait_for_selector("#waiting-room")
            page.click("#leave-button")
            page.wait_for_url(f"{live_site}/gioca/")
            assert "Hai lasciato il tavolo." in page.locator(".messages").inner_text()
            page.wait_for_timeout(500)  # a late frame of the old table must not take her back there
            assert page.url == f"{live_site}/gioca/"
            assert Table.objects.get(pk=waiting.pk).status == Table.Status.ABANDONED
            page.goto(f"{live_site}/tavolo/{waiting.pk}/")
            assert page.locator("#abandoned-note").is_visible() and page.locator("#game").count() == 0
            page.screenshot(path=str(screenshot_dir / f"fix-abandoned-{label}.png"))
            # The footer's EN works for a signed-in player (the saved language used to win).
            page.goto(f"{live_site}/gioca/")
            page.click('.language-switch button[value="en"]')
            page.wait_for_selector("html[lang=en]")
            assert page.locator("h1").inner_text() == "Play"
            assert get_user_model().objects.get(pk=anna.pk).language == "en"
            page.click('.language-switch button[value="it"]')
            page.wait_for_selector("html[lang=it]")
            assert page.js_errors == []
        finally:
            context.close()

    # The choice stays on the account: the rules page in English says where refusals are shown.
    context, page = signed_in_page(browser, live_site, anna, PHONE)
    try:
        page.goto(f"{live_site}/gioca/")
        page.click('.language-switch button[value="en"]')
        page.wait_for_selector("html[lang=en]")
        assert page.locator("h1").inner_text() == "Play"
        assert get_user_model().objects.get(pk=anna.pk).language == "en"
        page.goto(f"{live_site}/regole/")
        assert page.get_attribute("html", "lang") == "en"
        refusals = page.locator("#rifiuti").inner_text()
        assert "player's own language" in refusals and "shown in Italian" not in refusals
        page.click('.language-switch button[value="it"]')
        page.wait_for_selector("html[lang=it]")
        assert get_user_model().objects.get(pk=anna.pk).language == "it"
        assert page.js_errors == []
    finally:
        context.close()


def test_a_table_one_waits_at_says_when_it_starts(live_site, browser, screenshot_dir):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = create_table(creator=anna, ruleset=Ruleset.preset("classico"))
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
    ctx_c, page_c = signed_in_page(browser, live_site, anna, PHONE)
    try:
        # Anna waits at her table but reads the history meanwhile (and on her phone, the lobby).
        page_a.goto(f"{live_site}/storico/")
        page_c.goto(f"{live_site}/gioca/")
        page_c.locator("#lobby-live").wait_for()
        page_a.wait_for_function("() => document.querySelector('#waiting-watch') !== null")
        page_a.wait_for_timeout(500)  # its lobby socket is open
        # Bruno sits from the lobby: the table is full and starts.
        page_b.goto(f"{live_site}/gioca/")
        page_b.locator(f'.table-item[data-table-id="{table.pk}"] .sit-button').click()
        page_b.wait_for_selector("#game")
        for page in (page_a, page_c):
            banner = page.locator(f"#started-{table.pk}")
            banner.wait_for()
            assert banner.inner_text().startswith(f"La partita al tavolo {table.pk} è cominciata!")
            assert banner.locator("a").get_attribute("href") == f"/tavolo/{table.pk}/"
            assert page.title().startswith("●")
        page_a.screenshot(path=str(screenshot_dir / "fix-started-1280.png"))
        page_c.screenshot(path=str(screenshot_dir / "fix-started-390.png"))
        page_a.locator(f"#started-{table.pk} a").click()
        page_a.wait_for_selector("#game")
        assert page_a.js_errors == [] and page_b.js_errors == [] and page_c.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()
        ctx_c.close()
