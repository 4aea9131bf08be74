"""Settings beyond language and password (issue 29 item 6): the table's sound default, an
e-mail change confirmed by a signed link mailed to the new address, and account deletion that
keeps every game valid with the seat shown as "giocatore eliminato"."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth import get_user_model
from django.core import mail, signing
from django.test import Client
from django.urls import reverse

from accounts import services
from accounts.selectors import search_players
from games.engine import Ruleset
from games.models import Block, Challenge, Follow, Notification, Seat, Table
from games.services import tournaments
from games.services.lobby import challenges, social
from games.services.table import seating
from games.services.table.seating import TableError
from tests.accounts.test_accounts import STRONG, make_user
from tests.factories import finished_match
from tests.games.helpers import logged_in

pytestmark = pytest.mark.django_db
User = get_user_model()


def mailed_link(message) -> str:
    return re.search(r"https?://\S+/account/impostazioni/email/conferma/\S+/", message.body).group(0)


# ----------------------------------------------------------------------------- preferences


def test_sound_default_is_saved_and_reaches_every_page_body():
    anna = make_user()
    client = logged_in(anna)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert 'data-sound-default="on"' in page and 'id="id_sound_on" checked' in page
    response = client.post(reverse("accounts:settings"), {"language": "it"})  # box left unticked
    assert response.status_code == 302
    anna.refresh_from_db()
    assert anna.sound_on is False and anna.language == "it"
    assert 'data-sound-default="off"' in client.get(reverse("lobby")).content.decode()
    client.post(reverse("accounts:settings"), {"language": "it", "sound_on": "on"})
    anna.refresh_from_db()
    assert anna.sound_on is True


def test_a_bad_language_is_refused_and_changes_nothing():
    anna = make_user(sound_on=False)
    response = logged_in(anna).post(reverse("accounts:settings"), {"language": "xx", "sound_on": "on"})
    assert response.status_code == 200 and "Scegli un&#x27;opzione valida" in response.content.decode()
    anna.refresh_from_db()
    assert anna.sound_on is False and anna.language == "it"


# ----------------------------------------------------------------------------- e-mail change


def test_email_change_is_confirmed_by_the_link_sent_to_the_new_address_and_the_old_one_is_told():
    anna = make_user()
    client = logged_in(anna)
    response = client.post(reverse("accounts:email_change"),
                           {"email-new_email": "Anna.Nuova@Example.it", "email-password": STRONG}, follow=True)
    assert "Ti abbiamo scritto a Anna.Nuova@example.it" in response.content.decode()
    anna.refresh_from_db()
    assert anna.email == "anna@example.it"  # nothing changes before the link is opened
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["Anna.Nuova@example.it"]
    link = mailed_link(mail.outbox[0])
    assert "anna" in mail.outbox[0].body

    # Opened signed out: log-in first, then back to the link.
    response = Client().get(link)
    assert response.status_code == 302 and "/account/accedi/" in response["Location"]

    # Opened as someone else: refused, nothing changes.
    bruno = make_user("bruno")
    response = logged_in(bruno).get(link, follow=True)
    assert "Questo link è per un altro account" in response.content.decode()
    anna.refresh_from_db()
    bruno.refresh_from_db()
    assert anna.email == "anna@example.it" and bruno.email == "bruno@example.it"

    response = client.get(link, follow=True)
    assert "il tuo indirizzo e-mail ora è Anna.Nuova@example.it" in response.content.decode()
    anna.refresh_from_db()
    assert anna.email == "Anna.Nuova@example.it"
    notice = mail.outbox[-1]
    assert notice.to == ["anna@example.it"] and "Anna.Nuova@example.it" in notice.body

    # The same link again: the address it was about has changed.
    response = client.get(link, follow=True)
    assert "Il tuo indirizzo è cambiato dopo questa richiesta" in response.content.decode()


@pytest.mark.parametrize(("data", "message"), [
    ({"email-new_email": "nuova@example.it", "email-password": "sbagliata"},
     "La password non è giusta: l&#x27;indirizzo non è cambiato."),
    ({"email-new_email": "ANNA@example.it", "email-password": STRONG}, "È già il tuo indirizzo"),
    ({"email-new_email": "bruno@example.it", "email-password": STRONG},
     "Esiste già un account con questo indirizzo e-mail."),
    ({"email-new_email": "non-un-indirizzo", "email-password": STRONG}, "Inserisci un indirizzo email valido."),
])
def test_email_change_refusals_say_why_keep_the_typed_address_and_send_nothing(data, message):
    anna = make_user()
    make_user("bruno")
    response = logged_in(anna).post(reverse("accounts:email_change"), data)
    page = response.content.decode()
    assert response.status_code == 400 and message in page
    assert f'value="{data["email-new_email"]}"' in page
    assert mail.outbox == []
    anna.refresh_from_db()
    assert anna.email == "anna@example.it"


def test_an_expired_or_damaged_link_changes_nothing(monkeypatch):
    anna = make_user()
    token = signing.dumps({"u": anna.pk, "old": anna.email, "new": "nuova@example.it"},
                          salt=services.EMAIL_CHANGE_SALT)
    with pytest.raises(services.AccountError) as exc:
        services.email_change_confirm(user=anna, token=token[:-3] + "xyz")
    assert exc.value.code == "link_invalid"
    later = time.time() + services.EMAIL_CHANGE_MAX_AGE_SECONDS + 10
    monkeypatch.setattr(signing.time, "time", lambda: later)
    response = logged_in(anna).get(reverse("accounts:email_confirm", args=[token]), follow=True)
    assert "Questo link è scaduto" in response.content.decode()
    anna.refresh_from_db()
    assert anna.email == "anna@example.it"


def test_the_new_address_taken_meanwhile_is_refused_at_the_link():
    anna = make_user()
    token = signing.dumps({"u": anna.pk, "old": anna.email, "new": "libera@example.it"},
                          salt=services.EMAIL_CHANGE_SALT)
    User.objects.create_user("carla", "LIBERA@example.it", None)
    with pytest.raises(services.AccountError) as exc:
        services.email_change_confirm(user=anna, token=token)
    assert exc.value.code == "email_taken"
    anna.refresh_from_db()
    assert anna.email == "anna@example.it"


# ----------------------------------------------------------------------------- deletion


def test_deleting_keeps_the_games_and_shows_the_seat_as_giocatore_eliminato():
    anna, bruno, carla = make_user(), make_user("bruno"), make_user("carla")
    game = finished_match([anna, bruno], rated=True)
    social.follow(user=anna, username="bruno")
    social.follow(user=carla, username="anna")
    social.block(user=anna, username="carla")
    pending = challenges.send_challenge(challenger=bruno, username="anna", preset="mano_unica")
    assert Notification.objects.filter(user=anna).exists()

    client = logged_in(anna)
    response = client.post(reverse("accounts:delete"), {"delete-password": STRONG, "delete-confirm": "on"},
                           follow=True)
    assert "Il tuo account è stato eliminato" in response.content.decode()
    assert not response.context["user"].is_authenticated

    anna.refresh_from_db()
    assert anna.username == f"giocatore eliminato {anna.pk}" and not anna.is_active
    assert not anna.has_usable_password() and anna.email == f"eliminato-{anna.pk}@example.invalid"
    assert anna.deleted_at is not None
    # The game and its seat are still there, under the new name.
    assert Seat.objects.get(table=game.table, user=anna)
    assert Table.objects.get(pk=game.table_id).status == Table.Status.FINISHED
    history = Client().get(reverse("history")).content.decode()
    assert f"giocatore eliminato {anna.pk}" in history and ">anna<" not in history
    detail = Client().get(reverse("game_detail", args=[game.pk])).content.decode()
    assert "giocatore eliminato" in detail
    board = Client().get(reverse("leaderboards")).content.decode()
    assert ">anna<" not in board
    # What linked her to others is gone; the pending invitation is withdrawn.
    assert not Follow.objects.filter(follower=anna).exists() and not Follow.objects.filter(followed=anna).exists()
    assert not Block.objects.filter(blocker=anna).exists()
    assert Challenge.objects.get(pk=pending.pk).status == Challenge.Status.CANCELLED
    assert not Notification.objects.filter(user=anna).exists()

    # No log-in under either name, no profile, no search, no challenge, no follow.
    for name in ("anna", anna.username):
        response = Client().post(reverse("accounts:login"), {"username": name, "password": STRONG})
        assert response.status_code == 200 and not response.context["user"].is_authenticated
    response = Client().get(reverse("profile", args=[anna.username]))
    assert response.status_code == 410 and "ha eliminato il suo account" in response.content.decode()
    assert Client().get(reverse("profile", args=["anna"])).status_code == 404
    assert search_players(viewer=bruno, text="anna").names == []
    assert search_players(viewer=bruno, text="eliminato").names == []
    with pytest.raises(TableError) as exc:
        challenges.send_challenge(challenger=bruno, username=anna.username, preset="mano_unica")
    assert exc.value.message == "Questo giocatore non esiste."
    with pytest.raises(TableError):
        social.follow(user=bruno, username=anna.username)
    # The name is free again for someone new; the placeholder is not a name one can sign up with.
    assert User.objects.create_user("anna", "altra@example.it", None).pk != anna.pk
    with pytest.raises(Exception):  # noqa: B017 (ValidationError with the username rule)
        services.check_new_username(anna.username)


def test_deleting_asks_for_the_password_and_the_tick_and_changes_nothing_without_them():
    anna = make_user()
    client = logged_in(anna)
    response = client.post(reverse("accounts:delete"), {"delete-password": "sbagliata", "delete-confirm": "on"})
    assert response.status_code == 400
    assert "La password non è giusta: l&#x27;account non è stato eliminato." in response.content.decode()
    response = client.post(reverse("accounts:delete"), {"delete-password": STRONG})
    assert response.status_code == 400 and "Spunta la casella" in response.content.decode()
    anna.refresh_from_db()
    assert anna.is_active and anna.username == "anna"


def test_deleting_is_refused_while_seated_at_a_table_waiting_or_in_play_and_in_a_tournament():
    anna, bruno = make_user(), make_user("bruno")
    table = seating.create_table(creator=anna, ruleset=Ruleset.preset("classico", players=2))
    with pytest.raises(services.AccountError) as exc:
        services.user_delete(user=anna, password=STRONG)
    assert exc.value.message == (f"Sei seduto al tavolo {table.pk}, che aspetta giocatori: alzati dal tavolo "
                                 "prima di eliminare l'account.")
    seating.sit(table_id=table.pk, user=bruno, position=1)
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    client = logged_in(anna)
    response = client.post(reverse("accounts:delete"), {"delete-password": STRONG, "delete-confirm": "on"})
    assert response.status_code == 400
    assert (f"Stai giocando al tavolo {table.pk}: finisci la partita o abbandonala prima di eliminare "
            "l&#x27;account.") in response.content.decode()
    anna.refresh_from_db()
    assert anna.is_active and anna.username == "anna"

    carla = make_user("carla")
    event = tournaments.create_tournament(name="Giovedì sera", kind="sitgo", capacity=4)
    tournaments.register(tournament_id=event.pk, user=carla)
    with pytest.raises(services.AccountError) as exc:
        services.user_delete(user=carla, password=STRONG)
    assert exc.value.message == ("Sei iscritto al torneo «Giovedì sera»: ritirati dal torneo prima di eliminare "
                                 "l'account.")
    tournaments.withdraw(tournament_id=event.pk, user=carla)
    services.user_delete(user=carla, password=STRONG)
    carla.refresh_from_db()
    assert not carla.is_active


def test_settings_page_in_english():
    anna = make_user(language="en")
    page = logged_in(anna).get(reverse("accounts:settings")).content.decode()
    for text in ("Sounds at the table", "New e-mail address", "Delete the account", "Send the link"):
        assert text in page
