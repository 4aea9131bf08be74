"""Dead ends and wrong words (issue 29, the list of item 5), each seen in Chromium as a player
meets it: a finished match's "Continua", the winners of a 4-player match whose opponent abandons
between hands, the greeting of a table by how it was found, a private table's joiner, the rules
page's refusals, the table's rules panel, the lobby's open tables, and the scoring of the hand a
player missed while the computer covered their seat."""

from __future__ import annotations

import random
import re
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from games.bots import choose_action
from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.models import Game, QueueEntry, Seat
from games.services.lobby import challenges
from games.services.table.play import submit_action
from games.services.table.seating import create_table, play_against_computer, sit
from tests.factories import make_user

from .table_helpers import (
    DESKTOP,
    FOUR_PLAYER_CLOSING,
    PHONE,
    celery_worker,
    force_position,
    play_four_player_closing,
    play_to_the_score,
    shoot,
    signed_in_page,
    two_people,
    wait_version,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_continua_on_a_finished_match_leaves_a_way_on(live_site, browser, screenshot_dir):
    anna, bruno, table = two_people("mano_unica", "cont")
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
    try:
        play_to_the_score(live_site, table, page_a, page_b)
        for page in (page_a, page_b):
            page.click("#score-close")
            bar = page.locator("#finished-bar")
            bar.wait_for()  # the result stays on the page, with the scoring and the way on
            assert bar.inner_text().startswith("Partita finita.")
            assert bar.locator('a[href="/gioca/"]').is_visible()
        shoot(page_a, screenshot_dir, "finished-bar-1280")
        page_b.screenshot(path=str(screenshot_dir / "finished-bar-390.png"))
        page_a.click("#finished-score")  # the scoring again, with the rematch in it
        page_a.locator("#score-dialog[open]").wait_for()
        assert page_a.locator("#score-table tr.match").count() == 1
        assert page_a.locator("#rematch-button").is_visible()
        assert page_a.js_errors == [] and page_b.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()


def test_winners_of_an_abandon_between_hands_read_that_they_won(live_site, browser):
    people = [make_user(n) for n in ("anna_ab4", "bruno_ab4", "carla_ab4", "dario_ab4")]
    table = create_table(creator=people[0], ruleset=Ruleset.preset("classico", players=4, draw_seconds=300,
                                                                     play_seconds=300))
    for position, person in enumerate(people[1:], start=1):
        sit(table_id=table.pk, user=person, position=position)
    force_position(table, **FOUR_PLAYER_CLOSING)
    contexts, pages = [], []
    try:
        for person in people:
            context, page = signed_in_page(browser, live_site, person, DESKTOP)
            contexts.append(context)
            pages.append(page)
            page.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_version(page, 0)
        anna, bruno, carla, dario = pages
        play_four_player_closing(anna, bruno, carla, dario)
        for page in pages:
            page.locator("#score-dialog[open]").wait_for()
        assert anna.locator("#score-result").inner_text() != "Partita finita."  # hand 1 of a match to 2005
        # In the pause between the hands Bruno gives the match up: Anna and Carla won it.
        bruno.evaluate("window.burracoTable.socket.send(JSON.stringify({type: 'abandon'}))")
        for page in (anna, carla):
            page.locator("#score-result", has_text="Avete vinto").wait_for()
            assert "Si gioca la mano successiva" not in page.locator("#score-result").inner_text()
            page.wait_for_timeout(300)  # a later render must not put the old words back
            assert "Avete vinto" in page.locator("#score-result").inner_text()
        assert all(page.js_errors == [] for page in pages)
    finally:
        for context in contexts:
            context.close()


@pytest.fixture
def matcher(django_db_blocker):
    with celery_worker(django_db_blocker) as worker:  # Redis: a real worker runs the queue's matcher
        yield worker


def test_each_way_to_a_table_has_its_own_greeting(live_site, browser, matcher):
    anna, bruno, carla = make_user("anna_greet"), make_user("bruno_greet"), make_user("carla_greet")
    challenges.send_challenge(challenger=anna, username=bruno.username, preset="mano_unica")
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, DESKTOP)
    ctx_c, page_c = signed_in_page(browser, live_site, carla, PHONE)
    try:
        for page in (page_a, page_b):
            page.goto(f"{live_site}/gioca/")
            page.locator("#lobby-live").wait_for()
        page_b.locator("#invitations-list form[data-answer=challenge_accept] button").click()
        for page in (page_a, page_b):
            page.wait_for_url(re.compile(r".*/tavolo/\d+/.*"))
            text = page.locator(".messages").inner_text()
            assert "Sfida accettata" in text and "Avversari trovati" not in text, text

        # A queue that falls back to the computer says so.
        page_c.goto(f"{live_site}/gioca/")
        page_c.locator("#lobby-live").wait_for()
        page_c.check("#queue-computer")
        page_c.locator("#queue-join:not([disabled])").click()
        deadline = time.monotonic() + 10
        while not QueueEntry.objects.filter(user=carla, status=QueueEntry.Status.WAITING).exists():
            assert time.monotonic() < deadline, "Carla is not in the queue"
            time.sleep(0.05)
        QueueEntry.objects.filter(user=carla).update(joined_at=timezone.now() - timedelta(seconds=600))
        page_c.wait_for_url(re.compile(r".*/tavolo/\d+/.*"), timeout=15_000)
        text = page_c.locator(".messages").inner_text()
        assert "computer" in text and "Avversari trovati" not in text, text
        assert page_a.js_errors == [] and page_b.js_errors == [] and page_c.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()
        ctx_c.close()


