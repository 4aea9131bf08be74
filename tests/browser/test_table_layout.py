"""The table as a card table on every screen (issue 29, items 1 and 2): at 1280×800, 1366×768,
768×1024, 390×844 and 844×390 (touch on the phone sizes), for two and four players, the page
never scrolls during a hand (with 11 cards in hand and with 35 after a big pick-up), every card's
corner index shows in the melds (wilds in runs and sets) and the hand, a wild says what it stands
for (the engine's reading), each meld its count; the score reads our side first; the move log
keeps its numbers whole; a refusal hides neither our name nor our clock; a chat phrase on a
closed pane gets a badge; axe-core on each state; bad input (a drag dropped nowhere, a double
tap, a rotation mid-drag, a resize mid-hand) sends nothing twice and loses nothing.
Screenshots: test-output/screenshots/layout-*.png."""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine import Ruleset
from games.models import Game
from games.services.table.seating import create_table, sit
from tests.factories import make_user

from .axe import serious_violations
from .table_helpers import card, force_position, hand, present, select, signed_in_page, wait_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {
    "1280x800": ({"width": 1280, "height": 800}, False),
    "1366x768": ({"width": 1366, "height": 768}, False),
    "768x1024": ({"width": 768, "height": 1024}, True),
    "390x844": ({"width": 390, "height": 844}, True),
    "844x390": ({"width": 844, "height": 390}, True),
}

# Melds with wilds in runs and sets, on both sides: the 2♥ stands for 2♣ (it is no clubs), the
# joker for 9♦, the 2♠ for a king, the joker in a burraco sporco for 8♣, the 2♣ for Q♥.
MELDS_US = [["AC", "2H", "3C", "4C"], ["7D", "8D", "JK", "TD", "JD", "QD"], ["KS", "KD", "2S"],
            ["3S", "4S", "5S", "6S", "7S", "8S", "9S"]]
MELDS_THEM = [["5C", "6C", "7C", "JK", "9C", "TC", "JC"], ["9H", "TH", "JH", "2C", "KH", "AH"],
              ["QS", "QC", "QH"]]
# Anna's eleven and the pile she picks up (24 cards: 35 in her hand after it).
ANNA = ["4H", "5H", "6H", "7H", "AS", "AD", "KC", "JS", "TS", "5D", "6D"]
BIG_PILE = ["3D", "4D", "9D", "3H", "8H", "3C", "8C", "2D", "JK", "5S", "6S", "7S", "KH", "QC", "AH", "4S",
            "TC", "9C", "JH", "JC", "TH", "9H", "KD", "6C"]
OTHERS = [["AS", "AD", "KC", "JS", "TS", "5D", "6D", "QD", "QH", "9S", "8S"],
          ["2C", "2D", "4D", "3D", "TD", "JD", "KS", "8D", "7C", "7D", "5H"],
          ["3H", "4H", "6H", "7H", "8H", "4C", "5C", "3S", "2S", "AC", "JK"]]
STOCK = ["8C", "9D", "QS", "2H"]
DECK = Counter({rank + suit: 2 for rank in "A23456789TJQK" for suit in "SHDC"}) + Counter({"JK": 4})


def mid_hand(players: int, *, pile: list[str]) -> dict:
    """A position in the middle of a hand, Anna (seat 0) to draw, every meld with a wild."""
    hands = [ANNA] + OTHERS[: players - 1]
    position = dict(hands=hands, stock=STOCK, discard=pile, pozzetti=[None, None],
                    melds=[MELDS_US, MELDS_THEM], to_move=0)
    every = Counter(c for h in hands for c in h) + Counter(STOCK) + Counter(pile)
    every += Counter(c for side in (MELDS_US, MELDS_THEM) for m in side for c in m)
    assert not every - DECK  # never more copies of a card than two decks hold
    return position


