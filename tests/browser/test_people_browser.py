"""Finding people, quick play and the new settings in Chromium (issue 29 item 6), at 1280×800
and 390×844: a new player with no rated game is found by name from "Amici" and challenged;
quick play with Classico against esperto lands at a table of those rules; an e-mail change
takes effect through the mailed link; a deleted account's seat reads "giocatore eliminato" in
the history; the table's sounds start off for a player whose settings say so."""

from __future__ import annotations

import email
import re
from urllib.parse import urlsplit

import pytest

from games.engine import Ruleset
from games.models import Challenge, Table
from tests.conftest import OUTPUT
from tests.factories import finished_match, make_user
from tests.games.helpers import started_table

from .axe import serious_violations
from .table_helpers import DESKTOP, PHONE, signed_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "Scopa-Briscola-77"


def fits_the_screen(page) -> bool:
    return not page.evaluate("document.documentElement.scrollWidth > window.innerWidth")


def test_a_new_player_is_found_by_name_from_the_friends_page_and_challenged(live_site, browser, screenshot_dir):
    anna = make_user("anna")
    make_user("Bruno_Nuovo")  # no game at all: not on any leaderboard
    make_user("brunella")
    ctx, page = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_p, phone = signed_in_page(browser, live_site, anna, PHONE)
    try:
        page.goto(f"{live_site}/amici/")
        page.fill("#player-q", "zzz")
        page.click("#player-search-button")
        assert "Nessun giocatore ha un nome che contiene «zzz»" in page.locator("#search-empty").inner_text()

        page.fill("#player-q", "BRUN")
        page.click("#player-search-button")
        rows = page.locator("#search-results .friend")
        assert [rows.nth(i).get_attribute("data-key") for i in range(rows.count())] == ["brunella", "Bruno_Nuovo"]
        page.screenshot(path=str(screenshot_dir / "friends-search-1280.png"), full_page=True)
        assert serious_violations(page) == []

        phone.goto(f"{live_site}/amici/?q=nuovo")
        assert phone.locator("#search-results .friend").count() == 1 and fits_the_screen(phone)
        phone.screenshot(path=str(screenshot_dir / "friends-search-390.png"), full_page=True)
        assert serious_violations(phone) == []

        row = page.locator('#search-results .friend[data-key="Bruno_Nuovo"]')
        row.locator("details.challenge > summary").click()
        row.locator("select[name=preset]").select_option("testa_a_testa")
        row.locator("details.challenge button[type=submit]").click()
        page.wait_for_url(f"{live_site}/gioca/")
        assert "Invito mandato a Bruno_Nuovo" in page.locator(".messages").inner_text()
        challenge = Challenge.objects.get()
        assert (challenge.invitee.username, challenge.preset, challenge.status) == ("Bruno_Nuovo", "testa_a_testa",
                                                                                    "pending")
        assert page.js_errors == [] and phone.js_errors == []
    finally:
        ctx.close()
        ctx_p.close()


def test_the_lobby_challenge_form_suggests_names_and_invites_the_one_picked(live_site, browser, screenshot_dir):
    anna = make_user("anna")
    make_user("Bruno_Nuovo")
    ctx, page = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_p, phone = signed_in_page(browser, live_site, anna, PHONE)
    try:
        page.goto(f"{live_site}/gioca/")
        page.locator("#challenge-name").press_sequentially("nuo", delay=30)
        page.wait_for_function("document.querySelector('#challenge-name-suggestions option')?.value === 'Bruno_Nuovo'")
        page.fill("#challenge-name", "Bruno_Nuovo")  # as picking the suggestion does
        page.select_option("#challenge-preset", "mano_unica")
        page.locator("#challenge-by-name").screenshot(path=str(screenshot_dir / "challenge-by-name-1280.png"))
        assert serious_violations(page) == []
        page.click("#challenge-send")
        page.wait_for_url(f"{live_site}/gioca/")
        assert "Invito mandato a Bruno_Nuovo" in page.locator(".messages").inner_text()
        assert Challenge.objects.get().invitee.username == "Bruno_Nuovo"

        phone.goto(f"{live_site}/gioca/")
        assert fits_the_screen(phone)
        phone.locator("#challenge-by-name").screenshot(path=str(screenshot_dir / "challenge-by-name-390.png"))
        assert page.js_errors == [] and phone.js_errors == []
    finally:
        ctx.close()
        ctx_p.close()


