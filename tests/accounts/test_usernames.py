"""The username rule for new accounts, and pages that keep working for names stored before it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from accounts import services
from accounts.validators import validate_username
from tests.factories import finished_match, make_user

User = get_user_model()
STRONG = "Scopa-Briscola-77"
RULE = "Da 3 a 20 caratteri: lettere di un solo alfabeto"

ACCEPTED = [
    "mario", "Mario_Rossi", "anna.b", "gian-luca", "abc", "a" * 20, "user123", "R2D2",
    "Niccolò", "Ærøskøbing", "Łukasz", "Şükrü",  # Latin-1 and Latin Extended-A
    "Иван", "Αλέξης", "東京太郎", "さくらサクラ", "ラーメン", "한국어", "हिंदी", "שלום", "محمد",
]
REFUSED = [
    ("ab", "username_length"),
    ("a" * 21, "username_length"),
    ("a" * 150, "username_length"),
    ("a/b", "username_char"),
    ("mar io", "username_char"),
    ("mario!", "username_char"),
    ("mario@casa", "username_char"),
    ("ma+rio", "username_char"),
    ("mar%io", "username_char"),
    ("mar?io", "username_char"),
    ("mar\u200dio", "username_char"),  # zero-width joiner
    ("ǀmario", "username_char"),  # U+01C0, a click letter shaped like "|"
    ("mari\u0307o", "username_char"),  # a loose combining dot
    ("_mario", "username_signs"),
    ("mario_", "username_signs"),
    ("ma..rio", "username_signs"),
    ("..", "username_length"),
    ("...", "username_signs"),
    ("12345", "username_no_letter"),
    ("\u0430dmin", "username_mixed_scripts"),  # Cyrillic а + Latin dmin
    ("pаypal", "username_mixed_scripts"),
    ("Иvan", "username_mixed_scripts"),
    ("Αlpha", "username_mixed_scripts"),  # Greek capital alpha
    ("\u0440\u0430\u0443\u0440\u0430", "username_lookalike"),  # "раура": Cyrillic letters shaped like "paypa"
    ("\u0441\u043e\u0440\u0435", "username_lookalike"),  # "соре"
    ("\u039f\u03a7\u0399", "username_lookalike"),  # Greek "ΟΧΙ" = Latin "OXI"
]


@pytest.mark.parametrize("name", ACCEPTED)
def test_rule_accepts(name):
    validate_username(name)


@pytest.mark.parametrize(("name", "code"), REFUSED)
def test_rule_refuses_with_the_whole_rule_in_the_message(name, code):
    with pytest.raises(ValidationError) as excinfo:
        validate_username(name)
    error = excinfo.value.error_list[0]
    assert error.code == code
    assert RULE in error.message and "_ . -" in error.message


def signup(client, **overrides):
    data = {"username": "mario", "email": "mario@example.it", "password1": STRONG, "password2": STRONG}
    data.update(overrides)
    return client.post(reverse("accounts:signup"), data)


@pytest.mark.django_db
def test_signup_form_refuses_a_lookalike_name_and_says_what_is_allowed(client):
    response = signup(client, username="\u0430dmin")
    assert response.status_code == 200
    text = response.content.decode()
    assert "mescola alfabeti diversi" in text
    assert RULE in text
    assert not User.objects.exists()


@pytest.mark.django_db
def test_signup_form_shows_the_rule_before_any_error(client):
    text = client.get(reverse("accounts:signup")).content.decode()
    assert RULE in text
    assert 'maxlength="20"' in text


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["a/b", "x" * 150, "ab"])
def test_signup_form_refuses_names_that_break_pages(client, name):
    response = signup(client, username=name)
    assert response.status_code == 200
    assert RULE in response.content.decode()
    assert not User.objects.exists()


@pytest.mark.django_db
def test_signup_rule_in_english(client):
    client.cookies.load({"django_language": "en"})
    response = signup(client, username="\u0430dmin")
    text = response.content.decode()
    assert "mixes different scripts" in text
    assert "3 to 20 characters" in text


@pytest.mark.django_db
def test_signup_accepts_a_name_of_another_script_and_folds_fullwidth_letters(client):
    assert signup(client, username="Иван", email="ivan@example.it").status_code == 302
    client.logout()
    assert signup(client, username="ｌｕｃａ", email="luca@example.it").status_code == 302
    assert set(User.objects.values_list("username", flat=True)) == {"Иван", "luca"}
    assert client.get(reverse("profile", args=["Иван"])).status_code == 200


@pytest.mark.django_db
def test_service_refuses_a_bad_name_whoever_calls_it():
    with pytest.raises(ValidationError) as excinfo:
        services.user_create(username="a/b", email="ab@example.it", password=STRONG)
    assert "username" in excinfo.value.message_dict
    assert not User.objects.exists()


@pytest.mark.django_db
def test_service_refuses_a_name_taken_in_another_case():
    services.user_create(username="Mario", email="m1@example.it", password=STRONG)
    with pytest.raises(ValidationError) as excinfo:
        services.user_create(username="mARIO", email="m2@example.it", password=STRONG)
    assert "già in uso" in excinfo.value.message_dict["username"][0]
    assert User.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_database_refuses_two_names_differing_only_in_case():
    make_user("anna")
    with pytest.raises(IntegrityError), transaction.atomic():
        make_user("ANNA")
    assert User.objects.count() == 1


# ----------------------------------------------------------------------------- names from before


LEGACY = ["vecchio/nome", "con spazio", "a@b+c", "n" * 150, "..", "ma%20rio"]


@pytest.mark.django_db
@pytest.mark.parametrize("name", LEGACY)
def test_pages_work_for_a_name_stored_before_the_rule(client, name):
    old = User.objects.create_user(name, "old@example.it")
    other = make_user("bruno")
    game = finished_match([old, other])
    url = reverse("profile", args=[name])
    profile = client.get(url)
    assert profile.status_code == 200, url
    assert "Iscritto dal" in profile.content.decode()
    for page in (f"/storico/partita/{game.pk}/", "/storico/", "/storico/?giocatore=bruno"):
        response = client.get(page)
        assert response.status_code == 200, page
        assert f'href="{url}"' in response.content.decode()
    client.force_login(old)
    for page in ("/", "/gioca/", "/classifiche/", reverse("accounts:settings")):
        response = client.get(page)
        assert response.status_code == 200, page
        assert f'href="{url}"' in response.content.decode()  # the menu's link to one's own profile


@pytest.mark.django_db
def test_a_player_with_an_old_name_can_still_change_settings(client):
    old = User.objects.create_user("vecchio/nome", "old@example.it")
    client.force_login(old)
    response = client.post(reverse("accounts:settings"), {"language": "en"})
    assert response.status_code == 302
    old.refresh_from_db()
    assert old.language == "en"