def closing(players: int) -> dict:
    """Anna (seat 0) can close: she draws 8C, melds TS JS QS KS and discards the 8C."""
    hands = [["TS", "JS", "QS", "KS"]] + [h[:5] for h in OTHERS[: players - 1]]
    return dict(hands=hands, stock=["8C", "6C", "4D", "7C"], discard=["3C"], pozzetti=[None, None],
                melds=[[MELDS_US[0], MELDS_US[3]], [MELDS_THEM[0]]], to_move=0)


def people_table(players: int, tag: str):
    users = [make_user(f"{name}{tag}") for name in ("anna", "bruno", "carla", "dario")[:players]]
    table = create_table(creator=users[0], ruleset=Ruleset.preset(
        "classico", players=players, draw_seconds=300, play_seconds=300))
    for position, user in enumerate(users[1:], start=1):
        sit(table_id=table.pk, user=user, position=position)
    return users, table


def open_page(browser, live_site, user, label):
    viewport, touch = VIEWPORTS[label]
    options = {"has_touch": True, "is_mobile": True} if touch else {}
    return signed_in_page(browser, live_site, user, viewport, **options)


FITS = """() => {
  const d = document.documentElement;
  const out = {sh: d.scrollHeight, sw: d.scrollWidth, h: innerHeight, w: innerWidth, y: scrollY, off: []};
  for (const sel of ['#hand .pcard', '#stock', '#discard', '#btn-draw', '#btn-discard', '#btn-meld',
                     '.seat-box', '#melds-us-wrap', '#melds-them-wrap']) {
    for (const node of document.querySelectorAll(sel)) {
      const r = node.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.top < -12 || r.left < -1 || r.bottom > innerHeight + 1 || r.right > innerWidth + 1)
        out.off.push([sel, node.dataset.card || node.id || '', Math.round(r.left), Math.round(r.top),
                      Math.round(r.right), Math.round(r.bottom)]);
    }
  }
  return out;
}"""


def assert_fits(page, where: str) -> None:
    """No page scroll: the document is exactly the viewport, and the table's parts are inside it."""
    got = page.evaluate(FITS)
    assert got["sh"] == got["h"] and got["sw"] == got["w"] and got["y"] == 0, (where, got)
    assert got["off"] == [], (where, got["off"])


# Every corner index of the melds, the hand and the top of the pile: no card drawn above it
# covers any of it, and the point at its centre belongs to its own card.
INDICES = """() => {
  const bad = [];
  const groups = [...document.querySelectorAll('#melds-us .meld-cards, #melds-them .meld-cards, #hand')];
  const top = document.querySelector('#discard .pcard.top');
  if (top) groups.push({cards: [top]});
  let checked = 0;
  for (const g of groups) {
    const cards = g.cards || [...g.querySelectorAll('.pcard')];
    cards.forEach((c, i) => {
      const idx = c.querySelector('.idx').getBoundingClientRect();
      checked += 1;
      for (const d of cards.slice(i + 1)) {  // drawn later: above it
        const r = d.getBoundingClientRect();
        const w = Math.min(idx.right, r.right) - Math.max(idx.left, r.left);
        const h = Math.min(idx.bottom, r.bottom) - Math.max(idx.top, r.top);
        if (w > 0.5 && h > 0.5) bad.push(['covered', c.dataset.card, 'by', d.dataset.card, w, h]);
      }
      const x = idx.left + idx.width / 2, y = idx.top + idx.height / 2;
      const hit = document.elementFromPoint(x, y);
      if (!hit || hit.closest('.pcard') !== c) bad.push(['point', c.dataset.card, hit ? hit.className : null, x, y]);
    });
  }
  return {bad, checked};
}"""


def assert_indices(page, where: str) -> int:
    page.mouse.move(0, 0)  # no card lifted by the pointer
    page.wait_for_timeout(300)  # the fan's cards have slid to their places
    got = page.evaluate(INDICES)
    assert got["bad"] == [], (where, got["bad"][:6])
    return got["checked"]


def pick(page, *cards: str) -> None:
    """Choose cards of a fanned hand by their corner (the part of a card always in view)."""
    for text in cards:
        card(page, text).click(position={"x": 7, "y": 12})


