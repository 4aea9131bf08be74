"""Friends and the bell in Chromium (issue 14 items 4 and 8), desktop (1280) and phone (390):
Anna follows Bruno from his profile; her "Amici" page shows him offline, then online as soon as
a page of his opens (live, over the lobby socket), seated at a table, with "Guarda", which takes
her there as a spectator. The bell rings live with an invitation and with "your turn" at a
table the player is not looking at, opens to a list of links, is read when opened, and stays
read after a reload."""

from __future__ import annotations

import re

import pytest

from games.models import Follow, Game, Notification, Table
from games.services.lobby import challenges
from games.services.table import play
from tests.factories import make_user
from tests.games.helpers import engine_of, started_table

from .axe import serious_violations
from .table_helpers import DESKTOP, PHONE, signed_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def fits_the_screen(page) -> bool:
    return not page.evaluate("document.documentElement.scrollWidth > window.innerWidth")


def test_follow_from_the_profile_and_see_the_friend_online_at_a_table_with_a_watch_link(
        live_site, browser, screenshot_dir):
    anna, bruno, carla = make_user("anna"), make_user("bruno"), make_user("carla")
    table = started_table([bruno, carla])
    ctx_a, page_a = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_p, page_p = signed_in_page(browser, live_site, anna, PHONE)
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, DESKTOP)
    try:
        page_a.goto(f"{live_site}/giocatori/bruno/")
        page_a.click("#follow-button")
        page_a.wait_for_url(f"{live_site}/giocatori/bruno/")
        assert "Ora segui bruno" in page_a.locator(".messages").inner_text()
        assert page_a.locator("#unfollow-button").is_visible()
        page_a.screenshot(path=str(screenshot_dir / "follow-profile-1280.png"))
        assert serious_violations(page_a) == []
        assert list(Follow.objects.values_list("follower__username", "followed__username")) == [("anna", "bruno")]

        # Bruno has no page open: offline, but his table is shown.
        page_a.goto(f"{live_site}/amici/")
        friend = page_a.locator('#friend-list .friend[data-key="bruno"]')
        assert "non collegato" in friend.inner_text()
        assert f"gioca al tavolo {table.pk}" in friend.inner_text()

        # He opens a page: her list says so without a reload.
        page_b.goto(f"{live_site}/regole/")
        page_a.wait_for_selector('#friend-list .friend.online[data-key="bruno"]', timeout=5000)
        friend = page_a.locator('#friend-list .friend[data-key="bruno"]')
        assert "collegato" in friend.inner_text() and "non collegato" not in friend.inner_text()
        watch = friend.locator(f'.friend-table[data-table-id="{table.pk}"] a')
        assert watch.inner_text() == "Guarda" and watch.get_attribute("href") == f"/tavolo/{table.pk}/"
        page_a.screenshot(path=str(screenshot_dir / "friends-online-1280.png"))
        assert serious_violations(page_a) == []

        page_p.goto(f"{live_site}/giocatori/bruno/")
        assert page_p.locator("#unfollow-button").is_visible() and fits_the_screen(page_p)
        page_p.screenshot(path=str(screenshot_dir / "follow-profile-390.png"))
        assert serious_violations(page_p) == []
        page_p.goto(f"{live_site}/amici/")
        page_p.wait_for_selector('#friend-list .friend.online[data-key="bruno"]')
        assert fits_the_screen(page_p)
        page_p.screenshot(path=str(screenshot_dir / "friends-online-390.png"), full_page=True)
        assert serious_violations(page_p) == []

        watch.click()
        page_a.wait_for_url(f"{live_site}/tavolo/{table.pk}/")
        page_a.locator("#table-page").wait_for()
        assert Table.objects.get(pk=table.pk).seats.filter(user=anna).count() == 0  # watching, not seated

        # He closes his page: offline again, live, once the closed page's linger (3 s) is over.
        page_p.bring_to_front()
        page_b.close()
        page_p.wait_for_selector('#friend-list .friend:not(.online)[data-key="bruno"]', timeout=8000)
        assert page_a.js_errors == [] and page_p.js_errors == [] and page_b.js_errors == []
    finally:
        for ctx in (ctx_a, ctx_p, ctx_b):
            ctx.close()