def test_quick_play_with_classico_and_esperto_lands_at_a_table_of_those_rules(live_site, browser, screenshot_dir):
    anna = make_user("anna")
    ctx, page = signed_in_page(browser, live_site, anna, DESKTOP)
    try:
        page.goto(f"{live_site}/gioca/")
        assert page.locator("#quick-preset").input_value() == "mano_unica"
        page.select_option("#quick-preset", "classico")
        page.select_option("#quick-level", "esperto")
        page.click("#play-computer")
        page.wait_for_url(re.compile(r"/tavolo/\d+/$"))
        table = Table.objects.get(pk=int(urlsplit(page.url).path.split("/")[2]))
        assert table.preset == "classico" and table.options == Ruleset.preset("classico", players=2).to_dict()
        assert [s.bot_level for s in table.seats.order_by("position")] == ["", "esperto"]
        page.locator("#felt", has_text="Computer (Esperto)").wait_for()  # once the snapshot has come
        # Next time the lobby opens with the same choice.
        page.goto(f"{live_site}/gioca/")
        assert page.locator("#quick-preset").input_value() == "classico"
        assert page.locator("#quick-level").input_value() == "esperto"
        page.locator(".quick-play").first.screenshot(path=str(screenshot_dir / "quick-play-1280.png"))
        link = page.locator(".quick-play .quick-help a")
        assert link.get_attribute("href") == "/amici/"
        # The link reads on the felt: the colour of the text around it, not the page's dark green.
        assert link.evaluate("a => getComputedStyle(a).color === getComputedStyle(a.parentElement).color")
        assert page.js_errors == []
        phone = ctx.new_page()
        phone.set_viewport_size(PHONE)
        phone.goto(f"{live_site}/gioca/")
        assert fits_the_screen(phone)
        phone.locator(".quick-play").first.screenshot(path=str(screenshot_dir / "quick-play-390.png"))
        assert serious_violations(phone) == []
    finally:
        ctx.close()


def mailed_link(live_site: str) -> str:
    """The confirmation link of the last message the server printed (the console e-mail backend
    writes each message, quoted-printable, then a line of dashes) in its log."""
    port = urlsplit(live_site).port
    text = (OUTPUT / f"daphne-{port}.log").read_text(errors="replace")
    chunks = [c for c in text.split("-" * 79) if "/account/impostazioni/email/conferma/" in c]
    assert chunks, "no confirmation message in the server's log"
    raw = chunks[-1][chunks[-1].index("Content-Type:"):]
    body = email.message_from_string(raw).get_payload(decode=True).decode()
    return re.search(r"https?://\S+/account/impostazioni/email/conferma/\S+/", body).group(0)