def shot(page, folder, name: str) -> None:
    page.screenshot(path=str(folder / f"layout-{name}.png"))


def wild_readings(page, side: str) -> list[str]:
    return page.locator(f"#melds-{side} .meld-wild:not([hidden])").all_inner_texts()


@pytest.mark.parametrize("label", list(VIEWPORTS))
@pytest.mark.parametrize("players", [2, 4])
def test_a_card_table_on_every_screen(live_site, browser, screenshot_dir, label, players):
    tag = f"{players}{label.replace('x', '')}"
    users, table = people_table(players, tag)
    with present(live_site, table, users[1:]):  # everybody at the table: no notice of anyone away
        context, page = open_page(browser, live_site, users[0], label)
        try:
            # The start of a hand: eleven cards, nothing melded.
            page.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_version(page, 0)
            assert len(hand(page)) == 11
            assert page.locator("#notices .notice").count() == 0
            assert_fits(page, "start")
            assert_indices(page, "start")
            shot(page, screenshot_dir, f"{players}p-{label}-start")
            if label in ("1280x800", "390x844"):
                assert serious_violations(page) == [], "start"

            # The middle of a hand, wilds in runs and sets on both sides.
            force_position(table, **mid_hand(players, pile=BIG_PILE))
            page.reload()
            wait_version(page, 0)
            assert_fits(page, "mid-hand, 11 cards")
            assert assert_indices(page, "mid-hand") >= 11 + 4 + 6 + 3 + 7 + 7 + 6 + 3
            # Each wild says what it stands for, as the engine read it; each meld its count and burraco.
            assert wild_readings(page, "us") == ["2♥ = 2♣", "JK = 9♦", "2♠ = K"]
            assert wild_readings(page, "them") == ["JK = 8♣", "2♣ = Q♥"]
            assert page.locator("#melds-us .meld-count").all_inner_texts() == ["4", "6", "3", "7"]
            assert page.locator("#melds-us .meld.burraco .meld-tag").inner_text() == "burraco pulito"
            assert page.locator("#melds-them .meld.burraco .meld-tag").inner_text() == "burraco sporco"
            # The others' seats say who took the pozzetto (both sides have, in this position).
            assert page.locator("#slot-top .seat-pozzetto").inner_text() == "pozzetto preso"
            # Every seat's parts inside its box and none over another (on one line or more).
            for seat in page.evaluate(SEAT_LINES):
                assert [bad for bad in seat["bad"] if bad[0] != "lines"] == [], (label, seat)
            shot(page, screenshot_dir, f"{players}p-{label}-mid")

            # A big pick-up: 35 cards; the fan closes up, still no page scroll, every index still shows.
            if VIEWPORTS[label][1]:
                page.locator("#btn-take").tap()
            else:
                page.locator("#discard").drag_to(page.locator("#hand"))
            wait_version(page, 1)
            page.wait_for_function("document.querySelectorAll('#hand .pcard').length === 35")
            page.wait_for_timeout(250)  # the fan's slide
            assert_fits(page, "35 cards")
            assert_indices(page, "35 cards")
            shot(page, screenshot_dir, f"{players}p-{label}-35cards")
            # The card under the pointer lifts out of the fan.
            ten = card(page, "TC")
            resting = ten.bounding_box()["y"]
            ten.hover(position={"x": 7, "y": 12})
            page.wait_for_timeout(200)
            assert ten.bounding_box()["y"] < resting - 3
            # Meld, lay off, discard: fits at every point.
            pick(page, "4H", "5H", "6H")
            page.click("#btn-meld")
            wait_version(page, 2)
            assert_fits(page, "after a meld")
            pick(page, "7H")
            page.locator("#melds-us .meld[data-meld-id]").last.click()
            wait_version(page, 3)
            assert_fits(page, "after a lay-off")
            assert_indices(page, "after a lay-off")
            if label in ("1280x800", "390x844"):
                assert serious_violations(page) == [], "35 cards"
            pick(page, "KC")
            page.click("#btn-discard")
            wait_version(page, 4)
            assert_fits(page, "after the discard")

            # Scoring: Anna closes from another position.
            force_position(table, **closing(players))
            game = Game.objects.get(table=table)
            page.reload()
            wait_version(page, game.version)
            assert_fits(page, "closing position")
            page.click("#btn-draw")
            wait_version(page, game.version + 1)
            select(page, "TS", "JS", "QS", "KS")
            page.click("#btn-meld")
            wait_version(page, game.version + 2)
            select(page, "8C")
            page.click("#btn-discard")
            page.locator("#score-dialog[open]").wait_for()
            assert_fits(page, "scoring")
            # Each name heading the scoring reads whole on one line (the "(tu)" may go below it).
            assert page.evaluate(NAMES_ON_ONE_LINE) == [], "a name in the scoring's head broken across lines"
            page.wait_for_timeout(400)  # the discarded card's flight (320 ms) has landed
            shot(page, screenshot_dir, f"{players}p-{label}-score")
            if label in ("1280x800", "390x844"):
                assert serious_violations(page) == [], "scoring"
            assert page.js_errors == []
        finally:
            context.close()


