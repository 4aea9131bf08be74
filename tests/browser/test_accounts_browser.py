"""A person signs up, logs out, logs in, opens the profile and switches the language, in Chromium."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "Scopa-Briscola-77"


def test_signup_logout_login_profile_language(live_site, browser, screenshot_dir):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="it-IT")
    page = context.new_page()
    try:
        page.goto(f"{live_site}/account/registrati/")
        page.fill("#id_username", "giulia")
        page.fill("#id_email", "giulia@example.it")
        page.fill("#id_password1", PASSWORD)
        page.fill("#id_password2", "diversa-123-xyz")
        page.click("#signup-form button[type=submit]")
        assert page.locator("text=Le due password non coincidono").is_visible()
        assert page.input_value("#id_username") == "giulia"  # nothing typed is lost

        page.fill("#id_password1", PASSWORD)
        page.fill("#id_password2", PASSWORD)
        page.click("#signup-form button[type=submit]")
        page.wait_for_selector("#nav-logout")
        assert "Benvenuto, giulia!" in page.content()
        page.screenshot(path=str(screenshot_dir / "accounts-after-signup.png"))
        assert get_user_model().objects.filter(username="giulia").exists()

        page.click("#nav-logout")
        page.wait_for_selector("#nav-login")

        page.click("#nav-login")
        page.fill("#id_username", "giulia")
        page.fill("#id_password", PASSWORD)
        page.click("#login-form button[type=submit]")
        page.wait_for_selector("#nav-profile")
        assert page.url == f"{live_site}/gioca/"  # people sign in to play: the tables

        page.click("#nav-profile")
        page.wait_for_selector("#profile")
        assert page.locator("h1").inner_text() == "giulia"
        assert "Iscritto dal" in page.inner_text("#profile")

        page.goto(f"{live_site}/account/impostazioni/")
        page.select_option("#id_language", "en")
        page.click("#settings-form button[type=submit]")
        page.wait_for_selector("text=Settings saved.")
        assert page.locator("nav >> text=Leaderboards").is_visible()
        assert page.get_attribute("html", "lang") == "en"
        page.screenshot(path=str(screenshot_dir / "accounts-settings-en.png"))

        phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="it-IT")
        phone_page = phone.new_page()
        phone_page.goto(f"{live_site}/account/accedi/")
        phone_page.screenshot(path=str(screenshot_dir / "accounts-login-phone.png"))
        phone.close()
    finally:
        context.close()
