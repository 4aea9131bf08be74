"""Live play in Chromium: people create a table, sit, and play real turns over the WebSocket.

Each test forces a known position through the engine (Game.setup) right after the deal, so every
card is known; the pages are then (re)loaded and everything else goes through the real UI, the
real consumer and the real services.
"""

from __future__ import annotations

import pytest

from games.engine import Ruleset
from games.models import Game, Move, Seat, Table
from games.services.table.seating import create_table, fill_with_computer, sit
from tests.factories import make_user

from .table_helpers import (
    DESKTOP,
    FOUR_PLAYER_CLOSING,
    PHONE,
    POZZETTO_A,
    POZZETTO_B,
    TWO_PLAYER_CLOSING,
    card,
    celery_worker,
    force_position,
    hand,
    meld_cards,
    play_four_player_closing,
    select,
    shoot,
    signed_in_page,
    wait_my_draw,
    wait_snapshot,
    wait_version,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]



def test_two_people_create_sit_play_turns_refusal_and_reload(live_site, browser, screenshot_dir):
    anna, bruno = make_user("anna"), make_user("bruno")
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
    try:
        # Anna creates a table from the lobby form (long timers: the test must not race the clock).
        page_a.goto(f"{live_site}/gioca/")
        page_a.select_option("#id_players", "2")
        page_a.select_option("#id_preset", "classico")
        assert page_a.input_value("#id_target") == "2005"  # the preset filled the options
        page_a.click("#create-options summary")
        page_a.fill("#id_draw_seconds", "300")
        page_a.fill("#id_play_seconds", "300")
        page_a.click("#create-table")
        page_a.wait_for_selector("#waiting-room")
        table = Table.objects.get(creator=anna)
        assert table.draw_seconds == 300 and table.options["target"] == 2005

        # Bruno finds it in the lobby list and sits: the table is full and starts by itself.
        page_b.goto(f"{live_site}/gioca/")
        page_b.locator(f'.table-item[data-table-id="{table.pk}"] .sit-button').click()
        page_b.wait_for_selector("#game")
        page_a.wait_for_selector("#game")  # Anna's waiting page followed the start by itself

        force_position(
            table,
            hands=[
                ["5H", "7H", "8H", "9H", "KS", "KD", "KC", "4C", "JS", "QD", "3S"],
                ["5S", "6S", "7S", "9C", "9D", "AS", "AD", "4H", "TD", "6C", "8D"],
            ],
            stock=["6H", "3D", "8C", "TC", "5C", "JD"],
            discard=["QC"],
            pozzetti=[POZZETTO_A, POZZETTO_B],
            to_move=0,
        )
        page_a.reload()
        page_b.reload()
        wait_version(page_a, 0)
        wait_version(page_b, 0)
        assert sorted(hand(page_a)) == sorted(
            ["5H", "7H", "8H", "9H", "KS", "KD", "KC", "4C", "JS", "QD", "3S"])
        assert page_a.locator("#turn-label").inner_text() == "Tocca a te"
        assert page_b.locator("#turn-label").inner_text() == "Tocca a anna"
        assert page_a.locator("#stock-count").inner_text() == "6"
        shoot(page_a, screenshot_dir, "table-start-1280")
        shoot(page_b, screenshot_dir, "table-start-390")

        # Anna draws by dragging the stock down into her hand.
        page_a.locator("#stock").drag_to(page_a.locator("#hand"))
        wait_version(page_a, 1)
        assert "6H" in hand(page_a) and len(hand(page_a)) == 12

        # A meld that is no meld: refused in red, in Italian, and nothing moves.
        before = hand(page_a)
        select(page_a, "7H", "KS", "4C")
        page_a.click("#btn-meld")
        error = page_a.locator("#table-error")
        error.wait_for(state="visible")
        assert error.inner_text() == (
            "I valori delle carte non sono omogenei: non formano né una scala né un tris")
        assert error.evaluate("e => getComputedStyle(e).color") == "rgb(179, 38, 30)"
        assert hand(page_a) == before
        assert Game.objects.get(table=table).version == 1
        page_a.keyboard.press("Escape")  # drop the selection
        assert page_a.locator("#hand .pcard.selected").count() == 0

        # Meld by right click, lay off by dragging onto the meld, meld with the button, discard by drag.
        select(page_a, "6H", "7H", "8H", "9H")
        card(page_a, "KD").click(button="right")
        wait_version(page_a, 2)
        assert page_a.locator("#table-error").is_hidden()
        assert meld_cards(page_a, "us") == [["6H", "7H", "8H", "9H"]]
        card(page_a, "5H").drag_to(page_a.locator("#melds-us .meld").first)
        wait_version(page_a, 3)
        assert meld_cards(page_a, "us") == [["5H", "6H", "7H", "8H", "9H"]]
        select(page_a, "KS", "KD", "KC")
        page_a.click("#btn-meld")
        wait_version(page_a, 4)
        card(page_a, "JS").drag_to(page_a.locator("#discard"))
        wait_version(page_a, 5)
        assert sorted(hand(page_a)) == ["3S", "4C", "QD"]
        assert page_a.locator("#turn-label").inner_text() == "Tocca a bruno"

        # Bruno (on a phone) sees it all and takes the whole discard pile by dragging it down.
        wait_version(page_b, 5)
        assert page_b.locator("#last-move").inner_text() == "anna scarta J♠"
        assert len(meld_cards(page_b, "them")) == 2
        assert page_b.locator('#game .seat-box[data-position="0"] .seat-box-count').inner_text() == "3 carte"
        page_b.locator("#discard").drag_to(page_b.locator("#hand"))
        wait_version(page_b, 6)
        assert "QC" in hand(page_b) and "JS" in hand(page_b)
        select(page_b, "5S", "6S", "7S")
        page_b.click("#btn-meld")
        wait_version(page_b, 7)
        select(page_b, "AD")
        page_b.click("#btn-discard")
        wait_version(page_b, 8)
        assert meld_cards(page_b, "us") == [["5S", "6S", "7S"]]
        wait_version(page_a, 8)
        shoot(page_a, screenshot_dir, "table-mid-1280")
        shoot(page_b, screenshot_dir, "table-mid-390")

        # A frame that skips a version makes the page ask for the whole picture again.
        snapshots = page_b.evaluate("window.burracoTable.stats.snapshots")
        page_b.evaluate("""() => window.burracoTable.handleFrame(
            {type: "event", version: 12, seat: 0, actor: "person", action: {type: "draw"}, view: null})""")
        page_b.wait_for_function("n => window.burracoTable.stats.snapshots > n", arg=snapshots)
        wait_version(page_b, 8)
        # A dropped connection: the badge shows, the page reconnects by itself and catches up.
        page_b.evaluate("window.burracoTable.socket.close()")
        page_b.locator("#conn-badge").wait_for(state="visible")
        assert page_b.locator("#conn-badge").inner_text() == "riconnessione…"
        page_b.wait_for_function("n => window.burracoTable.stats.snapshots > n + 1", arg=snapshots)
        page_b.locator("#conn-badge").wait_for(state="hidden")

        # Anna reloads in the middle of the hand and carries on, with the keyboard this time.
        page_a.reload()
        wait_version(page_a, 8)
        assert sorted(hand(page_a)) == ["3S", "4C", "QD"]
        # Her own order: drag the queen in front; "Riordina" sorts again. The server is not involved.
        card(page_a, "QD").drag_to(page_a.locator("#hand .pcard").first, target_position={"x": 5, "y": 30})
        assert hand(page_a)[0] == "QD"
        page_a.click("#btn-sort-suit")
        assert hand(page_a) == ["3S", "4C", "QD"]
        assert meld_cards(page_a, "them") == [["5S", "6S", "7S"]]
        assert page_a.locator("#discard .pcard").evaluate_all("els => els.map(e => e.dataset.card)") == ["AD"]
        page_a.focus("#btn-draw")
        page_a.keyboard.press("Enter")
        wait_version(page_a, 9)
        assert "3D" in hand(page_a)
        card(page_a, "4C").focus()
        page_a.keyboard.press("Space")  # a card is a button: the keyboard selects it too
        page_a.click("#btn-discard")
        wait_version(page_a, 10)
        wait_version(page_b, 10)
        assert page_b.locator("#turn-label").inner_text() == "Tocca a te"

        game = Game.objects.get(table=table)
        assert game.version == 10
        assert [m.action["type"] for m in Move.objects.filter(game=game)] == [
            "draw", "meld", "lay_off", "meld", "discard", "take_discards", "meld", "discard", "draw", "discard"]
        assert page_a.js_errors == [] and page_b.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()