# The score table's name headings whose name (the text before " (") spans more than one line.
NAMES_ON_ONE_LINE = """() => [...document.querySelectorAll('#score-table thead th')].flatMap((th) => {
  const text = th.firstChild;
  if (!text || text.nodeType !== Node.TEXT_NODE || !text.data.trim()) return [];
  const end = text.data.indexOf(" (") >= 0 ? text.data.indexOf(" (") : text.data.length;
  const range = document.createRange();
  range.setStart(text, 0);
  range.setEnd(text, end);
  const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return tops.size > 1 ? [text.data] : [];
})"""

# 143 lines in the move log, and for lines 1, 10, 137 and 143: the number drawn, whether it
# starts inside the log's box, and the width it gets.
FAKE_LOG = """() => { const lines = [];
  for (let i = 1; i <= 143; i++) lines.push({version: 1000 + i, seat: 0, text: 'mossa ' + i});
  window.burracoTable.state.log = lines; window.burracoTable.render(); }"""
LOG_NUMBERS = """() => {
  const box = document.getElementById('move-log').getBoundingClientRect();
  return [...document.querySelectorAll('#move-log li')].filter((li, i) => [0, 9, 136, 142].includes(i)).map((li) => {
    const number = li.querySelector('.move-n');
    return [number.textContent, number.getBoundingClientRect().left >= box.left - 0.5,
            number.getBoundingClientRect().width];
  });
}"""
WIDEST_NUMBER = """() => { const c = document.createElement('canvas').getContext('2d');
  c.font = getComputedStyle(document.querySelector('#move-log li')).font; return c.measureText('143.').width; }"""


def selected(page) -> list[str]:
    return sorted(page.locator("#hand .pcard.selected").evaluate_all("els => els.map(e => e.dataset.card)"))


def sent_actions(page) -> list:
    return page.evaluate("window.__wire.filter(e => e[1] === 'out' && e[2] === 'action').map(e => e[3])")


