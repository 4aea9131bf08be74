"""Accounts: sign up, log in and out, lockout, CSRF, password change and reset, profile, language."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db
User = get_user_model()
STRONG = "Scopa-Briscola-77"


def signup(client, **overrides):
    data = {"username": "mario", "email": "mario@example.it", "password1": STRONG, "password2": STRONG}
    data.update(overrides)
    return client.post(reverse("accounts:signup"), data)


def make_user(username="anna", password=STRONG, **extra):
    return User.objects.create_user(username=username, email=f"{username}@example.it", password=password, **extra)


def test_signup_creates_user_logs_in_and_hashes_with_argon2(client):
    response = signup(client)
    assert response.status_code == 302
    user = User.objects.get(username="mario")
    assert user.password.startswith("argon2")
    assert user.language == "it"
    home = client.get(reverse("home"))
    assert b"mario" in home.content and b"Esci" in home.content


def test_signup_duplicate_username_is_refused_in_italian_and_keeps_the_form(client):
    make_user("mario")
    response = signup(client, email="altro@example.it")
    assert response.status_code == 200
    text = response.content.decode()
    assert "Questo nome utente è già in uso" in text
    assert 'value="altro@example.it"' in text  # nothing typed is lost
    assert User.objects.filter(username__iexact="mario").count() == 1


def test_signup_duplicate_username_ignores_case(client):
    make_user("mario")
    signup(client, username="MARIO", email="x@example.it")
    assert User.objects.count() == 1


def test_signup_duplicate_email_is_refused(client):
    make_user("anna")
    response = signup(client, email="ANNA@example.it")
    assert "Esiste già un account con questo indirizzo e-mail" in response.content.decode()
    assert User.objects.count() == 1


@pytest.mark.parametrize(
    ("password", "fragment"),
    [
        ("abc", "troppo corta"),
        ("12345678901", "interamente numerica"),
        ("password123", "troppo comune"),
    ],
)
def test_signup_weak_password_gets_django_validators_message_in_italian(client, password, fragment):
    response = signup(client, password1=password, password2=password)
    assert response.status_code == 200
    assert fragment in response.content.decode()
    assert not User.objects.exists()


def test_signup_mismatched_passwords(client):
    response = signup(client, password2=STRONG + "x")
    assert "Le due password non coincidono" in response.content.decode()
    assert not User.objects.exists()


def test_login_and_logout(client):
    make_user("anna")
    response = client.post(reverse("accounts:login"), {"username": "anna", "password": STRONG})
    assert response.status_code == 302
    assert "_auth_user_id" in client.session
    response = client.post(reverse("accounts:logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


def test_wrong_password_message_is_italian(client):
    make_user("anna")
    response = client.post(reverse("accounts:login"), {"username": "anna", "password": "sbagliata"})
    assert response.status_code == 200
    assert "Inserisci nome utente e password corretti" in response.content.decode()
    assert 'value="anna"' in response.content.decode()


def test_five_wrong_passwords_lock_the_account_out(client):
    make_user("anna")
    for _ in range(5):
        client.post(reverse("accounts:login"), {"username": "anna", "password": "sbagliata"})
    response = client.post(reverse("accounts:login"), {"username": "anna", "password": STRONG})
    assert response.status_code == 429
    text = response.content.decode()
    assert "Troppi tentativi di accesso non riusciti" in text
    assert "15 minuti" in text
    assert "_auth_user_id" not in client.session
    # Another player from the same address is not affected.
    make_user("bruno")
    response = client.post(reverse("accounts:login"), {"username": "bruno", "password": STRONG})
    assert response.status_code == 302


def test_forged_csrf_token_is_refused_and_changes_nothing():
    client = Client(enforce_csrf_checks=True)
    client.get(reverse("accounts:signup"))
    data = {"username": "mario", "email": "mario@example.it", "password1": STRONG, "password2": STRONG,
            "csrfmiddlewaretoken": "forged" * 8}
    response = client.post(reverse("accounts:signup"), data)
    assert response.status_code == 403
    assert "Il modulo è scaduto o non proviene da questo sito" in response.content.decode()
    assert not User.objects.exists()


def change_password(client, old: str, new: str):
    """Anna, signed in, asks to change her password: `old` as the present one, `new` twice."""
    user = make_user("anna")
    client.force_login(user)
    response = client.post(
        reverse("accounts:password_change"),
        {"old_password": old, "new_password1": new, "new_password2": new},
    )
    return user, response


def test_password_change(client):
    new = "Tressette-Asso-91"
    user, response = change_password(client, STRONG, new)
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password(new)


def test_password_change_with_wrong_old_password_changes_nothing(client):
    user, response = change_password(client, "sbagliata", "Tressette-Asso-91")
    assert response.status_code == 200
    assert "password attuale non è stata inserita correttamente" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(STRONG)


def test_password_reset_by_email(client):
    user = make_user("anna")
    response = client.post(reverse("accounts:password_reset"), {"email": "anna@example.it"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    link = re.search(r"http://testserver(\S+)", mail.outbox[0].body).group(1)
    response = client.get(link, follow=True)
    new = "Tressette-Asso-91"
    form_url = response.redirect_chain[-1][0]
    response = client.post(form_url, {"new_password1": new, "new_password2": new})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password(new)


def test_profile_is_public(client):
    make_user("anna")
    response = client.get(reverse("profile", args=["anna"]))
    assert response.status_code == 200
    assert "Iscritto dal" in response.content.decode()
    assert client.get(reverse("profile", args=["nessuno"])).status_code == 404


def test_settings_switch_language_to_english(client):
    user = make_user("anna")
    client.force_login(user)
    response = client.post(reverse("accounts:settings"), {"language": "en"}, follow=True)
    user.refresh_from_db()
    assert user.language == "en"
    text = response.content.decode()
    assert "Settings saved." in text
    assert ">Play<" in text and ">Rules<" in text


def test_settings_refuses_unknown_language(client):
    user = make_user("anna")
    client.force_login(user)
    response = client.post(reverse("accounts:settings"), {"language": "xx"})
    assert response.status_code == 200
    user.refresh_from_db()
    assert user.language == "it"


def test_anonymous_language_switch(client):
    response = client.post(reverse("set_language"), {"language": "en", "next": "/"}, follow=True)
    assert ">Sign up<" in response.content.decode()


def test_footer_language_switch_saves_a_signed_in_players_language(client):
    """The saved language wins on every request, so the footer switch must change it too."""
    user = make_user("anna")
    client.force_login(user)
    response = client.post(reverse("set_language"), {"language": "en", "next": "/gioca/"})
    assert response.status_code == 302 and response["Location"] == "/gioca/"
    user.refresh_from_db()
    assert user.language == "en"
    assert ">Play<" in client.get("/gioca/").content.decode()
    client.post(reverse("set_language"), {"language": "xx", "next": "/"})  # unknown: nothing changes
    user.refresh_from_db()
    assert user.language == "en"
    client.post(reverse("set_language"), {"language": "it", "next": "/"})
    user.refresh_from_db()
    assert user.language == "it"


def test_log_in_lands_on_the_tables(client):
    make_user("anna")
    response = client.post(reverse("accounts:login"), {"username": "anna", "password": STRONG})
    assert response.status_code == 302 and response["Location"] == reverse("lobby")


def test_favicon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
    assert 'rel="icon"' in client.get(reverse("home")).content.decode()