def test_a_whole_hand_to_the_scoring(live_site, browser, screenshot_dir):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = create_table(creator=anna, ruleset=Ruleset.preset("mano_unica", draw_seconds=300, play_seconds=300))
    sit(table_id=table.pk, user=bruno, position=1)
    # Anna's side already took its pozzetto and has a clean burraco: she can close on her second turn.
    force_position(table, **TWO_PLAYER_CLOSING)
    # Bruno was away long enough for the computer to take his seat (it is Anna's turn, so the
    # computer has nothing to play for him before he is back).
    Seat.objects.filter(table=table, position=1).update(covered_by_computer=True)
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
    ctx_c, page_c = signed_in_page(browser, live_site, make_user("carlo"), DESKTOP)
    try:
        # Carlo only watches: no hand of his, nobody's cards, only the counts.
        page_c.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_version(page_c, 0)
        assert page_c.locator("#hand").is_hidden() and page_c.locator("#btn-draw").is_hidden()
        assert page_c.locator("#felt").inner_text().count("carte") == 2
        assert 'data-card="TS"' not in page_c.content()  # Anna's cards never reach a watcher
        page_a.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_version(page_a, 0)
        covered = page_a.locator('#game .seat-box[data-position="1"]')
        assert "il computer gioca per bruno" in covered.inner_text()
        assert covered.locator(".dot.offline").count() == 1
        page_b.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_version(page_b, 0)
        covered.locator(".dot.online").wait_for()  # Anna sees Bruno come online
        assert page_b.locator("#back-wrap").is_visible()
        page_b.locator("#btn-back").click()  # "Sono tornato"
        page_b.locator("#back-wrap").wait_for(state="hidden")
        page_a.wait_for_function(
            "!document.querySelector('#game .seat-box[data-position=\"1\"]').textContent.includes('computer')")
        assert not Seat.objects.get(table=table, position=1).covered_by_computer

        # Ready-made chat phrases only.
        assert page_b.locator("#chat-form input[type=text], #chat-form textarea").count() == 0
        page_b.select_option("#chat-phrase", "buona_fortuna")
        page_b.click("#chat-form button[type=submit]")
        page_a.locator("#chat-log li", has_text="bruno: Buona fortuna").wait_for()
        assert page_a.locator("#melds-us .meld.burraco .meld-tag").inner_text() == "burraco pulito"
        assert "preso" in page_a.locator("#pozzetti").inner_text()

        page_a.click("#btn-draw")
        wait_version(page_a, 1)
        card(page_a, "8C").drag_to(page_a.locator("#discard"))
        wait_version(page_a, 2)

        wait_version(page_b, 2)
        page_b.click("#btn-draw")
        wait_version(page_b, 3)
        card(page_b, "9D").drag_to(page_b.locator("#discard"))
        wait_version(page_b, 4)

        wait_version(page_a, 4)
        page_a.click("#btn-draw")
        wait_version(page_a, 5)
        select(page_a, "TS", "JS", "QS")
        card(page_a, "KS").click(button="right")  # right click anywhere on the hand melds the chosen cards
        wait_version(page_a, 6)
        card(page_a, "KS").drag_to(page_a.locator('#melds-us .meld[data-meld-id]').last)
        wait_version(page_a, 7)
        assert hand(page_a) == ["4D"]
        card(page_a, "4D").drag_to(page_a.locator("#discard"))  # the closing discard

        for page in (page_a, page_b):
            page.locator("#score-dialog[open]").wait_for()
        rows = page_a.locator("#score-table tbody tr").evaluate_all(
            "trs => trs.map(tr => [...tr.children].map(c => c.textContent.trim()))")
        assert rows == [
            ["Carte calate", "85", "0"],
            ["Burraco", "200", "0"],
            ["Chiusura", "100", "0"],
            ["Carte in mano", "0", "-35"],
            ["Pozzetto", "0", "-100"],
            ["Totale della mano", "385", "-135"],
            ["Totale della partita", "385", "-135"],
        ]
        assert "Hai vinto!" in page_a.locator("#score-result").inner_text()
        page_c.locator("#score-dialog[open]").wait_for()
        assert "Vince anna" in page_c.locator("#score-result").inner_text()
        assert "Vince anna" in page_b.locator("#score-result").inner_text()
        assert page_b.locator("#score-lobby").is_visible()
        shoot(page_a, screenshot_dir, "table-score-1280")
        shoot(page_b, screenshot_dir, "table-score-390")

        # Opening the finished table again shows the same scoring.
        page_b.reload()
        page_b.locator("#score-dialog[open]").wait_for()
        assert "Vince anna" in page_b.locator("#score-result").inner_text()
        table.refresh_from_db()
        assert table.status == Table.Status.FINISHED
        assert page_a.js_errors == [] and page_b.js_errors == [] and page_c.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()
        ctx_c.close()