def test_side_panes_badges_score_order_log_numbers_and_refusals(live_site, browser, screenshot_dir):
    """Bruno (seat 1, the second side) on a phone; Anna on a desktop."""
    users, table = people_table(2, "panes")
    force_position(table, **mid_hand(2, pile=["QC"]))
    ctx_a, anna = open_page(browser, live_site, users[0], "1280x800")
    ctx_b, bruno = open_page(browser, live_site, users[1], "390x844")
    try:
        for page in (anna, bruno):
            page.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_version(page, 0)
        # The score reads our side first, whichever side we are.
        assert bruno.locator("#totals th").all_inner_texts() == [f"{users[1].username} (tu)", users[0].username]
        assert anna.locator("#totals th").all_inner_texts() == [f"{users[0].username} (tu)", users[1].username]

        # On the phone the panes are a drawer; a chat phrase to a closed pane gets a badge.
        assert bruno.locator("#board-side").is_hidden()
        anna.select_option("#chat-phrase", "buona_fortuna")
        anna.click("#chat-form button[type=submit]")
        badge = bruno.locator('.side-tab[data-pane="chat"] .badge')
        badge.wait_for()
        assert badge.inner_text() == "1"
        assert_fits(bruno, "a badge")
        shot(bruno, screenshot_dir, "panes-390-badge")
        bruno.locator('.side-tab[data-pane="chat"]').tap()
        bruno.locator("#chat-log li", has_text="Buona fortuna").wait_for()
        assert badge.is_hidden()
        assert bruno.locator('.side-tab[data-pane="chat"]').get_attribute("aria-expanded") == "true"
        assert_fits(bruno, "the chat open")
        shot(bruno, screenshot_dir, "panes-390-chat")
        assert serious_violations(bruno) == []
        bruno.locator("#side-close").tap()
        assert bruno.locator("#board-side").is_hidden()

        # Anna's moves arrive in Bruno's closed log: a badge; opened, the lines and their numbers.
        anna.click("#btn-draw")
        wait_version(bruno, 1)
        log_badge = bruno.locator('.side-tab[data-pane="log"] .badge')
        log_badge.wait_for()
        assert log_badge.inner_text() == "1"
        bruno.locator('.side-tab[data-pane="log"]').tap()
        assert log_badge.is_hidden()
        # The numbers stay whole to three digits ("143.", not "43."): drawn inside the line's box.
        bruno.evaluate(FAKE_LOG)
        numbers = bruno.evaluate(LOG_NUMBERS)
        assert [n[0] for n in numbers] == ["1.", "10.", "137.", "143."]
        assert all(n[1] for n in numbers)
        widest = bruno.evaluate(WIDEST_NUMBER)
        assert all(n[2] >= widest for n in numbers), (numbers, widest)
        shot(bruno, screenshot_dir, "panes-390-log")
        bruno.keyboard.press("Escape")
        assert bruno.locator("#board-side").is_hidden()

        # A refusal covers neither Anna's name and clock nor her hand.
        select(anna, "AS", "KC", "5D")
        anna.click("#btn-meld")
        error = anna.locator("#table-error")
        error.wait_for(state="visible")
        box = error.bounding_box()
        for target in ("#slot-bottom .seat-box", "#slot-bottom .seat-clock", "#hand"):
            other = anna.locator(target).bounding_box()
            assert other is not None
            apart = (box["y"] + box["height"] <= other["y"] or other["y"] + other["height"] <= box["y"]
                     or box["x"] + box["width"] <= other["x"] or other["x"] + other["width"] <= box["x"])
            assert apart, (target, box, other)
        shot(anna, screenshot_dir, "panes-1280-refusal")
        assert anna.js_errors == [] and bruno.js_errors == []
    finally:
        ctx_a.close()
        ctx_b.close()


