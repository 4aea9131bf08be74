"""Lobby and table services and views: create, sit, leave, computer seats, start, invites."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games.engine import Ruleset
from games.models import BotLevel, Game, Hand, Seat, Table
from games.services.errors import ServiceError
from games.services.table import seating
from tests.games.helpers import make_user

pytestmark = pytest.mark.django_db

FORM = {
    "players": "2", "preset": "classico", "target": "505", "semipulito": "on",
    "stock_exhausted": "end_at_two", "burraco_sets": "on",
    "draw_seconds": "25", "play_seconds": "70", "disconnect_grace_seconds": "40",
}


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def new_table(creator, players: int = 2, **kwargs) -> Table:
    return seating.create_table(creator=creator, ruleset=Ruleset.preset("classico", players=players), **kwargs)


def refused(excinfo) -> str:
    return excinfo.value.message


# ----------------------------------------------------------------------------- services


def test_create_table_seats_the_creator_and_keeps_the_rules():
    anna = make_user("anna")
    table = seating.create_table(
        creator=anna, ruleset=Ruleset.preset("classico", players=4, target=1005, draw_seconds=20),
        disconnect_grace_seconds=50, private=True,
    )
    seats = list(table.seats.order_by("position"))
    assert [s.position for s in seats] == [0, 1, 2, 3]
    assert seats[0].user == anna and all(s.is_empty for s in seats[1:])
    assert table.status == Table.Status.WAITING and table.private
    assert Ruleset.from_dict(table.options).target == 1005
    assert table.draw_seconds == 20 and table.disconnect_grace_seconds == 50


@pytest.mark.parametrize("preset", ["mano_unica", "testa_a_testa"])
def test_create_table_refuses_a_two_player_preset_for_four(preset):
    """RULES §11: these variants are one against one; the service refuses them whatever the
    caller, in Italian (and in English for an English player), and creates nothing."""
    from django.utils import translation

    anna = make_user("anna")
    ruleset = Ruleset.preset(preset, players=4)
    with pytest.raises(ServiceError) as exc:
        seating.create_table(creator=anna, ruleset=ruleset)
    label = {"mano_unica": "Mano unica", "testa_a_testa": "Testa a testa"}[preset]
    assert exc.value.code == "two_players_only"
    assert refused(exc) == (f"La variante {label} si gioca solo in due: scegli 2 giocatori "
                            "o la variante Classico.")
    with translation.override("en"), pytest.raises(ServiceError) as exc:
        seating.create_table(creator=anna, ruleset=ruleset)
    english = {"mano_unica": "Single hand", "testa_a_testa": "Head to head"}[preset]
    assert refused(exc) == (f"The {english} variant is for two players only: choose 2 players "
                            "or the Classic variant.")
    assert not Table.objects.exists() and not Seat.objects.exists()
    from games.benchmarks.sample_games import record_sample_match

    with pytest.raises(ServiceError):  # recorded sample matches go by the same rule
        record_sample_match([anna, None, None, None], preset=preset)
    assert not Table.objects.exists()
    # With two players the same preset opens a table; classico is played by four as well.
    assert seating.create_table(creator=anna, ruleset=Ruleset.preset(preset, players=2)).players == 2
    assert new_table(anna, players=4).players == 4


def test_last_seat_filling_starts_the_game_with_a_full_deal():
    anna, bruno = make_user("anna"), make_user("bruno")
    table = new_table(anna)
    seating.sit(table_id=table.pk, user=bruno, position=1)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING and table.started_at is not None
    game = Game.objects.get(table=table)
    assert game.version == 0 and game.hand_number == 1 and game.totals == [0, 0]
    assert game.to_move in (0, 1) and game.turn_deadline is not None
    hand = Hand.objects.get(game=game, number=1)
    deal = hand.deal
    cards = [c for h in deal["hands"] for c in h] + deal["stock"] + deal["discard"] + [
        c for p in deal["pozzetti"] for c in p
    ]
    assert len(cards) == 108 and cards.count("JK") == 4 and cards.count("7H") == 2
    assert game.state["deal"] == deal


def test_a_game_starting_counts_absence_afresh():
    """An away mark left at the table from before (e.g. a Redis that outlived a restored database)
    must not let the computer cover a seat the moment play begins: the grace starts with the game."""
    from datetime import timedelta

    from games.live import clock, presence

    anna, bruno = make_user("anna"), make_user("bruno")
    table = new_table(anna)
    long_ago = clock.now() - timedelta(hours=1)
    for position in (0, 1):
        presence.mark_away(table.pk, position, since=long_ago)
    seating.sit(table_id=table.pk, user=bruno, position=1)
    game = Game.objects.get(table=table)
    # Nobody is online yet: the player to move is away since the game began, not for an hour,
    # so the scheduler's next look is in the future (the grace or the deadline, whichever first).
    assert presence.away_since(table.pk, game.to_move) >= clock.now() - timedelta(seconds=5)
    assert game.due_at > clock.now()
    assert presence.away_since(table.pk, 1 - game.to_move) is None


def test_sitting_in_a_taken_seat_is_refused_in_italian():
    anna, bruno, carla = make_user("anna"), make_user("bruno"), make_user("carla")
    table = new_table(anna, players=4)
    seating.sit(table_id=table.pk, user=bruno, position=2)
    with pytest.raises(ServiceError) as exc:
        seating.sit(table_id=table.pk, user=carla, position=2)
    assert refused(exc) == "Questo posto è già occupato."
    with pytest.raises(ServiceError) as exc:
        seating.sit(table_id=table.pk, user=carla, position=7)
    assert refused(exc) == "Questo posto non esiste a questo tavolo."


def test_choosing_a_seat_in_four_chooses_the_side_and_moving_frees_the_old_seat():
    anna, bruno = make_user("anna"), make_user("bruno")
    table = new_table(anna, players=4)
    seat = seating.sit(table_id=table.pk, user=bruno, position=2)
    assert seat.side == 0  # partner of seat 0
    seat = seating.sit(table_id=table.pk, user=bruno, position=1)
    assert seat.side == 1
    assert Seat.objects.get(table=table, position=2).is_empty
    assert Seat.objects.filter(table=table, user=bruno).count() == 1


def test_leave_before_start_and_refused_after():
    anna, bruno, carla = make_user("anna"), make_user("bruno"), make_user("carla")
    table = new_table(anna, players=4)
    seating.sit(table_id=table.pk, user=bruno, position=1)
    seating.leave(table_id=table.pk, user=bruno)
    assert Seat.objects.get(table=table, position=1).is_empty
    with pytest.raises(ServiceError) as exc:
        seating.leave(table_id=table.pk, user=carla)
    assert refused(exc) == "Non sei seduto a questo tavolo."

    two = new_table(anna)
    seating.sit(table_id=two.pk, user=bruno, position=1)
    with pytest.raises(ServiceError) as exc:
        seating.leave(table_id=two.pk, user=bruno)
    assert refused(exc) == "La partita è già iniziata: non puoi lasciare il posto."


def test_a_table_left_by_every_person_is_abandoned():
    anna = make_user("anna")
    table = new_table(anna, players=4)
    seating.fill_with_computer(table_id=table.pk, user=anna, position=1, level="medio")
    seating.leave(table_id=table.pk, user=anna)
    table.refresh_from_db()
    assert table.status == Table.Status.ABANDONED


def test_rated_table_refuses_computer_players():
    anna = make_user("anna")
    table = new_table(anna, rated=True)
    with pytest.raises(ServiceError) as exc:
        seating.fill_with_computer(table_id=table.pk, user=anna, position=1, level="medio")
    assert refused(exc) == "Una partita valida per la classifica si gioca solo tra persone: niente computer."
    assert Seat.objects.get(table=table, position=1).is_empty


def test_fill_refusals_and_filling_the_last_seat_starts():
    anna, bruno = make_user("anna"), make_user("bruno")
    table = new_table(anna, players=4)
    with pytest.raises(ServiceError) as exc:
        seating.fill_with_computer(table_id=table.pk, user=bruno, position=1, level="medio")
    assert refused(exc) == "Per aggiungere il computer devi essere seduto al tavolo."
    with pytest.raises(ServiceError) as exc:
        seating.fill_with_computer(table_id=table.pk, user=anna, position=1, level="campione")
    assert refused(exc) == "Livello del computer non valido."
    with pytest.raises(ServiceError) as exc:
        seating.fill_with_computer(table_id=table.pk, user=anna, position=0, level="medio")
    assert refused(exc) == "Questo posto è già occupato."
    for position in (1, 2, 3):
        seating.fill_with_computer(table_id=table.pk, user=anna, position=position, level="esperto")
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert [s.bot_level for s in table.seats.order_by("position")] == ["", "esperto", "esperto", "esperto"]


def test_start_refused_until_full_and_sitting_refused_once_started():
    anna, bruno, carla = make_user("anna"), make_user("bruno"), make_user("carla")
    table = new_table(anna)
    with pytest.raises(ServiceError) as exc:
        seating.start_table(table_id=table.pk, user=anna)
    assert refused(exc).startswith("Mancano ancora dei giocatori")
    seating.sit(table_id=table.pk, user=bruno, position=1)
    with pytest.raises(ServiceError) as exc:
        seating.sit(table_id=table.pk, user=carla, position=1)
    assert refused(exc) == "La partita a questo tavolo è già iniziata o finita."
    with pytest.raises(ServiceError):
        seating.start_table(table_id=table.pk, user=anna)
    assert Game.objects.filter(table=table).count() == 1


def test_play_against_computer_creates_fills_and_starts():
    anna = make_user("anna")
    table = seating.play_against_computer(user=anna, level=BotLevel.PRINCIPIANTE)
    assert table.status == Table.Status.PLAYING and table.players == 2 and not table.rated
    seats = list(table.seats.order_by("position"))
    assert seats[0].user == anna and seats[1].bot_level == "principiante"
    assert Game.objects.get(table=table).version == 0
    with pytest.raises(ServiceError):
        seating.play_against_computer(user=anna, level="nessuno")


# ----------------------------------------------------------------------------- views


def test_lobby_lists_public_tables_only_and_my_tables():
    anna, bruno = make_user("anna"), make_user("bruno")
    public = new_table(anna)
    private = new_table(anna, private=True)
    other = new_table(bruno)
    response = logged_in(anna).get(reverse("lobby"))
    assert response.status_code == 200
    listed = [t.pk for t in response.context["tables"]]
    assert public.pk in listed and other.pk in listed and private.pk not in listed
    assert {t.pk for t in response.context["my_tables"]} == {public.pk, private.pk}
    assert response.context["bot_levels"] == BotLevel.choices
    assert "semipulito" in response.context["form"].fields


def test_create_table_view_redirects_to_the_table_with_the_chosen_options():
    anna = make_user("anna")
    response = logged_in(anna).post(reverse("table_create"), FORM)
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[table.pk])
    rules = Ruleset.from_dict(table.options)
    assert (rules.target, rules.semipulito, rules.close_by_melding, rules.play_seconds) == (505, True, False, 70)
    assert table.disconnect_grace_seconds == 40


def test_invalid_create_form_rerenders_the_lobby_with_errors_and_values():
    anna = make_user("anna")
    response = logged_in(anna).post(reverse("table_create"), FORM | {"play_seconds": "5", "players": "4",
                                                                     "preset": "testa_a_testa"})
    assert response.status_code == 400
    form = response.context["form"]
    assert "play_seconds" in form.errors
    assert form.errors["players"] == ["Questa variante si gioca solo in due."]
    assert form.data["draw_seconds"] == "25"  # nothing typed is lost
    assert not Table.objects.exists()


def test_post_views_need_login_and_csrf():
    anna = make_user("anna")
    response = Client().post(reverse("table_create"), FORM)
    assert response.status_code == 302 and "/account/" in response["Location"]
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(anna)
    assert strict.post(reverse("table_create"), FORM).status_code == 403
    assert not Table.objects.exists()


def test_table_page_context():
    anna = make_user("anna")
    table = new_table(anna, players=4, private=True)
    response = logged_in(anna).get(reverse("table", args=[table.pk]))
    ctx = response.context
    assert response.status_code == 200
    assert [s.position for s in ctx["seats"]] == [0, 1, 2, 3]
    assert ctx["my_position"] == 0 and ctx["is_creator"] and not ctx["can_start"]
    assert ctx["ws_path"] == f"/ws/table/{table.pk}/"
    assert ctx["invite_url"] == f"http://testserver/tavolo/invito/{table.invite_token}/"
    assert {"id": "ciao", "text": "Ciao!"} in ctx["chat_phrases"]
    assert ctx["bot_levels"] == BotLevel.choices


def test_private_table_needs_the_invite_link():
    anna, bruno = make_user("anna"), make_user("bruno")
    table = new_table(anna, private=True)
    client = logged_in(bruno)
    assert client.get(reverse("table", args=[table.pk])).status_code == 404
    assert client.post(reverse("table_sit", args=[table.pk]), {"position": 1}).status_code == 404
    response = client.get(reverse("table_invite", args=[table.invite_token]))
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[table.pk])
    page = client.get(reverse("table", args=[table.pk]))
    assert page.status_code == 200 and page.context["invite_url"] is None  # only the creator shares it
    client.post(reverse("table_sit", args=[table.pk]), {"position": 1})
    assert Seat.objects.get(table=table, position=1).user == bruno


def test_seat_views_show_italian_messages_on_refusal():
    anna, bruno = make_user("anna"), make_user("bruno")
    table = new_table(anna, rated=True)
    client = logged_in(anna)
    response = client.post(reverse("table_fill", args=[table.pk]), {"position": 1, "level": "medio"}, follow=True)
    assert "niente computer" in response.content.decode()
    response = logged_in(bruno).post(reverse("table_sit", args=[table.pk]), {"position": 0}, follow=True)
    assert "Questo posto è già occupato." in response.content.decode()
    response = logged_in(bruno).post(reverse("table_sit", args=[table.pk]), {"position": 1})
    assert response.status_code == 302
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_leave_and_start_views():
    anna, bruno = make_user("anna"), make_user("bruno")
    table = new_table(anna, players=4)
    client = logged_in(bruno)
    client.post(reverse("table_sit", args=[table.pk]), {"position": 3})
    response = client.post(reverse("table_leave", args=[table.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    assert Seat.objects.get(table=table, position=3).is_empty
    response = logged_in(anna).post(reverse("table_start", args=[table.pk]), follow=True)
    assert "Mancano ancora dei giocatori" in response.content.decode()


def test_play_computer_view_redirects_to_the_started_table():
    anna = make_user("anna")
    response = logged_in(anna).post(reverse("play_computer"), {"level": "esperto"})
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[table.pk])
    assert table.status == Table.Status.PLAYING


REALE_FORM = {
    "players": "4", "preset": "reale", "target": "1005", "stock_exhausted": "end_at_two",
    "pinella_points": "10", "draw_seconds": "30", "play_seconds": "60", "disconnect_grace_seconds": "45",
}


def test_a_burraco_reale_table_from_the_form():
    anna = make_user("anna")
    response = logged_in(anna).post(reverse("table_create"), REALE_FORM)
    table = Table.objects.get()
    assert response.status_code == 302 and table.preset == "reale" and table.players == 4
    rules = Ruleset.from_dict(table.options)
    assert (rules.variant, rules.target, rules.pinella_points, rules.burraco_sets) == ("reale", 1005, 10, False)
    lobby = logged_in(anna).get(reverse("lobby")).content.decode()
    assert '<option value="reale">Burraco Reale</option>' in lobby and 'name="pinella_points"' in lobby


def test_the_form_refuses_options_burraco_reale_has_not():
    anna = make_user("anna")
    response = logged_in(anna).post(reverse("table_create"), REALE_FORM | {"burraco_sets": "on", "semipulito": "on"})
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert errors["burraco_sets"] == ["Nel Burraco Reale non ci sono tris: solo scale."]
    assert errors["semipulito"] == ["Nel Burraco Reale il semipulito non c'è."]
    response = logged_in(anna).post(reverse("table_create"), FORM | {"pinella_points": "10"})
    assert response.context["form"].errors["pinella_points"] == ["La pinella vale 10 punti solo nel Burraco Reale."]
    assert not Table.objects.exists()


def test_a_burraco_reale_game_against_the_computer_is_dealt_from_104_cards():
    from games.engine import Game as EngineGame
    from games.engine.deal import check_deal

    anna = make_user("anna")
    table = seating.play_against_computer(user=anna, level=BotLevel.MEDIO, preset="reale")
    game = Game.objects.get(table=table)
    deal = EngineGame.from_dict(game.state).deal
    piles = [*deal["hands"], *deal["pozzetti"], deal["stock"], deal["discard"]]
    assert table.preset == "reale" and sum(len(p) for p in piles) == 104
    assert all("JK" not in p for p in piles) and len(deal["stock"]) == 59
    hand = game.hands.get()
    assert check_deal(deal, hand.seed).code == "ok"
