"""Analisi della partita in Chromium: esperto's marks on the replay, at the move they concern,
on a desktop and a phone. Screenshots: test-output/screenshots/site-replay-analysis*.png."""

from __future__ import annotations

import pytest

from games.models import Analysis
from games.services.history import analysis
from tests.factories import finished_match, make_user

from .test_pages import DESKTOP, PHONE, open_page, step

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_analysed_replay_shows_each_mark_at_its_move(live_site, browser, screenshot_dir, settings):
    person = make_user("analizzata")
    game = finished_match([person, None], seed=31)
    Analysis.objects.create(game=game)
    settings.ANALYSIS_WORLDS = 8
    analysis.run_analysis(game.pk)  # the task's work (the worker runs it in tests/timers)
    marks = [n for n in Analysis.objects.get(game=game).notes if n["hand"] == 1]
    assert marks
    first = marks[0]
    for viewport, name in ((DESKTOP, "site-replay-analysis.png"), (PHONE, "site-replay-analysis-phone.png")):
        context, page, errors = open_page(browser, f"{live_site}/storico/partita/{game.pk}/replay/", viewport)
        try:
            page.wait_for_selector("#r-note-list button")
            assert page.locator("#r-note-list li").count() == len(marks)
            assert page.locator("#r-list li.noted").count() == len({n["step"] for n in marks})
            assert page.is_hidden("#r-note")  # the deal: no mark
            page.locator("#r-note-list button").first.click()
            assert step(page) == first["step"]
            note = page.locator("#r-note")
            assert note.is_visible()
            assert analysis.note_text(first) in note.inner_text()
            assert "analizzata" in note.inner_text()
            assert "Analisi pronta" in page.locator("#r-analysis-status").inner_text()
            page.keyboard.press("ArrowRight")
            if step(page) not in {n["step"] for n in marks}:
                assert page.is_hidden("#r-note")
            page.keyboard.press("ArrowLeft")
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(screenshot_dir / name), full_page=True)
            assert errors == []
        finally:
            context.close()