def test_bad_input_sends_nothing_twice_and_loses_nothing(live_site, browser, screenshot_dir):
    users, table = people_table(2, "bad")
    force_position(table, **mid_hand(2, pile=["QC"]))
    context, page = open_page(browser, live_site, users[0], "390x844")
    try:
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_version(page, 0)
        before = hand(page)

        # A card dragged and dropped outside any target (on the opponent's seat): nothing moves.
        source = card(page, "KC").bounding_box()
        seat = page.locator("#slot-top .seat-box").bounding_box()
        page.mouse.move(source["x"] + 8, source["y"] + 20)
        page.mouse.down()
        page.mouse.move(seat["x"] + 20, seat["y"] + 10, steps=6)
        page.mouse.up()
        assert page.locator(".drag-ghost").count() == 0 and page.locator(".drag-source").count() == 0
        assert hand(page) == before and sent_actions(page) == []

        # A double tap on a card: chosen, then not; the hand as it was.
        page.locator('#hand .pcard[data-card="KC"]').tap()
        page.locator('#hand .pcard[data-card="KC"]').tap()
        assert page.locator("#hand .pcard.selected").count() == 0 and hand(page) == before

        # A double tap on "Pesca": one draw sent, one card more.
        page.evaluate("() => { const b = document.getElementById('btn-draw'); b.click(); b.click(); }")
        wait_version(page, 1)
        page.wait_for_timeout(300)
        assert sent_actions(page) == ["draw"]
        assert len(hand(page)) == 12 and Game.objects.get(table=table).version == 1
        after_draw = hand(page)

        # A rotation in the middle of a drag: the drag is dropped, nothing sent, the hand as it was.
        source = card(page, "KC").bounding_box()
        page.mouse.move(source["x"] + 8, source["y"] + 20)
        page.mouse.down()
        page.mouse.move(source["x"] + 30, source["y"] - 120, steps=5)
        assert page.locator(".drag-ghost").count() == 1
        page.set_viewport_size({"width": 844, "height": 390})
        page.wait_for_timeout(200)
        discard = page.locator("#discard").bounding_box()
        page.mouse.move(discard["x"] + 10, discard["y"] + 10, steps=4)
        page.mouse.up()
        assert page.locator(".drag-ghost").count() == 0 and page.locator(".drag-source").count() == 0
        assert sent_actions(page) == ["draw"] and hand(page) == after_draw
        assert_fits(page, "after a rotation")
        shot(page, screenshot_dir, "bad-input-844-rotated")

        # A resize in the middle of the hand, with cards chosen: they stay chosen, nothing is sent.
        select(page, "4H", "5H")
        for size in ({"width": 768, "height": 1024}, {"width": 390, "height": 844}):
            page.set_viewport_size(size)
            page.wait_for_timeout(200)
            assert_fits(page, f"resized to {size}")
            assert hand(page) == after_draw
            assert selected(page) == ["4H", "5H"]
        assert sent_actions(page) == ["draw"]

        # A double tap on "Scarta" with one card chosen: one discard.
        page.keyboard.press("Escape")
        select(page, "KC")
        page.evaluate("() => { const b = document.getElementById('btn-discard'); b.click(); b.click(); }")
        wait_version(page, 2)
        page.wait_for_timeout(300)
        assert sent_actions(page) == ["draw", "discard"] and Game.objects.get(table=table).version == 2
        assert len(hand(page)) == 11
        assert page.js_errors == []
    finally:
        context.close()


# Every seat box on one line, its parts (the dot, the name, our "(tu)", the clock, the count, the
# pozzetto) side by side inside it, none over another; the whole name in the text and the title.
SEAT_LINES = """() => {
  const out = [];
  for (const seat of document.querySelectorAll('.seat-box')) {
    const b = seat.getBoundingClientRect();
    if (!b.width) continue;
    const nameBox = seat.querySelector('.seat-box-name').getBoundingClientRect();
    // What shows of a part of the name is what its box (cut by the ellipsis) lets show.
    const seen = (n) => {
      const r = n.getBoundingClientRect();
      if (!n.closest('.seat-box-name')) return r;
      const left = Math.max(r.left, nameBox.left), right = Math.min(r.right, nameBox.right);
      return {left, right, top: r.top, bottom: r.bottom, width: Math.max(0, right - left), height: r.height};
    };
    const kinds = '.dot, .seat-who, .you-tag, .partner-tag, .seat-clock, .seat-box-count, .seat-pozzetto';
    const parts = [...seat.querySelectorAll(kinds)]
      .map((n) => [n.className, seen(n)]).filter(([, r]) => r.width > 0 && r.height > 0);
    const bad = [];
    parts.forEach(([name, r], i) => {
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5)
        bad.push(['outside', name]);
      for (const [other, q] of parts.slice(i + 1)) {
        const w = Math.min(r.right, q.right) - Math.max(r.left, q.left);
        const h = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
        if (w > 0.5 && h > 0.5) bad.push(['overlap', name, other]);
      }
    });
    const tallest = Math.max(...parts.map(([, r]) => r.height));
    const lines = Math.max(...parts.map(([, r]) => r.bottom)) - Math.min(...parts.map(([, r]) => r.top));
    if (lines > tallest * 1.5) bad.push(['lines', lines, tallest]);
    const name = seat.querySelector('.seat-box-name');
    out.push({pos: seat.dataset.position, text: name.textContent, title: name.title, bad});
  }
  return out;
}"""
LONG_NAMES = ["annamaria_cristina20", "bruno_bartolomeo_2020", "carla_costanza_20xyz", "dario_domenico_20abc"]