def test_lobby_live_list_presets_and_one_click_computer(live_site, browser, screenshot_dir):
    anna, carlo = make_user("anna"), make_user("carlo")
    ctx, page = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_phone, phone = signed_in_page(browser, live_site, anna, PHONE)
    try:
        page.goto(f"{live_site}/gioca/")
        page.locator("#lobby-live").wait_for()  # the lobby socket is open
        assert page.locator("#no-tables").is_visible()

        # A preset fills the options; a two-player variant cannot be picked for four.
        page.select_option("#id_preset", "mano_unica")
        assert page.input_value("#id_target") == "none"
        assert page.is_checked("#id_close_by_melding")
        assert page.input_value("#id_stock_exhausted") == "pozzetto_becomes_stock"
        assert page.locator("#id_players option[value='4']").is_disabled()
        page.select_option("#id_preset", "classico")
        assert page.input_value("#id_target") == "2005"
        assert not page.is_checked("#id_close_by_melding")

        # Somebody else opens a table: it shows up without reloading, with a seat to take.
        ctx_carlo, by_carlo = signed_in_page(browser, live_site, carlo, DESKTOP)
        by_carlo.goto(f"{live_site}/gioca/")
        by_carlo.select_option("#id_players", "4")
        by_carlo.click("#create-table")
        by_carlo.wait_for_selector("#waiting-room")
        table = Table.objects.get(creator=carlo)
        item = page.locator(f'.table-item[data-table-id="{table.pk}"]')
        item.wait_for()
        assert "carlo" in item.inner_text() and "4 giocatori" in item.inner_text()
        assert item.locator(".sit-button").is_visible()
        page.screenshot(path=str(screenshot_dir / "lobby-1280.png"), full_page=True)
        phone.goto(f"{live_site}/gioca/")
        phone.locator(f'.table-item[data-table-id="{table.pk}"]').wait_for()
        phone.screenshot(path=str(screenshot_dir / "lobby-390.png"), full_page=True)
        overflow = phone.evaluate("document.documentElement.scrollWidth > window.innerWidth")
        assert not overflow  # nothing sticks out sideways on a phone

        # Anna sits from the lobby, then puts a computer in seat 3 from the waiting room.
        item.locator(".sit-button").click()
        page.wait_for_selector("#waiting-room")
        assert "anna (tu)" in page.locator("#seat-1").inner_text()
        page.select_option("#fill-level-2", "principiante")
        page.locator('#seat-2 .fill-button').click()
        page.wait_for_selector("#seat-2 >> text=Computer (Principiante)")
        # Carlo's waiting room follows by itself.
        by_carlo.locator("#seat-1", has_text="anna").wait_for()
        by_carlo.locator("#seat-2", has_text="Computer (Principiante)").wait_for()
        by_carlo.screenshot(path=str(screenshot_dir / "waiting-room-1280.png"), full_page=True)
        assert by_carlo.js_errors == []
        ctx_carlo.close()

        # One click against the computer: a started table with the computer in seat 2.
        page.goto(f"{live_site}/gioca/")
        assert page.locator("#my-tables").inner_text().count("Tavolo") == 1  # the table she sits at
        page.select_option("#quick-level", "esperto")
        page.click("#play-computer")
        page.wait_for_selector("#game")
        wait_snapshot(page)  # the computer may already have moved
        assert "Computer (Esperto)" in page.locator("#felt").inner_text()
        assert len(hand(page)) >= 11  # dealt, and maybe a card drawn

        # In English the page and the labels its script draws are translated too.
        type(anna).objects.filter(pk=anna.pk).update(language="en")
        page.reload()
        wait_snapshot(page)
        assert page.locator("#btn-draw").inner_text() == "Draw from the stock"
        assert page.locator("#turn-label").inner_text() in ("Your turn", "Computer (Expert)'s turn", "Hand over.")
        assert page.locator("#melds-us .empty-note").inner_text() == "No melds yet."
        assert page.js_errors == [] and phone.js_errors == []
    finally:
        ctx.close()
        ctx_phone.close()


