"""Site pages in Chromium: a replay stepped with buttons, keys and slider; the leaderboard with a
search; the profile chart; the rules page in Italian and English. Screenshots go to
test-output/screenshots/ (site-*.png)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Move, PlayerRating, RatingChange
from tests.factories import finished_match, make_users

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def open_page(browser, url: str, viewport=DESKTOP, locale: str = "it-IT"):
    context = browser.new_context(viewport=viewport, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text)
            if msg.type == "error" and "favicon" not in (msg.location or {}).get("url", "") else None)
    page.goto(url)
    return context, page, errors


def step(page) -> int:
    return int(page.get_attribute("#replay", "data-step"))


def test_replay_steps_through_a_finished_match(live_site, browser, screenshot_dir):
    people = make_users(4, prefix="rp")
    game = finished_match(people, preset="classico", target=505, seed=7)
    moves = Move.objects.filter(game=game, hand_number=1).count()
    context, page, errors = open_page(browser, f"{live_site}/storico/partita/{game.pk}/replay/")
    try:
        page.wait_for_selector("#r-list li")
        assert step(page) == 0
        assert page.locator("#r-step-count").inner_text() == "Distribuzione"
        # Every seat's hand is face up from the deal: 4 × 11 cards.
        assert page.locator(".r-hand .pcard").count() == 44
        page.click("#r-next")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert step(page) == 3
        assert page.locator("#r-step-count").inner_text() == f"Mossa 3 di {moves}"
        page.keyboard.press("ArrowLeft")
        assert step(page) == 2
        page.click("#r-last")
        assert step(page) == moves
        assert page.is_disabled("#r-next") and page.is_disabled("#r-last")
        last_text = page.locator("#r-step-text").inner_text()
        assert "chiude la mano" in last_text or "tallone è esaurito" in last_text
        page.keyboard.press("Home")
        assert step(page) == 0 and page.is_disabled("#r-prev")
        page.locator("#r-slider").fill(str(moves // 2))
        assert step(page) == moves // 2
        page.locator("#r-list li").nth(moves // 2 + 5).locator("button").click()
        assert step(page) == moves // 2 + 5
        page.keyboard.press("ArrowLeft")
        assert step(page) == moves // 2 + 4
        assert page.locator(".r-meld").count() > 0
        page.screenshot(path=str(screenshot_dir / "site-replay.png"), full_page=True)
        assert errors == []
    finally:
        context.close()
    context, page, errors = open_page(browser, f"{live_site}/storico/partita/{game.pk}/replay/", PHONE)
    try:
        page.wait_for_selector("#r-list li")
        page.keyboard.press("End")
        assert step(page) == moves
        page.screenshot(path=str(screenshot_dir / "site-replay-phone.png"), full_page=True)
        assert errors == []
    finally:
        context.close()


def test_leaderboard_search_and_profile_chart(live_site, browser, screenshot_dir):
    people = make_users(16, prefix="lb")
    PlayerRating.objects.bulk_create([
        PlayerRating(user=u, mode="2p", rating=1700 - 13 * i, peak=1720 - 13 * i, games=12 + 4 * i, wins=6 + 2 * i,
                     losses=6 + 2 * i)
        for i, u in enumerate(people)
    ])
    # Real rated matches for one player, spread in time, for the profile's chart.
    star = people[0]
    now = timezone.now()
    for i in range(4):
        finished_match([star, people[i + 1]], rated=True, finished_at=now - timedelta(days=8 - i))
    finished_match([star, people[5], people[6], people[7]], rated=True, preset="classico", target=505)
    for i, change in enumerate(RatingChange.objects.filter(user=star).order_by("id")):
        RatingChange.objects.filter(pk=change.pk).update(created_at=now - timedelta(days=20 - 3 * i))
    context, page, errors = open_page(browser, f"{live_site}/classifiche/")
    try:
        rows = page.locator("#board tbody tr")
        assert rows.count() == 16
        assert rows.first.get_attribute("data-rank") == "1"
        assert page.locator("#board .provisional").count() == sum(1 for i in range(16) if 12 + 4 * i < 30)
        page.screenshot(path=str(screenshot_dir / "site-leaderboard.png"), full_page=True)
        page.fill("#board-q", "LB1")
        page.click("#board-search button[type=submit]")
        page.wait_for_selector("#search-results")
        found = page.locator("#search-results tbody tr")
        assert found.count() == 7  # lb1, lb10 .. lb15
        assert found.first.get_attribute("data-user") == "lb1"
        page.click('a[data-mode="4p"]')
        page.wait_for_selector('a[data-mode="4p"][aria-current="page"]')
        page.goto(f"{live_site}/giocatori/{star.username}/")
        page.wait_for_selector("#rating-chart polyline")
        assert page.locator("#rating-chart polyline").count() == 2  # both modes
        page.screenshot(path=str(screenshot_dir / "site-profile.png"), full_page=True)
        assert errors == []
    finally:
        context.close()


def test_rules_page_in_italian_and_english(live_site, browser, screenshot_dir):
    context, page, errors = open_page(browser, f"{live_site}/regole/")
    try:
        assert page.locator("h1").inner_text() == "Regole del Burraco"
        assert page.locator("#refusals tbody tr").count() >= 18
        assert page.locator("#card-points .pcard").count() >= 5
        page.click('a[href="#punteggio"]')
        page.screenshot(path=str(screenshot_dir / "site-rules.png"))
        page.click('.language-switch button[value="en"]')
        page.wait_for_selector("html[lang=en]")
        assert page.locator("h1").inner_text() == "Burraco rules"
        assert page.locator("#refusals thead th").count() == 2  # the Italian message and its translation
        page.click('a[href="#giochi"]')
        page.screenshot(path=str(screenshot_dir / "site-rules-en.png"))
        assert errors == []
    finally:
        context.close()
    context, page, errors = open_page(browser, f"{live_site}/regole/", PHONE)
    try:
        page.click('a[href="#burraco"]')
        page.screenshot(path=str(screenshot_dir / "site-rules-phone.png"))
        assert errors == []
    finally:
        context.close()