@pytest.mark.parametrize("players", [2, 4])
def test_phone_on_its_side_every_seat_is_one_readable_line(live_site, browser, screenshot_dir, players):
    users = [make_user(f"{name[:-1]}{players}") for name in LONG_NAMES[:players]]
    assert all(len(u.username) >= 20 for u in users)
    table = create_table(creator=users[0], ruleset=Ruleset.preset(
        "classico", players=players, draw_seconds=300, play_seconds=300))
    for position, user in enumerate(users[1:], start=1):
        sit(table_id=table.pk, user=user, position=position)
    force_position(table, **mid_hand(players, pile=["QC"]))  # both pozzetti taken: "P ✓" on every seat
    context, page = open_page(browser, live_site, users[0], "844x390")
    try:
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_version(page, 0)
        assert page.locator("#slot-bottom .seat-clock").is_visible()
        assert page.locator("#slot-bottom .seat-pozzetto").is_visible()
        shot(page, screenshot_dir, f"{players}p-844x390-long-names")
        seats = page.evaluate(SEAT_LINES)
        assert len(seats) == players
        for seat in seats:
            assert seat["bad"] == [], seat
        mine = next(seat for seat in seats if seat["pos"] == "0")
        assert mine["text"] == mine["title"] == f"{users[0].username} (tu)"
        # Short names as well (the layout's own players): still one line each.
        assert_fits(page, "long names")
        assert page.js_errors == []
    finally:
        context.close()


# Each notice against what it must never cover: the site's header, the table's head and its tabs,
# our own name and clock, the hand; and each notice is whole inside its box (none cut off).
NOTICES_CLEAR = """() => {
  const box = (n) => n.getBoundingClientRect();
  const shown = (n) => { const r = box(n); return r.width > 0 && r.height > 0; };
  const keep = [...document.querySelectorAll(
    'header.topbar, .table-head, .side-tab, #slot-bottom .seat-box, #slot-bottom .seat-clock, #hand')].filter(shown);
  const area = box(document.getElementById('notices'));
  const out = {bad: [], shown: 0};
  for (const n of document.querySelectorAll('#notices .notice')) {
    const a = box(n);
    out.shown += 1;
    if (a.top < area.top - 0.5 || a.bottom > area.bottom + 0.5 || a.left < -0.5 || a.right > innerWidth + 0.5)
      out.bad.push(['cut', n.textContent, Math.round(a.top), Math.round(a.bottom), Math.round(area.bottom)]);
    for (const k of keep) {
      const b = box(k);
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 0.5 && h > 0.5) out.bad.push(['covers', k.className || k.id, n.textContent]);
    }
    const text = box(n.querySelector('.notice-text'));
    const hit = document.elementFromPoint(text.left + text.width / 2, text.top + text.height / 2);
    if (!hit || !n.contains(hit)) out.bad.push(['hidden', n.textContent, hit ? hit.className : null]);
  }
  return out;
}"""

# A timeout the server played for Bruno (closable), the computer covering Carla, Dario away.
SOME_NOTICES = """() => {
  const t = window.burracoTable;
  t.state.notices.set('timeout-1', {kind: 'timeout', seat: 1,
    text: 'Tempo scaduto per ' + t.state.seats.get(1).name + ': il server ha finito il turno.'});
  t.handleFrame({type: 'presence', watchers: 0, seats: [
    {position: 0, online: true, covered_by_computer: false, computer: false},
    {position: 1, online: true, covered_by_computer: false, computer: false},
    {position: 2, online: false, covered_by_computer: true, computer: false},
    {position: 3, online: false, covered_by_computer: false, computer: false}]});
}"""