def test_four_people_play_a_hand_to_the_scoring_and_the_next_deal(live_site, browser, screenshot_dir):
    names = ["anna", "bruno", "carla", "dario"]
    users = [make_user(n) for n in names]
    table = create_table(creator=users[0], ruleset=Ruleset.preset("classico", players=4, draw_seconds=300,
                                                                    play_seconds=300))
    for position in (1, 2, 3):
        sit(table_id=table.pk, user=users[position], position=position)
    force_position(table, **FOUR_PLAYER_CLOSING)
    viewports = [DESKTOP, PHONE, {"width": 1024, "height": 768}, PHONE]
    opened = [signed_in_page(browser, live_site, u, v) for u, v in zip(users, viewports, strict=True)]
    anna, bruno, carla, dario = (page for _ctx, page in opened)
    try:
        for page in (anna, bruno, carla, dario):
            page.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_version(page, 0)
        assert carla.locator("#melds-us-title").inner_text() == "I vostri giochi"
        assert carla.locator("#melds-us .meld").count() == 1  # partners share their melds
        assert bruno.locator("#melds-them .meld").count() == 1
        # A real table: we sit at the bottom, the partner across, the next to play on our left.
        places = {slot: bruno.locator(f"#slot-{slot} .seat-box-name").inner_text()
                  for slot in ("bottom", "left", "top", "right")}
        assert places == {"bottom": "bruno (tu)", "left": "carla", "top": "dario in coppia con te", "right": "anna"}

        def at_anna_turn(_pages):
            assert anna.locator("#melds-us .meld").count() == 2  # Carla's new meld is Anna's too
            anna.screenshot(path=str(screenshot_dir / "table4-mid-1280.png"), full_page=True)
            dario.screenshot(path=str(screenshot_dir / "table4-mid-390.png"), full_page=True)

        play_four_player_closing(anna, bruno, carla, dario, at_anna_turn)

        for page in (anna, bruno, carla, dario):
            page.locator("#score-dialog[open]").wait_for()
        totals = carla.locator("#score-table tr.total td").all_inner_texts()
        assert totals == ["395", "-175"]
        assert carla.locator("#score-table thead th").all_inner_texts()[1:] == ["Noi", "Loro"]
        assert dario.locator("#score-table thead th").all_inner_texts()[1:] == ["Loro", "Noi"]
        # The next hand's clock runs inside the scoring: carla opens hand 2 (the first player rotates).
        bruno.locator("#score-next").wait_for()
        assert bruno.locator("#score-next-text").inner_text() == "Mano 2: comincia carla."
        carla.locator("#score-next.mine").wait_for()
        assert carla.locator("#score-next-text").inner_text() == "Mano 2: tocca a te pescare, il tempo corre già."
        assert carla.locator("#score-clock").inner_text().startswith("5:1")  # 300 s + the 15 s to read this
        anna.screenshot(path=str(screenshot_dir / "table4-score-1280.png"))
        dario.screenshot(path=str(screenshot_dir / "table4-score-390.png"))

        # The next hand is dealt: eleven new cards each, the match totals carried over.
        for page in (anna, dario):
            page.click("#score-close")
            page.wait_for_function("document.querySelectorAll('#hand .pcard').length === 11")
            assert "Mano 2" in page.locator("#hand-number").inner_text()
            assert page.locator("#last-move").inner_text() == ""  # the old hand's last play is gone
        assert anna.locator("#totals").inner_text().split() == ["Noi", "395", "Loro", "-175"]
        for page in (anna, bruno, carla, dario):
            assert page.js_errors == []
    finally:
        for ctx, _page in opened:
            ctx.close()