def test_the_bell_rings_live_lists_links_is_read_when_opened_and_survives_a_reload(
        live_site, browser, screenshot_dir):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = started_table([anna, bruno])
    game = Game.objects.get(table=table)
    users = {0: anna, 1: bruno}
    mover, other = users[game.to_move], users[1 - game.to_move]
    ctx_d, desk = signed_in_page(browser, live_site, other, DESKTOP)
    ctx_p, phone = signed_in_page(browser, live_site, other, PHONE)
    try:
        desk.goto(f"{live_site}/regole/")
        phone.goto(f"{live_site}/storico/")
        for page in (desk, phone):
            assert page.locator("#bell-count").is_hidden()
            page.wait_for_function("window.__wire.some((w) => w[1] === 'in' && w[2] === 'bell')")

        challenges.send_challenge(challenger=mover, username=other.username, preset="mano_unica")
        # The mover plays a turn: the turn passes to the other player, who is not at the table.
        version = play.submit_action(game_id=game.pk, seat=game.to_move, action={"type": "draw"}, user=mover)
        card = engine_of(Game.objects.get(pk=game.pk)).hands[game.to_move][0].text
        play.submit_action(game_id=game.pk, seat=game.to_move, action={"type": "discard", "card": card},
                           user=mover, expected_version=version)

        for page in (desk, phone):
            page.wait_for_function("document.getElementById('bell-count').textContent.trim().startsWith('2')",
                                   timeout=5000)
            assert page.locator("#bell-count").is_visible()
        assert "Nuova notifica" in desk.locator("#bell-status").inner_text()
        phone.screenshot(path=str(screenshot_dir / "bell-count-390.png"),
                         clip={"x": 0, "y": 0, "width": 390, "height": 120})

        desk.click("#bell-button")
        items = desk.locator("#bell-list .bell-item")
        assert items.count() == 2
        texts = [items.nth(i).inner_text() for i in range(2)]
        assert texts == [f"Tocca a te al tavolo {table.pk}.", f"{mover.username} ti sfida a una partita (Mano unica)."]
        assert items.nth(0).locator("a").get_attribute("href") == f"/tavolo/{table.pk}/"
        assert items.nth(1).locator("a").get_attribute("href") == "/gioca/#invitations"
        assert desk.locator("#bell-count").is_hidden()  # opened: read
        desk.screenshot(path=str(screenshot_dir / "bell-open-1280.png"))
        assert serious_violations(desk) == []
        # The phone's bell goes quiet too (its page hears the same person's frame).
        phone.wait_for_selector("#bell-count", state="hidden", timeout=5000)
        # The read bell frame reached the open panel too: what was new stays marked while it is open.
        desk.wait_for_function("window.__wire.filter((w) => w[1] === 'in' && w[2] === 'bell').length >= 4")
        assert desk.locator("#bell-list .bell-item.unread").count() == 2, (
            desk.evaluate("[document.getElementById('bell').open, document.getElementById('bell-list').outerHTML,"
                          " JSON.stringify(window.__wire)]"))
        assert not Notification.objects.filter(user=other, read_at__isnull=True).exists()

        phone.click("#bell-button")
        assert phone.locator("#bell-panel").is_visible()
        assert fits_the_screen(phone)
        phone.screenshot(path=str(screenshot_dir / "bell-open-390.png"))
        assert serious_violations(phone) == []
        phone.keyboard.press("Escape")
        assert phone.locator("#bell-panel").is_hidden()

        # Closed: nothing marked new any more. A reload: still read, still listed (stored).
        desk.keyboard.press("Escape")
        assert desk.locator("#bell-list .bell-item.unread").count() == 0
        desk.reload()
        assert desk.locator("#bell-count").is_hidden()
        desk.click("#bell-button")
        assert desk.locator("#bell-list .bell-item").count() == 2
        desk.locator("#bell-list .bell-item a").first.click()
        desk.wait_for_url(re.compile(rf"/tavolo/{table.pk}/$"))
        assert desk.js_errors == [] and phone.js_errors == []
    finally:
        for ctx in (ctx_d, ctx_p):
            ctx.close()