@pytest.mark.parametrize("label", list(VIEWPORTS))
def test_notices_never_cover_the_header_the_tabs_our_seat_or_the_hand(live_site, browser, screenshot_dir, label):
    users, table = people_table(4, f"n{label.replace('x', '')}")
    force_position(table, **mid_hand(4, pile=["QC"]))
    context, page = open_page(browser, live_site, users[0], label)
    try:
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_version(page, 0)
        page.evaluate(SOME_NOTICES)
        page.wait_for_function("document.querySelectorAll('#notices .notice').length === 3")
        assert page.locator("#slot-bottom .seat-clock").is_visible()  # Anna's turn: her clock shows
        got = page.evaluate(NOTICES_CLEAR)
        shot(page, screenshot_dir, f"notices-{label}")
        assert got["shown"] == 3 and got["bad"] == [], got
        assert_fits(page, "notices")
        # The closable one still closes.
        page.locator("#notices .notice-close").click()
        page.wait_for_function("document.querySelectorAll('#notices .notice').length === 2")
        assert page.js_errors == []
    finally:
        context.close()


# A long hand's log on a desktop: moves of one line and pick-ups of many cards (three or four
# lines each), the newest a pick-up; and a chat that has filled its box.
LONG_LOG = """() => {
  const t = window.burracoTable;
  const pile = '3♦ 4♦ 9♦ 3♥ 8♥ 3♣ 8♣ 2♦ JK 5♠ 6♠ 7♠ K♥ Q♣ A♥ 4♠ 10♣ 9♣ J♥ J♣ 10♥ 9♥ K♦ 6♣';
  const name = (seat) => t.state.seats.get(seat).name;
  const lines = [];
  for (let i = 1; i <= 40; i++) {
    lines.push({version: 3000 + i, seat: i % 2,
                text: i % 4 ? `${name(i % 2)} scarta 7♠` : `${name(i % 2)} raccoglie gli scarti (${pile})`});
  }
  lines.push({version: 3100, seat: 0, text: `${name(0)} raccoglie gli scarti (${pile}) — prende il pozzetto`});
  const chat = document.getElementById('chat-log');
  for (let i = 0; i < 12; i++) {
    const li = document.createElement('li');
    li.textContent = 'bruno: Buona fortuna';
    chat.append(li);
  }
  t.state.log = lines;
  t.render();
}"""
LOG_READABLE = """() => {
  const log = document.getElementById('move-log');
  const box = log.getBoundingClientRect();
  const items = [...log.children].map((li) => li.getBoundingClientRect());
  const last = items[items.length - 1];
  return {client: log.clientHeight, tallest: Math.max(...items.map((r) => r.height)),
          top: last.top - box.top, bottom: box.bottom - last.bottom,
          lineHeight: parseFloat(getComputedStyle(log).lineHeight)};
}"""


@pytest.mark.parametrize("label", ["1280x800", "1366x768"])
def test_on_a_desktop_every_move_of_the_log_reads_whole(live_site, browser, screenshot_dir, label):
    users, table = people_table(2, f"log{label.replace('x', '')}")
    force_position(table, **mid_hand(2, pile=["QC"]))
    context, page = open_page(browser, live_site, users[0], label)
    try:
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        wait_version(page, 0)
        page.evaluate(LONG_LOG)
        # The log follows its newest line in the next animation frame.
        page.wait_for_function("() => { const l = document.getElementById('move-log');"
                               " return l.children.length === 41 && l.scrollTop > 0; }", timeout=3000)
        got = page.evaluate(LOG_READABLE)
        shot(page, screenshot_dir, f"log-{label}")
        # The box holds the longest move whole, and scrolled to the newest it shows all of it.
        assert got["tallest"] <= got["client"], got
        assert got["top"] >= -0.5 and got["bottom"] >= -0.5, got
        assert got["client"] >= 5 * got["lineHeight"], got  # a few moves at a glance, not a slit
        assert page.js_errors == []
    finally:
        context.close()
