"""Fair deals on the site (docs/fairness.md): every hand of a random match is dealt from a seed
whose hash the seats saw, the seed is hidden while the hand is played and published after it,
`manage.py verify_deal` and the verify page accept every hand and refuse a tampered card, seed or
hash with their own message, and a client seed sent with `hello` goes into the next deal."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from games.engine import FairSeed, IllegalMove, Ruleset
from games.engine import Game as EngineGame
from games.models import Game, Hand, Seat
from games.selectors.fairness import game_fairness
from games.services.play.play import submit_action
from games.services.table import fairness
from tests.games.helpers import engine_of, logged_in, make_user, random_legal, started_table, without_timers

pytestmark = pytest.mark.django_db


def play_to(game: Game, users: list, rng: random.Random, *, until_hand: int | None = None) -> Game:
    """Random legal plays until the match is over (or hand `until_hand` is dealt)."""
    for _ in range(20000):
        game.refresh_from_db()
        if game.finished or (until_hand is not None and game.hand_number >= until_hand):
            return game
        state = engine_of(game)
        seat = state.to_move
        submit_action(game_id=game.pk, seat=seat, action=random_legal(state, rng), user=users[seat],
                      expected_version=game.version)
    raise AssertionError("the match did not end")


@pytest.fixture
def match(monkeypatch):
    """A two-player match to 505 played out with random legal moves; seat 0 gives a client seed
    during hand 1."""
    without_timers(monkeypatch)
    users = [make_user("anna"), make_user("bruno")]
    table = started_table(users, target=505)
    game = Game.objects.get(table=table)
    first = Hand.objects.get(game=game, number=1)
    assert first.deal["commitment"]["client_seeds"] == ["", ""]
    assert engine_of(game).commitment == first.deal["commitment"]["hash"] == FairSeed.from_hex(first.seed).hash
    assert fairness.set_client_seed(table_id=table.pk, position=0, user=users[0], text="anna-42")
    game = play_to(game, users, random.Random(5))
    if game.hand_number > 1:  # the deal is random: now and then one hand decides the match
        assert Hand.objects.get(game=game, number=2).deal["commitment"]["client_seeds"] == ["anna-42", ""]
    return game, users


def run_verify(*args) -> str:
    out = StringIO()
    call_command("verify_deal", *args, stdout=out)
    return out.getvalue()


def tamper(game: Game, how: str) -> None:
    hand = Hand.objects.get(game=game, number=1)
    deal = hand.deal
    if how == "card":
        first_stock = deal["stock"][0]
        other = next(i for i, c in enumerate(deal["hands"][0]) if c != first_stock)
        deal["hands"][0][other], deal["stock"][0] = first_stock, deal["hands"][0][other]
    elif how == "hash":
        deal["commitment"]["hash"] = FairSeed.draw().hash
    elif how == "seed":
        hand.seed = FairSeed.draw().seed_hex
    elif how == "client":
        deal["commitment"]["client_seeds"] = ["altro", ""]
    hand.deal = deal
    hand.save()


TAMPERING = [
    ("card", "Le carte registrate non sono quelle che il seme distribuisce"),
    ("hash", "è l'impronta a essere cambiata"),
    ("seed", "non è il seme di questa mano"),
    ("client", "Le carte registrate non sono quelle che il seme distribuisce"),
]


def test_every_hand_of_a_random_match_verifies_and_tampering_is_refused(match):
    """One match played once (the costly part), then each tampering of hand 1 in turn, undone."""
    game, _users = match
    hands = game_fairness(game)
    assert len(hands) == game.hand_number and all(h.ok and h.compared == 108 and h.seed for h in hands)
    out = run_verify(str(game.pk))
    assert out.count("Mano verificata") == len(hands)
    assert hands[0].seed in out and hands[0].hash in out
    assert "Mano verificata" in run_verify(f"{game.pk}/1") and "Mano 2" not in run_verify(f"{game.pk}/1")
    client = Client()
    assert reverse("game_verify", args=[game.pk]) in client.get(reverse("game_detail", args=[game.pk])).content.decode()
    page = client.get(reverse("game_verify", args=[game.pk])).content.decode()
    assert hands[0].seed in page and hands[0].hash in page and page.count('data-code="ok"') == len(hands)

    original = Hand.objects.get(game=game, number=1)
    for how, says in TAMPERING:
        tamper(game, how)
        out = StringIO()
        with pytest.raises(CommandError) as info:
            call_command("verify_deal", str(game.pk), stdout=out)
        assert str(info.value).startswith("Mano 1: ") and says in str(info.value), how
        if how == "card":
            assert "mano del posto 1, carta" in out.getvalue() and "tallone, carta 1" in out.getvalue()
            page = client.get(reverse("game_verify", args=[game.pk])).content.decode()
            assert 'id="verify-hand-1" data-code="card_mismatch"' in page and "mano del posto 1" in page
            replay = client.get(reverse("game_replay", args=[game.pk]) + "?mano=1").content.decode()
            assert hands[0].seed in replay and 'data-code="card_mismatch"' in replay
        original.save()  # undone: the next tampering starts from the true record
    assert run_verify(str(game.pk)).count("Mano verificata") == len(hands)


def test_a_hand_in_play_shows_its_hash_and_hides_its_seed(monkeypatch):
    without_timers(monkeypatch)
    users = [make_user("carla"), make_user("dario")]
    table = started_table(users, target=505)
    game = Game.objects.get(table=table)
    hand = Hand.objects.get(game=game, number=1)
    [found] = game_fairness(game)
    assert found.code == "in_play" and found.seed is None and found.hash == hand.deal["commitment"]["hash"]
    client = Client()
    for url in (reverse("game_verify", args=[game.pk]), reverse("game_detail", args=[game.pk]),
                reverse("game_replay", args=[game.pk]), reverse("game_moves_json", args=[game.pk])):
        assert hand.seed not in client.get(url).content.decode(), url
    assert "Mano in corso" in run_verify(str(game.pk))  # not a failure: the seed comes at the end


def test_an_old_hand_without_commitment_says_so(monkeypatch):
    without_timers(monkeypatch)
    users = [make_user("elsa"), make_user("fabio")]
    table = started_table(users, preset="mano_unica")
    game = Game.objects.get(table=table)
    old = EngineGame.new(Ruleset.preset("mano_unica"))  # dealt the way hands were before
    Hand.objects.filter(game=game).update(deal=old.deal, seed="")
    game.state = old.to_dict()
    game.save()
    play_to(game, users, random.Random(2))
    out = run_verify(str(game.pk))
    assert "Mano senza impegno" in out
    page = Client().get(reverse("game_verify", args=[game.pk])).content.decode()
    assert "Mano senza impegno" in page


def test_the_verify_form_rebuilds_a_pasted_deal():
    client = Client()
    url = reverse("verify")
    vector = "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    page = client.get(url, {"seme": "00" * 32, "client": "ciao", "impronta": vector, "giocatori": 2})
    html = page.content.decode()
    assert page.status_code == 200 and 'data-code="ok"' in html
    assert "JH JC 9S TH 3D 2D 5C KC 6D QH JH"[:29] in html  # seat 1's hand starts with the vector
    wrong = client.get(url, {"seme": "00" * 32, "client": "ciao", "impronta": "ab" * 32, "giocatori": 2})
    assert 'data-code="hash_mismatch"' in wrong.content.decode()
    bad = client.get(url, {"seme": "xyz", "client": "", "impronta": "", "giocatori": 2})
    assert 'data-code="bad_seed"' in bad.content.decode()
    english = client.get(url, {"seme": "00" * 32, "client": "\nciao", "giocatori": 4}, HTTP_ACCEPT_LANGUAGE="en")
    assert english.status_code == 200 and "Check a seed" in english.content.decode()


def test_client_seeds_are_checked_and_kept_per_seat(monkeypatch):
    without_timers(monkeypatch)
    users = [make_user("gino"), make_user("ida")]
    table = started_table(users, target=2005)
    with pytest.raises(IllegalMove):
        fairness.set_client_seed(table_id=table.pk, position=0, user=users[0], text="due parole")
    assert not fairness.set_client_seed(table_id=table.pk, position=1, user=users[0], text="x")  # not her seat
    assert not fairness.set_client_seed(table_id=table.pk, position=None, user=users[0], text="x")
    assert fairness.set_client_seed(table_id=table.pk, position=1, user=users[1], text=" ida ")
    assert list(Seat.objects.filter(table=table).values_list("client_seed", flat=True)) == ["", "ida"]
    game = Game.objects.get(table=table)
    assert Hand.objects.get(game=game, number=1).deal["commitment"]["client_seeds"] == ["", ""]
    play_to(game, users, random.Random(3), until_hand=2)  # a match to 2005 does not end in one hand
    second = Hand.objects.get(game=game, number=2)
    assert second.deal["commitment"]["client_seeds"] == ["", "ida"]
    assert FairSeed.from_hex(second.seed, ["", "ida"]).hash == engine_of(game).commitment


def test_each_hand_announces_the_next_hands_hash(monkeypatch):
    """The seed of hand 2 was drawn with hand 1 and its hash shown then, before the client seeds
    that go with it; a hand whose hash is not the one announced says so, even while played."""
    without_timers(monkeypatch)
    users = [make_user("olga"), make_user("pino")]
    table = started_table(users, target=2005)
    game = Game.objects.get(table=table)
    first = Hand.objects.get(game=game, number=1)
    announced = first.deal["commitment"]["next_hash"]
    assert engine_of(game).next_commitment == announced == FairSeed.from_hex(first.next_seed).hash
    play_to(game, users, random.Random(4), until_hand=2)
    second = Hand.objects.get(game=game, number=2)
    assert second.seed == first.next_seed and engine_of(game).commitment == announced
    assert [h.code for h in game_fairness(game)] == ["ok", "in_play"]
    assert announced in Client().get(reverse("game_verify", args=[game.pk])).content.decode()
    assert second.next_seed not in Client().get(reverse("game_verify", args=[game.pk])).content.decode()
    deal = first.deal
    deal["commitment"]["next_hash"] = FairSeed.draw().hash
    Hand.objects.filter(pk=first.pk).update(deal=deal)
    assert [h.code for h in game_fairness(game)] == ["ok", "chain_mismatch"]
    assert [h.code for h in game_fairness(game, 2)] == ["chain_mismatch"]


def test_a_seed_in_the_settings_goes_into_every_deal(monkeypatch):
    """The settings page's seed is mixed into the deals of the player's tables; a seat's own from
    `hello` comes before it; a bad one is refused by the form."""
    without_timers(monkeypatch)
    users = [make_user("lia"), make_user("max")]
    url = reverse("accounts:settings")
    saved = logged_in(users[0]).post(url, {"language": "it", "sound_on": "on", "client_seed": "lia-seme"})
    assert saved.status_code == 302
    refused = logged_in(users[1]).post(url, {"language": "it", "client_seed": "due parole"})
    assert refused.status_code == 200 and "senza spazi" in refused.content.decode()
    table = started_table(users, target=2005)
    hand = Hand.objects.get(game__table=table, number=1)
    assert hand.deal["commitment"]["client_seeds"] == ["lia-seme", ""]
    assert FairSeed.from_hex(hand.seed, ["lia-seme", ""]).hash == hand.deal["commitment"]["hash"]
    Seat.objects.filter(table=table, position=0).update(client_seed="dal-tavolo")
    assert fairness.draw_for(Seat.objects.filter(table=table)).fair.client_seeds == ("dal-tavolo", "")


def test_the_verify_form_rebuilds_a_burraco_reale_deal():
    from games.engine import FairSeed, Game, Ruleset

    fair = FairSeed.from_hex("00" * 32, ["ciao", ""])
    game = Game.new(Ruleset.preset("reale"), fair=fair)
    page = Client().get(reverse("verify"), {"seme": "00" * 32, "client": "ciao", "impronta": fair.hash,
                                             "giocatori": 2, "mazzo": "reale"})
    html = page.content.decode()
    assert page.status_code == 200 and 'data-code="ok"' in html
    assert " ".join(game.deal["hands"][0][:8]) in html and "JK" not in game.deal["stock"]
