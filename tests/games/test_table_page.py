"""What the table page reads besides the socket: the hand's public move log, the table's own
rules, the rematch at a finished table, and the extra time on a new hand's first draw."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.live import clock
from games.models import Game, Hand, Rematch, Seat, Table
from games.selectors.replays import log_labels, table_log
from games.selectors.rules import table_rules
from games.services.lobby import rematch
from games.services.table.play import abandon_match, submit_action
from games.services.table.seating import TableError, create_table, fill_with_computer
from tests.games.helpers import capture, make_user, started_table

pytestmark = pytest.mark.django_db(transaction=True)


def force(game: Game, engine_game: EngineGame) -> None:
    game.state = engine_game.to_dict()
    game.to_move = engine_game.to_move
    game.hand_number = engine_game.hand_number + 1
    game.save()
    Hand.objects.filter(game=game, number=game.hand_number).update(deal=engine_game.deal)


def two(**kwargs):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = started_table([anna, bruno], **kwargs)
    return (anna, bruno), table, Game.objects.get(table=table)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# ---------------------------------------------------------------- the move log


def test_the_log_tells_the_hand_in_public_words():
    (anna, bruno), table, game = two(target=505)
    force(game, EngineGame.setup(Ruleset.preset("classico", target=505), hands=["7H 8H 9H KD QS", "5S 5D QC"],
                                 stock="4C 5C 6C TS", discard="QD", to_move=0))
    submit_action(game_id=game.pk, seat=0, action={"type": "draw"}, user=anna)
    submit_action(game_id=game.pk, seat=0, action={"type": "meld", "cards": ["7H", "8H", "9H"]}, user=anna)
    submit_action(game_id=game.pk, seat=0, action={"type": "discard", "card": "KD"}, actor="timeout")
    submit_action(game_id=game.pk, seat=1, action={"type": "take_discards"}, user=bruno)
    log = table_log(Game.objects.get(pk=game.pk))
    assert log["hand_number"] == 1 and log["version"] == 4
    assert [(line["version"], line["seat"], line["actor"]) for line in log["lines"]] == [
        (1, 0, "person"), (2, 0, "person"), (3, 0, "timeout"), (4, 1, "person")]
    assert [line["text"] for line in log["lines"]] == [
        "anna pesca dal tallone",  # the card drawn from the stock is never named
        "anna cala 7♥ 8♥ 9♥",
        "anna scarta K♦ (tempo scaduto)",
        "bruno raccoglie gli scarti (Q♦ K♦)",
    ]
    assert "TS" not in str(log) and "10♠" not in str(log)  # the stock's top card stays hidden
    # The page's script writes new lines with the same words.
    assert log_labels()["take"] == "{name} raccoglie gli scarti ({cards})"


def test_the_log_page_follows_who_may_see_the_table():
    (anna, bruno), table, game = two()
    response = signed_in(bruno).get(reverse("table_log", args=[table.pk]))
    assert response.status_code == 200 and response.json()["lines"] == []
    private = create_table(creator=anna, ruleset=Ruleset.preset("classico"), private=True)
    stranger = signed_in(make_user("carla"))
    assert stranger.get(reverse("table_log", args=[private.pk])).status_code == 404
    assert Client().get(reverse("table_log", args=[table.pk])).status_code == 302  # sign in first


def test_the_log_in_english():
    (anna, bruno), table, game = two()
    submit_action(game_id=game.pk, seat=game.to_move, action={"type": "draw"}, user=(anna, bruno)[game.to_move])
    type(anna).objects.filter(pk=bruno.pk).update(language="en")
    lines = signed_in(bruno).get(reverse("table_log", args=[table.pk])).json()["lines"]
    assert lines[0]["text"].endswith(" draws from the stock")


# ---------------------------------------------------------------- the table's own rules


def test_table_rules_name_what_differs_from_classico():
    rules = table_rules(Ruleset.preset("testa_a_testa", draw_seconds=20).to_dict())
    assert rules["preset"] == "Testa a testa" and rules["target"] == "nessun punteggio da raggiungere: una mano sola"
    assert {d["name"]: d["value"] for d in rules["differences"]} == {
        "burraco_sets": "no", "pozzetto_must_be_played": "sì", "draw_seconds": "20"}
    assert table_rules(Ruleset.preset("classico", players=4).to_dict()) == {
        "preset": "Classico", "target": "a 2005 punti", "differences": []}


def test_the_table_page_shows_its_rules():
    (anna, bruno), table, game = two(preset="mano_unica")
    body = signed_in(anna).get(reverse("table", args=[table.pk])).content.decode()
    assert 'id="rules-panel"' in body and "Mano unica" in body
    assert 'data-option="close_by_melding"' in body and 'data-option="stock_exhausted"' in body


# ---------------------------------------------------------------- the next hand's first draw


def test_the_first_draw_of_a_new_hand_gets_the_scoring_break(settings):
    settings.HAND_BREAK_SECONDS = 15
    (anna, bruno), table, game = two(target=505, draw_seconds=30)
    force(game, EngineGame.setup(Ruleset.preset("classico", target=505), hands=["KS", "5C 6C 9D"],
                                 stock="TH 4D 8S QC", discard="3S", melds=[["3H 4H 5H 6H 7H 8H 9H"], []],
                                 to_move=0))
    submit_action(game_id=game.pk, seat=0, action={"type": "draw"}, user=anna)
    game.refresh_from_db()
    in_hand = (game.turn_deadline - clock.now()).total_seconds()
    assert 55 < in_hand <= 60  # within the hand: no break
    submit_action(game_id=game.pk, seat=0, action={"type": "lay_off", "meld": 1, "cards": ["TH"]}, user=anna)
    submit_action(game_id=game.pk, seat=0, action={"type": "discard", "card": "KS"}, user=anna)
    game.refresh_from_db()
    assert game.hand_number == 2 and not game.finished
    left = (game.turn_deadline - clock.now()).total_seconds()
    assert 40 < left <= 45  # 30 s to draw + 15 s to read the scoring
    submit_action(game_id=game.pk, seat=game.to_move, action={"type": "draw"}, user=(anna, bruno)[game.to_move])
    game.refresh_from_db()
    assert (game.turn_deadline - clock.now()) <= timedelta(seconds=60)


# ---------------------------------------------------------------- rematch


def finished_table(users, **kwargs) -> Table:
    table = started_table(users, **kwargs)
    abandon_match(table_id=table.pk, user=users[1])
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    return table


def test_rematch_starts_when_everybody_said_yes(monkeypatch):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = finished_table([anna, bruno], preset="testa_a_testa", draw_seconds=40)
    first = Hand.objects.get(game__table=table, number=1).deal["to_move"]
    cap = capture(monkeypatch)
    offer = rematch.offer_rematch(table_id=table.pk, user=bruno)
    assert offer.accepted == [1] and offer.new_table_id is None
    frame = cap.sent[-1]
    assert frame == (f"table.{table.pk}.all", {"type": "rematch", "table": table.pk, "accepted": [1],
                                               "needed": [0, 1], "table_url": None, "ended": None,
                                               "ended_by": None})
    rematch.offer_rematch(table_id=table.pk, user=bruno)  # twice is once
    assert Rematch.objects.get(table=table).accepted == [1]
    offer = rematch.offer_rematch(table_id=table.pk, user=anna)
    new = offer.new_table
    assert new is not None and new.status == Table.Status.PLAYING
    assert [f["table_url"] for _g, f in cap.sent if f.get("type") == "rematch"][-1] == f"/tavolo/{new.pk}/"
    assert [(s.position, s.user_id) for s in new.seats.order_by("position")] == [(0, anna.pk), (1, bruno.pk)]
    assert new.options == table.options and new.draw_seconds == 40 and new.preset == "testa_a_testa"
    assert Game.objects.get(table=new).to_move == (first + 1) % 2  # the other side opens
    again = rematch.offer_rematch(table_id=table.pk, user=anna)  # a late click changes nothing
    assert again.new_table_id == new.pk and Table.objects.count() == 2


def test_rematch_with_a_computer_needs_only_the_person(monkeypatch):
    capture(monkeypatch)
    anna = make_user("anna")
    table = create_table(creator=anna, ruleset=Ruleset.preset("mano_unica"))
    fill_with_computer(table_id=table.pk, user=anna, position=1, level="medio")
    abandon_match(table_id=table.pk, user=anna)
    offer = rematch.offer_rematch(table_id=table.pk, user=anna)
    assert offer.new_table is not None
    assert Seat.objects.get(table=offer.new_table, position=1).bot_level == "medio"


def test_rematch_refusals_change_nothing():
    anna, bruno = make_user("anna"), make_user("bruno")
    playing = started_table([anna, bruno])
    with pytest.raises(TableError) as exc:
        rematch.offer_rematch(table_id=playing.pk, user=anna)
    assert exc.value.code == "not_finished"
    table = finished_table([make_user("carla"), make_user("dario")])
    with pytest.raises(TableError) as exc:
        rematch.offer_rematch(table_id=table.pk, user=anna)
    assert exc.value.code == "not_seated" and exc.value.message == "Non sei seduto a questo tavolo."
    assert not Rematch.objects.exists()


def test_rematch_view_goes_to_the_new_table():
    anna, bruno = make_user("anna"), make_user("bruno")
    table = finished_table([anna, bruno])
    response = signed_in(anna).post(reverse("table_rematch", args=[table.pk]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("table", args=[table.pk])
    assert "Rivincita chiesta" in response.content.decode()
    response = signed_in(bruno).post(reverse("table_rematch", args=[table.pk]))
    new = Rematch.objects.get(table=table).new_table
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[new.pk])
    page = signed_in(anna).get(reverse("table", args=[table.pk])).content.decode()
    assert f'"table_url": "/tavolo/{new.pk}/"' in page  # the finished table's page knows where it went


def test_rematch_decline_form_ends_the_offer_and_a_late_yes_is_refused(monkeypatch):
    """The page's "No, grazie" without its socket: the form posts it; the offer ends, live for all."""
    cap = capture(monkeypatch)
    anna, bruno = make_user("anna"), make_user("bruno")
    table = finished_table([anna, bruno])
    rematch.offer_rematch(table_id=table.pk, user=anna)
    response = signed_in(bruno).post(reverse("table_rematch_decline", args=[table.pk]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("table", args=[table.pk])
    assert "Hai detto di no alla rivincita." in response.content.decode()
    assert cap.sent[-1][1] == {"type": "rematch", "table": table.pk, "accepted": [0], "needed": [0, 1],
                                    "table_url": None, "ended": "declined", "ended_by": 1}
    response = signed_in(anna).post(reverse("table_rematch", args=[table.pk]), follow=True)
    assert "La rivincita è stata rifiutata" in response.content.decode()
    offer = Rematch.objects.get(table=table)
    assert (offer.accepted, offer.ended, offer.new_table_id) == ([0], "declined", None)
    assert Table.objects.count() == 1