def test_settings_email_change_by_the_mailed_link_then_deletion(live_site, browser, screenshot_dir):
    anna = make_user("anna", PASSWORD)
    bruno = make_user("bruno")
    finished_match([anna, bruno])
    ctx, page = signed_in_page(browser, live_site, anna, DESKTOP)
    ctx_p, phone = signed_in_page(browser, live_site, anna, PHONE)
    try:
        page.goto(f"{live_site}/account/impostazioni/")
        assert page.locator("#current-email").inner_text() == "anna@example.com"
        page.screenshot(path=str(screenshot_dir / "settings-1280.png"), full_page=True)
        assert serious_violations(page) == []
        phone.goto(f"{live_site}/account/impostazioni/")
        assert fits_the_screen(phone)
        phone.screenshot(path=str(screenshot_dir / "settings-390.png"), full_page=True)
        assert serious_violations(phone) == []

        # A wrong password: refused, the typed address kept.
        page.fill("#id_email-new_email", "anna.nuova@example.it")
        page.fill("#id_email-password", "sbagliata")
        page.click("#email-form button[type=submit]")
        assert "La password non è giusta" in page.locator("#email-form .form-errors").inner_text()
        assert page.locator("#id_email-new_email").input_value() == "anna.nuova@example.it"

        page.fill("#id_email-password", PASSWORD)
        page.click("#email-form button[type=submit]")
        page.wait_for_url(f"{live_site}/account/impostazioni/")
        assert "Ti abbiamo scritto a anna.nuova@example.it" in page.locator(".messages").inner_text()
        assert page.locator("#current-email").inner_text() == "anna@example.com"
        page.goto(mailed_link(live_site))
        page.wait_for_url(f"{live_site}/account/impostazioni/")
        assert "il tuo indirizzo e-mail ora è anna.nuova@example.it" in page.locator(".messages").inner_text()
        assert page.locator("#current-email").inner_text() == "anna.nuova@example.it"
        anna.refresh_from_db()
        assert anna.email == "anna.nuova@example.it"

        # Deletion: the tick is required, then the account goes and the history keeps the game.
        page.fill("#id_delete-password", PASSWORD)
        page.click("#delete-account")
        assert "Spunta la casella" in page.locator("#delete-form").inner_text()
        page.fill("#id_delete-password", PASSWORD)
        page.check("#id_delete-confirm")
        page.click("#delete-account")
        page.wait_for_url(f"{live_site}/")
        assert "Il tuo account è stato eliminato" in page.locator(".messages").inner_text()
        assert page.locator("#nav-login").is_visible()
        page.goto(f"{live_site}/storico/")
        history = page.locator("main").inner_text()
        assert f"giocatore eliminato {anna.pk}" in history and "bruno" in history
        page.screenshot(path=str(screenshot_dir / "history-deleted-player-1280.png"), full_page=True)
        anna.refresh_from_db()
        assert not anna.is_active
        assert page.js_errors == [] and phone.js_errors == []
    finally:
        ctx.close()
        ctx_p.close()


def test_the_sound_default_from_the_settings_is_the_table_default(live_site, browser):
    anna, bruno = make_user("anna", sound_on=False), make_user("bruno")
    table = started_table([anna, bruno])
    ctx, page = signed_in_page(browser, live_site, anna, DESKTOP)
    # A choice this device made under the old default ("on") gives way to the newer setting.
    ctx.add_init_script("if (!sessionStorage.getItem('seeded')) { sessionStorage.setItem('seeded', '1');"
                        " localStorage.setItem('burraco:sound:anna', 'on');"
                        " localStorage.setItem('burraco:sound:anna:default', 'on'); }")
    ctx_b, page_b = signed_in_page(browser, live_site, bruno, DESKTOP)
    try:
        page.goto(f"{live_site}/tavolo/{table.pk}/")
        page.wait_for_selector("#game")
        button = page.locator("#btn-sound")
        assert button.get_attribute("aria-pressed") == "false" and button.inner_text() == "Suoni: no"
        button.click()  # the table's own toggle still works, and is remembered on this device
        assert button.get_attribute("aria-pressed") == "true" and button.inner_text() == "Suoni: sì"
        page.reload()
        page.wait_for_selector("#game")
        assert page.locator("#btn-sound").get_attribute("aria-pressed") == "true"

        page_b.goto(f"{live_site}/tavolo/{table.pk}/")
        page_b.wait_for_selector("#game")
        assert page_b.locator("#btn-sound").get_attribute("aria-pressed") == "true"  # the default: on
        assert page.js_errors == [] and page_b.js_errors == []
    finally:
        ctx.close()
        ctx_b.close()
