"""The table page as a player meets it (issue 12), in Chromium at desktop (1280×800) and phone
(390×844) size, on one forced position shared by the whole test: the drag ghost, keyboard focus,
no text selection on a dead stock, a refusal that moves nothing, the picked-card mark, sorting
and the order kept across a reload, the move log, the wild marked in a meld, the table's rules,
the tab title, sounds and motion (and reduced motion), the real table layout and the phone's
fixed dock, and axe-core on both pages. Screenshots: test-output/screenshots/ui-*.png."""

from __future__ import annotations

import pytest

from games.engine import Ruleset
from games.models import Game, Move
from games.services.table.seating import create_table, sit
from tests.factories import make_user

from .axe import serious_violations
from .table_helpers import (
    DESKTOP,
    PHONE,
    POZZETTO_A,
    POZZETTO_B,
    card,
    force_position,
    hand,
    log_lines,
    select,
    shoot,
    signed_in_page,
    wait_version,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

POSITION = dict(
    hands=[["6H", "7H", "8H", "9H", "KS", "KD", "KC", "4C", "JS", "QD", "JK"],
           ["5S", "6S", "7S", "9C", "9D", "AS", "AD", "4H", "TD", "6C", "8D"]],
    stock=["5H", "3C", "8C", "TC", "5C", "JD"],
    discard=["QC"],
    pozzetti=[POZZETTO_A, POZZETTO_B],
    melds=[[["3D", "4D", "JK", "6D"]], []],  # the joker stands for the 5 of diamonds
    to_move=0,
)

KEY_OF_FOCUS = "document.activeElement && document.activeElement.dataset.key"


def played(page) -> list[str]:
    return page.evaluate("window.burracoTable.sounds.played")


def test_the_table_a_player_meets(live_site, browser, screenshot_dir):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = create_table(creator=anna, ruleset=Ruleset.preset("classico", draw_seconds=300, play_seconds=300))
    sit(table_id=table.pk, user=bruno, position=1)
    force_position(table, **POSITION)
    # Anna asked her system for less motion; Bruno did not.
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP, reduced_motion="reduce")
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, PHONE)
    try:
        for page in (page_a, page_b):
            page.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_version(page, 0)

        # A real table: we sit at the bottom, the other across; our melds between us and the pile.
        box = {slot: page_a.locator(f"#slot-{slot} .seat-box").bounding_box() for slot in ("top", "bottom")}
        assert box["top"]["y"] < page_a.locator("#stock").bounding_box()["y"] < box["bottom"]["y"]
        assert page_a.locator("#slot-bottom .seat-box-name").inner_text() == "anna (tu)"
        assert page_a.locator("#slot-top .seat-box-name").inner_text() == "bruno"
        assert page_a.locator("#slot-left").is_hidden()  # two players: nobody at the sides

        # The tab says whose turn it is.
        assert page_a.title().startswith("● Tocca a te · ")
        assert not page_b.title().startswith("●")

        # The card acting as a wild is marked, at the table as in the replay; the table's rules show.
        wild = page_a.locator("#melds-us .pcard.as-wild")
        assert wild.count() == 1 and wild.get_attribute("data-card") == "JK"
        assert "fa da jolly" in wild.get_attribute("aria-label")
        assert page_b.locator("#melds-them .pcard.as-wild").count() == 1
        assert "Classico" in page_a.locator("#rules-panel").inner_text()
        assert page_a.locator('#rules-diff li[data-option="draw_seconds"]').inner_text() == "Secondi per pescare: 300"
        assert page_a.locator("#game[aria-live]").count() == 0  # not one big live region

        # Bruno drags at the stock while it is not his turn: nothing moves, no text is selected.
        stock = page_b.locator("#stock").bounding_box()
        page_b.mouse.move(stock["x"] + 10, stock["y"] + 10)
        page_b.mouse.down()
        page_b.mouse.move(stock["x"] + 150, stock["y"] + 200, steps=5)
        page_b.mouse.up()
        assert page_b.evaluate("String(window.getSelection())") == ""
        assert page_b.locator(".drag-ghost").count() == 0

        # Anna drags a card of her hand: the ghost follows the pointer on screen, the page stays put.
        footer = page_a.locator(".footer").bounding_box()
        kd = card(page_a, "KD").bounding_box()
        page_a.mouse.move(kd["x"] + 20, kd["y"] + 30)
        page_a.mouse.down()
        page_a.mouse.move(kd["x"] + 40, kd["y"] - 150, steps=6)
        ghost = page_a.locator(".drag-ghost").bounding_box()
        assert ghost is not None
        assert 0 <= ghost["x"] < DESKTOP["width"] and 0 <= ghost["y"] < DESKTOP["height"]
        assert abs(ghost["x"] - (kd["x"] + 20)) < 80 and abs(ghost["y"] - (kd["y"] - 150)) < 80
        assert page_a.locator(".footer").bounding_box() == footer  # the footer did not jump
        # A frame arriving in the middle of the drag redraws the table; the drag goes on.
        page_a.evaluate("""() => window.burracoTable.handleFrame({type: "presence", seats: [
            {position: 0, online: true, covered_by_computer: false, computer: false},
            {position: 1, online: true, covered_by_computer: false, computer: false}]})""")
        page_a.mouse.move(kd["x"] + 60, kd["y"] - 170, steps=3)
        assert page_a.locator(".drag-ghost").count() == 1
        assert page_a.locator('#hand .pcard.drag-source[data-card="KD"]').count() == 1
        shoot(page_a, screenshot_dir, "ui-drag-1280")
        page_a.mouse.move(kd["x"] + 20, kd["y"] + 30, steps=3)  # back into the hand: no move at all
        page_a.mouse.up()
        assert page_a.locator(".drag-ghost").count() == 0
        assert Game.objects.get(table=table).version == 0

        # She takes the single card of the pile: it is marked as new, and as the picked card, explained.
        page_a.locator("#discard").drag_to(page_a.locator("#hand"))
        wait_version(page_a, 1)
        assert page_a.locator('#hand .pcard.fresh[data-card="QC"]').count() == 1
        picked = page_a.locator('#hand .pcard.picked[data-card="QC"]')
        assert picked.count() == 1 and "non si scarta" in picked.get_attribute("aria-label")
        assert page_a.locator("#picked-note").is_visible()
        assert "draw" in played(page_a)

        # A refusal floats over the hand: the cards do not move down.
        top = page_a.locator("#hand").bounding_box()["y"]
        select(page_a, "7H", "KS", "4C")
        page_a.click("#btn-meld")
        page_a.locator("#table-error").wait_for(state="visible")
        assert page_a.locator("#hand").bounding_box()["y"] == top
        page_a.keyboard.press("Escape")

        # The keyboard: Space picks the focused card and the focus stays on it through updates.
        card(page_a, "6H").focus()
        key = page_a.evaluate(KEY_OF_FOCUS)
        page_a.keyboard.press("Space")
        assert page_a.locator('#hand .pcard.selected[data-card="6H"]').count() == 1
        assert page_a.evaluate(KEY_OF_FOCUS) == key
        page_a.evaluate("""() => window.burracoTable.handleFrame({type: "presence", seats: [
            {position: 0, online: true, covered_by_computer: false, computer: false},
            {position: 1, online: true, covered_by_computer: false, computer: false}]})""")
        assert page_a.evaluate(KEY_OF_FOCUS) == key
        page_a.keyboard.press("ArrowRight")  # along the hand
        assert page_a.evaluate(KEY_OF_FOCUS) != key
        page_a.keyboard.press("Escape")
        assert page_a.locator("#hand .pcard.selected").count() == 0

        # Sort by rank, then her own order: both kept across a reload, with the move log.
        page_a.click("#btn-sort-rank")
        assert hand(page_a)[:3] == ["4C", "6H", "7H"] and hand(page_a)[-1] == "JK"
        card(page_a, "QC").drag_to(page_a.locator("#hand .pcard").first, target_position={"x": 5, "y": 30})
        mine = hand(page_a)
        assert mine[0] == "QC"
        page_a.click("#btn-sound")  # and sounds off
        assert page_a.locator("#btn-sound").get_attribute("aria-pressed") == "false"
        before_reload = log_lines(page_a)
        assert before_reload == ["anna raccoglie gli scarti (Q♣)"]
        page_a.reload()
        wait_version(page_a, 1)
        assert hand(page_a) == mine
        page_a.locator("#move-log li", has_text="raccoglie gli scarti (Q♣)").wait_for()
        assert page_a.locator("#btn-sound").get_attribute("aria-pressed") == "false"
        assert page_a.locator("#hand .pcard.fresh").count() == 0  # a reload brings no card

        # Meld with a right click, lay off by dragging onto the meld, discard by dragging to the pile.
        select(page_a, "7H", "8H", "9H")
        card(page_a, "KD").click(button="right")
        wait_version(page_a, 2)
        card(page_a, "6H").drag_to(page_a.locator('#melds-us .meld[data-meld-id]').last)
        wait_version(page_a, 3)
        card(page_a, "KD").drag_to(page_a.locator("#discard"))
        wait_version(page_a, 4)
        assert page_a.evaluate("window.burracoTable.motion.flights") == 0  # reduced motion: nothing flies
        assert page_a.evaluate("window.burracoTable.motion.skipped") > 0

        # Bruno saw it all happen: the lines of the log, a card flying to the pile, his turn's sound.
        wait_version(page_b, 4)
        assert log_lines(page_b) == [
            "anna raccoglie gli scarti (Q♣)", "anna cala 7♥ 8♥ 9♥", "anna lega 6♥", "anna scarta K♦"]
        assert page_b.evaluate("window.burracoTable.motion.flights") > 0
        assert "yourTurn" in played(page_b) and "meld" in played(page_b)
        assert page_b.title().startswith("● Tocca a te")
        # Ten seconds left on his clock: a short warning sound.
        page_b.evaluate("""() => { const s = window.burracoTable.state;
            s.deadline = new Date(Date.now() + s.skew + 10400).toISOString(); }""")
        page_b.wait_for_function("window.burracoTable.sounds.played.includes('tick')", timeout=3000)
        assert page_b.locator("#turn-clock.urgent").count() == 1
        assert [m.actor for m in Move.objects.filter(game__table=table)] == ["person"] * 4

        # The same at the other size: Anna (desktop) drags the dead stock; Bruno (phone) sorts, uses
        # the keyboard, drags a card and is refused, and the table's rules show on his phone too.
        stock = page_a.locator("#stock").bounding_box()
        page_a.mouse.move(stock["x"] + 10, stock["y"] + 10)
        page_a.mouse.down()
        page_a.mouse.move(stock["x"] + 300, stock["y"] + 300, steps=5)
        page_a.mouse.up()
        assert page_a.evaluate("String(window.getSelection())") == ""
        assert "Classico" in page_b.locator("#rules-panel").inner_text()
        page_b.click("#btn-sort-rank")
        assert hand(page_b)[:3] == ["4H", "5S", "6S"]
        card(page_b, "9C").focus()
        key = page_b.evaluate(KEY_OF_FOCUS)
        page_b.keyboard.press("Space")
        assert page_b.evaluate(KEY_OF_FOCUS) == key
        page_b.keyboard.press("Escape")
        page_b.click("#btn-draw")
        wait_version(page_b, 5)
        ad = card(page_b, "AD").bounding_box()
        page_b.mouse.move(ad["x"] + 10, ad["y"] + 20)
        page_b.mouse.down()
        page_b.mouse.move(ad["x"] + 30, ad["y"] - 200, steps=6)
        ghost = page_b.locator(".drag-ghost").bounding_box()
        assert 0 <= ghost["x"] < PHONE["width"] and 0 <= ghost["y"] < PHONE["height"]
        page_b.screenshot(path=str(screenshot_dir / "ui-drag-390.png"))
        page_b.mouse.move(ad["x"] + 10, ad["y"] + 20, steps=3)
        page_b.mouse.up()
        top = page_b.locator("#hand").bounding_box()["y"]
        select(page_b, "5S", "9C", "AD")
        page_b.click("#btn-meld")
        page_b.locator("#table-error").wait_for(state="visible")
        assert page_b.locator("#table-error").inner_text() == (
            "I valori delle carte non sono omogenei: non formano né una scala né un tris")
        assert page_b.locator("#hand").bounding_box()["y"] == top
        page_b.keyboard.press("Escape")

        # On the phone the hand, the stock and the pile stay on screen wherever the page scrolls.
        card(page_b, "6S").click()
        for scroll in (0, 10_000):
            page_b.evaluate(f"window.scrollTo(0, {scroll})")
            for target in ("#hand", "#stock", "#discard", "#btn-meld"):
                rect = page_b.locator(target).bounding_box()
                assert rect["y"] >= 0 and rect["y"] + rect["height"] <= PHONE["height"], (target, scroll, rect)
        page_b.evaluate("window.scrollTo(0, 0)")
        assert not page_b.evaluate("document.documentElement.scrollWidth > window.innerWidth")
        page_b.screenshot(path=str(screenshot_dir / "ui-table-390.png"))
        shoot(page_a, screenshot_dir, "ui-table-1280")

        assert serious_violations(page_a) == []
        assert serious_violations(page_b) == []
        assert page_a.js_errors == [] and page_b.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()
