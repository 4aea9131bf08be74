"""At most SIGNUP_LIMIT_PER_HOUR new accounts per address per hour: the next one gets 429 and a
page saying why and for how long, and nothing is created. With REDIS_URL the count is in Redis."""

from __future__ import annotations

import secrets
import time

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.urls import reverse

from accounts import services

pytestmark = pytest.mark.django_db
User = get_user_model()
STRONG = "Scopa-Briscola-77"


def signup(name: str, address: str = "127.0.0.1", client: Client | None = None):
    client = client or Client(REMOTE_ADDR=address)
    data = {"username": name, "email": f"{name}@example.it", "password1": STRONG, "password2": STRONG}
    return client.post(reverse("accounts:signup"), data)


@pytest.fixture
def other_address():
    """An address of its own for the test, cleared before and after (the cache may be Redis)."""
    address = f"198.51.100.{secrets.randbelow(250) + 1}"  # a documentation address, only a string here
    keys = [key.format(address=address) for key in (services.SIGNUP_COUNT_KEY, services.SIGNUP_UNTIL_KEY)]
    from django.core.cache import cache

    cache.delete_many(keys)
    yield address
    cache.delete_many(keys)


def test_default_cap_is_five_an_hour():
    from django.conf import settings

    assert settings.SIGNUP_LIMIT_PER_HOUR == 5 and settings.SIGNUP_LIMIT_WINDOW_SECONDS == 3600


def test_the_sixth_signup_from_one_address_in_an_hour_is_refused_with_429():
    for i in range(5):
        assert signup(f"giocatore{i}").status_code == 302, i
    response = signup("sesto")
    assert response.status_code == 429
    text = response.content.decode()
    assert "Da questo indirizzo sono già stati creati 5 account nell'ultima ora" in text
    assert "Riprova tra 60 minuti" in text or "Riprova tra 59 minuti" in text
    assert 0 < int(response["Retry-After"]) <= 3600
    assert not User.objects.filter(username="sesto").exists()
    assert User.objects.count() == 5


@override_settings(SIGNUP_LIMIT_PER_HOUR=2)
def test_another_address_is_not_affected(other_address):
    assert signup("anna").status_code == 302
    assert signup("bruno").status_code == 302
    assert signup("carlo").status_code == 429
    assert signup("carlo", address=other_address).status_code == 302
    assert User.objects.filter(username="carlo").exists()


@override_settings(SIGNUP_LIMIT_PER_HOUR=1)
def test_refused_forms_do_not_use_up_the_cap():
    client = Client()
    for _ in range(3):
        response = signup("x", client=client)  # too short: the form refuses it
        assert response.status_code == 200
    assert signup("anna").status_code == 302
    assert signup("bruno").status_code == 429


@override_settings(SIGNUP_LIMIT_PER_HOUR=1)
def test_a_capped_address_is_refused_even_with_a_bad_form():
    assert signup("anna").status_code == 302
    response = Client().post(reverse("accounts:signup"), {"username": ""})
    assert response.status_code == 429


@override_settings(SIGNUP_LIMIT_PER_HOUR=1, SIGNUP_LIMIT_WINDOW_SECONDS=1)
def test_the_cap_lifts_when_the_window_ends():
    assert signup("anna").status_code == 302
    assert signup("bruno").status_code == 429
    time.sleep(1.5)
    assert signup("bruno").status_code == 302


@override_settings(SIGNUP_LIMIT_PER_HOUR=0)
def test_zero_means_no_cap():
    for i in range(7):
        assert signup(f"giocatore{i}").status_code == 302


@override_settings(SIGNUP_LIMIT_PER_HOUR=1)
def test_the_refusal_in_english():
    assert signup("anna").status_code == 302
    client = Client()
    client.cookies.load({"django_language": "en"})
    response = signup("bruno", client=client)
    assert response.status_code == 429
    text = response.content.decode()
    assert "1 account has already been created from this address in the last hour" in text
    assert "Try again in" in text


@override_settings(SIGNUP_LIMIT_PER_HOUR=3)
def test_taking_slots_is_counted_once_each(other_address):
    taken = [services.signup_take_slot(other_address).allowed for _ in range(5)]
    assert taken == [True, True, True, False, False]
    assert not services.signup_cap(other_address).allowed


@override_settings(SIGNUP_LIMIT_PER_HOUR=3)
def test_sign_ups_racing_for_the_last_slots_get_exactly_the_limit(other_address):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: services.signup_take_slot(other_address).allowed, range(16)))
    assert results.count(True) == 3
