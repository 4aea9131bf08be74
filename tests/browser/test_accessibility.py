"""The first visit's tour over the real table and the Comandi page (issue 12, item 14), and
axe-core on every kind of page (lobby, table, replay, leaderboards, rules, controls, account
pages) at desktop and phone size: no serious or critical violation."""

from __future__ import annotations

import pytest

from games.engine import Ruleset
from games.services.table.seating import create_table, fill_with_computer
from tests.factories import finished_match, make_user, make_users

from .axe import serious_violations
from .table_helpers import DESKTOP, PHONE, signed_in_page, wait_snapshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_first_visit_tour_over_the_table(live_site, browser, screenshot_dir):
    # Shown by itself only at a practice table (nobody but the computer): issue 29, item 3.
    anna = make_user("anna")
    table = create_table(creator=anna, ruleset=Ruleset.preset("classico", draw_seconds=300, play_seconds=300))
    fill_with_computer(table_id=table.pk, user=anna, position=1, level="principiante")
    for label, viewport in (("1280", DESKTOP), ("390", PHONE)):
        context, page = signed_in_page(browser, live_site, anna, viewport, tour=True)
        try:
            page.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_snapshot(page)
            tour = page.locator("#tour")
            tour.wait_for()
            assert page.locator("#tour-count").inner_text() == "1 di 6"
            assert "trascina il tallone giù" in page.locator("#tour-text").inner_text()
            assert page.locator("#stock.tour-target").count() == 1  # over the real stock
            box = tour.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
            page.screenshot(path=str(screenshot_dir / f"tour-1-{label}.png"))
            texts = []
            for _step in range(5):
                page.click("#tour-next")
                texts.append(page.locator("#tour-text").inner_text())
            assert "tasto destro" in texts[1] and "giochi" in texts[2] and "sugli scarti" in texts[3]
            assert "Comandi" in texts[4]
            assert page.locator("#tour-next").inner_text() == "Ho capito"
            assert serious_violations(page) == []
            page.click("#tour-next")
            tour.wait_for(state="detached")
            assert page.locator(".tour-target").count() == 0
            page.reload()  # seen once: not again
            wait_snapshot(page)
            page.wait_for_timeout(300)
            assert page.locator("#tour").count() == 0
            page.click("#btn-tour")  # unless asked for
            tour.wait_for()
            page.click("#tour-skip")
            tour.wait_for(state="detached")
            assert page.js_errors == []
        finally:
            context.close()


def test_no_serious_accessibility_violation_on_any_page(live_site, browser, screenshot_dir):
    people = make_users(4, prefix="ax")
    game = finished_match(people, preset="classico", target=505, seed=11)
    anna = people[0]
    pages = [
        "/gioca/", f"/storico/partita/{game.pk}/replay/", f"/storico/partita/{game.pk}/", "/storico/",
        "/classifiche/", "/regole/", "/comandi/", f"/giocatori/{anna.username}/", "/account/impostazioni/",
        f"/giocatori/{people[1].username}/", "/amici/",
        f"/tavolo/{game.table_id}/",
    ]
    for label, viewport in (("1280", DESKTOP), ("390", PHONE)):
        context, page = signed_in_page(browser, live_site, anna, viewport)
        try:
            for path in pages:
                page.goto(f"{live_site}{path}")
                page.wait_for_load_state("networkidle")
                found = serious_violations(page)
                assert found == [], (path, label, found)
            page.goto(f"{live_site}/comandi/")
            assert not page.evaluate("document.documentElement.scrollWidth > window.innerWidth")  # fits a phone
            page.screenshot(path=str(screenshot_dir / f"controls-{label}.png"), full_page=True)
            assert page.js_errors == []
        finally:
            context.close()
        # Signed out: log-in and sign-up.
        context = browser.new_context(viewport=viewport, locale="it-IT")
        page = context.new_page()
        try:
            for path in ("/account/accedi/", "/account/registrati/", "/"):
                page.goto(f"{live_site}{path}")
                found = serious_violations(page)
                assert found == [], (path, label, found)
        finally:
            context.close()