def test_a_private_tables_joiner_is_told_it_starts_by_itself(live_site, browser):
    anna, bruno = make_user("anna_priv"), make_user("bruno_priv")
    table = create_table(creator=anna, ruleset=Ruleset.preset("classico", players=4), private=True)
    context, page = signed_in_page(browser, live_site, bruno, PHONE)
    try:
        page.goto(f"{live_site}/tavolo/invito/{table.invite_token}/")
        page.locator("#waiting-room").wait_for()
        text = page.locator("#waiting-room").inner_text()
        assert "Chi ha creato il tavolo avvierà" not in text
        assert "comincia da sola appena tutti i posti sono occupati" in text
    finally:
        context.close()


def test_the_rules_page_shows_no_internal_codes(live_site, browser):
    context = browser.new_context(viewport=DESKTOP, locale="it-IT")
    page = context.new_page()
    try:
        page.goto(f"{live_site}/regole/")
        refusals = page.locator("#refusals")
        assert refusals.locator("tbody tr").count() >= 18
        assert "meld_size" not in refusals.inner_text() and refusals.locator("code").count() == 0
    finally:
        context.close()


def test_the_tables_rules_panel_says_each_thing_once(live_site, browser):
    anna = make_user("anna_rules")
    table = create_table(creator=anna, ruleset=Ruleset.preset("classico", stock_exhausted="pozzetto_becomes_stock"))
    sit(table_id=table.pk, user=make_user("bruno_rules"), position=1)
    context, page = signed_in_page(browser, live_site, anna, DESKTOP)
    try:
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        line = page.locator('#rules-diff li[data-option="stock_exhausted"]').inner_text()
        assert line.count("il pozzetto diventa tallone") == 1, line
        assert line.startswith("Tallone finito"), line
    finally:
        context.close()


def test_the_lobbys_open_tables_leave_out_games_against_the_computer(live_site, browser):
    anna, bruno, carla = make_user("anna_open"), make_user("bruno_open"), make_user("carla_open")
    solo = play_against_computer(user=anna, level="medio")
    people = create_table(creator=bruno, ruleset=Ruleset.preset("classico"))
    sit(table_id=people.pk, user=make_user("dario_open"), position=1)
    context, page = signed_in_page(browser, live_site, carla, DESKTOP)
    try:
        page.goto(f"{live_site}/gioca/")
        listed = page.locator("#open-tables").inner_text()
        assert f"Tavolo {people.pk}" in listed
        assert f"Tavolo {solo.pk}" not in listed
    finally:
        context.close()


def test_a_player_covered_by_the_computer_sees_the_hand_they_missed(live_site, browser, screenshot_dir):
    anna, bruno, table = two_people("classico", "cover")  # to 2005: a second hand follows
    Seat.objects.filter(table=table, user=anna).update(covered_by_computer=True)
    game = Game.objects.get(table=table)
    rng = random.Random(3)
    # Anna is away; the computer plays her seat, Bruno his own, until hand 2 is dealt.
    for _ in range(2000):
        game = Game.objects.get(table=table)
        if game.hand_number == 2:
            break
        engine = EngineGame.from_dict(game.state)
        seat = engine.to_move
        action = choose_action(engine.view(seat), "principiante", rng)
        submit_action(game_id=game.pk, seat=seat, action=action, actor="computer" if seat == 0 else "person",
                      expected_version=game.version, user=None if seat == 0 else bruno)
    assert game.hand_number == 2 and not game.finished
    context, page = signed_in_page(browser, live_site, anna, PHONE)
    try:
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        page.locator("#score-dialog[open]").wait_for(timeout=5000)
        assert page.locator("#score-title").inner_text() == "Fine della mano 1"
        assert page.locator("#score-table tr.match").count() == 1
        shoot(page, screenshot_dir, "missed-hand-score-390")
        page.click("#score-close")
        page.click("#btn-back")  # "Sono tornato": the seat is hers again
        page.locator("#back-wrap").wait_for(state="hidden")
        assert page.js_errors == []
    finally:
        context.close()