def test_two_people_and_two_computers_play_a_hand_to_the_end(live_site, browser, screenshot_dir, django_db_blocker):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = create_table(creator=anna, ruleset=Ruleset.preset("classico", players=4, target=None,
                                                                draw_seconds=300, play_seconds=300))
    sit(table_id=table.pk, user=bruno, position=2)  # partners: seats 0 and 2
    fill_with_computer(table_id=table.pk, user=anna, position=1, level="principiante")
    fill_with_computer(table_id=table.pk, user=anna, position=3, level="medio")
    # Anna's side has its pozzetto and a clean burraco; the computers hold three loose cards each.
    # The stock has no wild card, so whatever Anna draws last can be her closing discard.
    force_position(
        table,
        hands=[["TS", "JS", "QS", "KS"], ["4C", "9D", "QH"], ["6D", "9S", "AH"], ["5S", "8D", "JC"]],
        stock=["KC", "7D", "3S", "TD", "6C", "QD", "9C", "4S", "8S", "JD"],
        discard=["3C"],
        pozzetti=[None, POZZETTO_B],
        melds=[[["3H", "4H", "5H", "6H", "7H", "8H", "9H"]], []],
        to_move=0,
    )
    # The computers' worker starts only now: the deal may have given a computer the first turn,
    # and a worker already running could play it on the dealt cards before the position is set.
    with celery_worker(django_db_blocker):
        ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
        ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
        try:
            page_a.goto(f"{live_site}/tavolo/{table.pk}/")
            page_b.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_version(page_a, 0)
            wait_version(page_b, 0)
            assert "Computer (Principiante)" in page_a.locator("#felt").inner_text()

            page_a.click("#btn-draw")
            wait_version(page_a, 1)
            page_a.locator("#hand .pcard.fresh").drag_to(page_a.locator("#discard"))  # the card just drawn
            wait_version(page_a, 2)

            # The computer in seat 2 plays its turn by itself; then it is Bruno's.
            wait_my_draw(page_b)
            assert page_b.locator("#last-move").inner_text().startswith("Computer (Principiante) scarta ")
            assert Move.objects.filter(game__table=table, actor="computer", seat=1).exists()
            page_b.click("#btn-draw")
            page_b.locator("#hand .pcard.fresh").wait_for()
            page_b.locator("#hand .pcard.fresh").drag_to(page_b.locator("#discard"))

            # The other computer plays; then Anna closes.
            wait_my_draw(page_a)
            assert Move.objects.filter(game__table=table, actor="computer", seat=3).exists()
            shoot(page_a, screenshot_dir, "table4-computers-1280")
            shoot(page_b, screenshot_dir, "table4-computers-390")
            page_a.click("#btn-draw")
            page_a.locator("#hand .pcard.fresh").wait_for()
            select(page_a, "TS", "JS", "QS")
            page_a.click("#btn-meld")
            page_a.wait_for_function("document.querySelectorAll('#hand .pcard').length === 2")
            card(page_a, "KS").drag_to(page_a.locator('#melds-us .meld[data-meld-id]').last)
            page_a.wait_for_function("document.querySelectorAll('#hand .pcard').length === 1")
            page_a.locator("#hand .pcard").drag_to(page_a.locator("#discard"))  # the closing discard

            for page in (page_a, page_b):
                page.locator("#score-dialog[open]").wait_for()
                closing = page.locator("#score-table tbody tr", has_text="Chiusura").locator("td").all_inner_texts()
                assert closing == ["100", "0"]
                assert "Partita finita. Avete vinto!" in page.locator("#score-result").inner_text()
            assert Game.objects.get(table=table).finished
            assert page_a.js_errors == [] and page_b.js_errors == []
        finally:
            ctx_a.close()
            ctx_b.close()

