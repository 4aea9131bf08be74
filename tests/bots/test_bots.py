"""Computer players: they see only a view, play only legal actions, and rank as promised."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest

from games.bots import LAB_LEVELS, choose_action, knowledge, strategy
from games.bots.lab import tournament
from games.engine import Game, IllegalMove, Ruleset


def play_out(game: Game, levels: dict[int, str], rng: random.Random, max_actions: int = 3000) -> Game:
    for _ in range(max_actions):
        if game.hand_over:
            return game
        seat = game.to_move
        # A tiny budget: the expert then samples one world per decision (legality is the point here).
        game.apply(seat, choose_action(game.view(seat), levels[seat % 2], rng, budget_seconds=0.001))
    raise AssertionError("the hand did not end")


def test_bots_package_imports_no_django():
    code = ("import sys, random; import games.bots, games.bots.lab.tournament, games.bots.expert; "
            "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules), 'django'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(Path(__file__).parents[2]))


@pytest.mark.parametrize("preset", ["classico", "mano_unica", "testa_a_testa"])
@pytest.mark.parametrize("players", [2, 4])
def test_every_level_plays_whole_hands_legally(preset, players):
    """Each level against each other, on every preset: every action goes through apply."""
    rng = random.Random(f"{preset}-{players}")
    pairings = [("medio", "principiante")]
    if (preset, players) in (("classico", 2), ("mano_unica", 4)):
        pairings += [("esperto", "medio"), ("principiante", "esperto")]
    for level_a, level_b in pairings:
        game = Game.new(Ruleset.preset(preset, players=players, target=None), rng=random.Random(rng.random()))
        play_out(game, {0: level_a, 1: level_b}, rng)
        assert game.hand_over
        assert game.end_reason in ("closed", "stock_exhausted")


def test_determinized_game_shows_the_same_view():
    """The game rebuilt from a view looks, from that seat, exactly like the real one."""
    rng = random.Random(11)
    for players in (2, 4):
        game = Game.new(Ruleset.preset("classico", players=players), rng=random.Random(players))
        for _ in range(120):
            if game.hand_over:
                break
            seat = game.to_move
            view = game.view(seat)
            rebuilt = knowledge.determinize(view, rng)
            again = rebuilt.view(seat)
            for key in ("hand", "hand_counts", "stock_count", "discard", "melds", "pozzetti", "phase",
                        "to_move", "picked_single_card", "can_close", "close_blocker", "allowed"):
                assert again[key] == view[key], key
            assert sorted(map(json.dumps, rebuilt.legal_actions(seat))) == sorted(
                map(json.dumps, game.legal_actions(seat)))
            game.apply(seat, choose_action(view, "medio", rng))


def test_hidden_cards_do_not_change_a_decision():
    """Two games that differ only in cards seat 0 cannot see: the same view, the same choice."""
    ruleset = Ruleset.preset("classico")
    common = dict(discard="QD 7C", to_move=0)
    mine = "7H 8H 9H KD 5S 5D QS 2C AS 4D 4C"
    a = Game.setup(ruleset, hands=[mine, "3H 3D 3C 6S 6D JH JD TS TC 9C 8C"],
                   stock="KH KC QH", pozzetti=["AH AD 6H 6C 7D 7S 8D 8S 9D 9S TD",
                                               "JC JS QC KS AC 3S 4S 4H 5H 5C 6C"], **common)
    b = Game.setup(ruleset, hands=[mine, "JC JS QC KS AC 3S 4S 4H 5H 5C 6C"],
                   stock="3H 3D 3C", pozzetti=["KH KC QH 6S 6D JH JD TS TC 9C 8C",
                                               "AH AD 6H 6C 7D 7S 8D 8S 9D 9S TD"], **common)
    assert a.view(0) == b.view(0)
    for level in LAB_LEVELS:  # the sparring partner too
        for seed in range(5):
            first = choose_action(a.view(0), level, random.Random(seed), budget_seconds=0.05)
            second = choose_action(b.view(0), level, random.Random(seed), budget_seconds=0.05)
            assert first == second


def test_refuses_to_play_out_of_turn():
    game = Game.new(Ruleset.preset("classico"), rng=random.Random(3))
    other = 1 - game.to_move
    with pytest.raises(ValueError):
        choose_action(game.view(other), "medio", random.Random(0))
    with pytest.raises(ValueError):
        choose_action(game.view(game.to_move), "campione", random.Random(0))


def test_medio_protects_a_clean_burraco_and_lays_off_naturals():
    ruleset = Ruleset.preset("classico")
    game = Game.setup(ruleset, hands=["JK 9H KD KC 5S", "3C 4C 5C"], stock="QD QC 6D",
                      discard="4S", melds=[["2H 3H 4H 5H 6H 7H 8H", "5D 6D 7D"], []],
                      pozzetti=[None, None], to_move=0)
    game.apply(0, {"type": "draw"})
    view = game.view(0)
    seen = []
    for _ in range(6):
        action = choose_action(view, "medio", random.Random(0))
        seen.append(action)
        game.apply(0, action)
        if action["type"] == "discard":
            break
        view = game.view(0)
    # 9H goes on the clean run; the joker never lands on the clean burraco.
    assert {"type": "lay_off", "meld": 1, "cards": ["9H"]} in seen
    burraco = game.melds(0)[0]
    assert burraco.burraco == "pulito"
    assert all(c.text != "JK" for c in burraco.cards)


def test_medio_takes_a_pile_that_pays_and_leaves_one_that_does_not():
    ruleset = Ruleset.preset("classico")
    rich = Game.setup(ruleset, hands=["7S 8S KD 4C 9H", "3C 4D 5C"], stock="QD QC 6D 6S 7D",
                      discard="9S TS JS JK", to_move=0)
    assert choose_action(rich.view(0), "medio", random.Random(0)) == {"type": "take_discards"}
    poor = Game.setup(ruleset, hands=["7S 8S KD 4C 9H", "3C 4D 5C"], stock="QD QC 6D 6S 7D",
                      discard="3H", to_move=0)
    assert choose_action(poor.view(0), "medio", random.Random(0)) == {"type": "draw"}


def test_medio_discards_a_card_the_opponents_cannot_lay_off():
    ruleset = Ruleset.preset("classico")
    game = Game.setup(ruleset, hands=["9C KH 4S 7H 2S", "3C 4D 5C"], stock="QD QC 6D 6S 7D",
                      discard="3H", melds=[[], ["TC JC QC", "KS KH KC"]], to_move=0)
    game.apply(0, {"type": "draw"})  # the stock's top card: QD
    action = choose_action(game.view(0), "medio", random.Random(0))
    assert action["type"] == "discard"
    assert action["card"] in ("4S", "7H", "QD")  # 9C and KH fit their melds, 2S is a wild


def test_expert_stays_within_its_budget():
    """The budget is CPU time of the deciding thread (expert.py), so that is what is measured: the
    wall clock of a decision also counts the time a busy machine (or the suite's other worker)
    keeps the thread waiting, which no budget can promise."""
    import time

    game = Game.new(Ruleset.preset("classico"), rng=random.Random(5))
    rng = random.Random(5)
    slowest = 0.0
    for _ in range(16):
        seat = game.to_move
        start = time.thread_time()
        action = choose_action(game.view(seat), "esperto", rng, budget_seconds=0.1)
        slowest = max(slowest, time.thread_time() - start)
        game.apply(seat, action)
        if game.hand_over:
            break
    assert slowest < 0.3


@pytest.mark.parametrize(("level_a", "level_b", "players", "worlds"), [
    ("medio", "principiante", 2, None), ("esperto", "medio", 2, 2), ("medio", "principiante", 4, None)])
def test_a_one_seed_match_of_the_strength_runs(level_a, level_b, players, worlds):
    """The default run's smoke version of the strength runs below (slow): one hand each, played
    out and counted, with each side's decision times."""
    result = tournament.run(level_a, level_b, games=1, seed=3, players=players, worlds=worlds)
    assert result["games"] == 1 and result["wins_a"] + result["wins_b"] + result["draws"] == 1, result
    assert result["decision_ms_a"]["decisions"] > 0 and result["decision_ms_b"]["decisions"] > 0, result


@pytest.mark.slow
def test_short_tournament_orders_the_levels():
    """Loose on purpose (20 hands): the real figures are in docs/performance.md."""
    medio = tournament.run("medio", "principiante", games=20, seed=3)
    assert medio["games"] == 20 and medio["wins_a"] + medio["wins_b"] + medio["draws"] == 20
    # medio plays for points (issue 31): hands won is not what it aims at (12 of 20 on this seed),
    # the margin is, and its interval over these hands must be above nothing.
    assert medio["wins_a"] > medio["wins_b"], medio
    assert medio["margin_per_hand_ci95"][0] > 0, medio
    assert medio["mean_score_diff"] > 150
    assert medio["decision_ms_a"]["decisions"] > 0 and medio["decision_ms_a"]["p99"] is not None


@pytest.mark.slow
def test_expert_is_not_weaker_than_medio():
    """Only a guard against a broken expert: 8 hands cannot show a 60/40 edge (the 200-hand
    figure is in docs/performance.md). A fixed number of sampled worlds, not a time budget,
    keeps this run repeatable whatever the machine's load; duplicate deals (each played twice,
    seats swapped) keep a run of bad deals from sinking it (on seed 4 the plain 8 hands gave
    an expert on 4 worlds 2 wins, then 1, while 80 duplicate hands give it 49 %)."""
    result = tournament.run("esperto", "medio", games=8, seed=4, worlds=4, duplicate=True)
    assert result["wins_a"] >= 2, result
    assert result["mean_score_diff"] > -250, result


@pytest.mark.slow
def test_four_player_pairs_play_for_their_team():
    result = tournament.run("medio", "principiante", games=6, seed=2, players=4)
    assert result["games"] == 6
    assert result["wins_a"] >= 4, result


@pytest.mark.django_db
def test_bot_tournament_command_prints_one_json_object():
    from django.core.management import call_command

    out = StringIO()
    call_command("bot_tournament", "--a", "medio", "--b", "principiante", "--games", "4", "--seed", "1",
                 "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["games"] == 4
    assert data["wins_a"] + data["wins_b"] + data["draws"] == 4
    for side in ("decision_ms_a", "decision_ms_b"):
        assert set(data[side]) >= {"median", "p99"}
    assert isinstance(data["mean_score_diff"], float)
    digests = []
    for _ in range(2):  # the expert with a fixed number of worlds: the same games again
        out = StringIO()
        call_command("bot_tournament", "--a", "esperto", "--b", "medio", "--games", "1", "--seed", "1",
                     "--worlds", "2", "--json", stdout=out)
        digests.append(json.loads(out.getvalue())["digest"])
    assert digests[0] == digests[1] != data["digest"]


def test_strategy_reads_only_the_seat_hand():
    """The greedy player, given a determinized game, decides the same whatever the others hold."""
    game = Game.new(Ruleset.preset("classico"), rng=random.Random(9))
    for _ in range(60):
        if game.hand_over:
            break
        seat = game.to_move
        view = game.view(seat)
        one = strategy.greedy_action(knowledge.determinize(view, random.Random(1)), seat)
        two = strategy.greedy_action(knowledge.determinize(view, random.Random(2)), seat)
        assert one == two
        try:
            game.apply(seat, one)
        except IllegalMove as exc:  # pragma: no cover - a failure message worth reading
            raise AssertionError(f"illegal {one}: {exc}") from exc


def test_expert_keeps_the_greedy_choice_unless_another_clearly_beats_it(monkeypatch):
    """DEVIATION_MARGIN: with an unreachable margin esperto plays exactly as medio at its draws
    and discards; with none it leaves the greedy choice somewhere in a hand."""
    from games.bots import expert

    def decisions(margin: float) -> tuple[int, int]:
        monkeypatch.setattr(expert, "DEVIATION_MARGIN", margin)
        game = Game.new(Ruleset.preset("classico"), rng=random.Random(8))
        rng = random.Random(8)
        compared = deviated = 0
        for _ in range(120):
            if game.hand_over:
                break
            seat = game.to_move
            view = game.view(seat)
            action = choose_action(view, "esperto", rng, worlds=4)
            # No record given: esperto starts from medio's choice without it (`expert._baseline`).
            world = knowledge.determinize(view, random.Random(1))
            candidates = expert._candidates(world, seat, strategy.MEDIO_WITHOUT_RECORD)
            if len(candidates) > 1:
                compared += 1
                deviated += action != candidates[0]
            game.apply(seat, action)
        return compared, deviated

    compared, deviated = decisions(10**9)
    assert compared > 10 and deviated == 0
    compared, deviated = decisions(0.0)
    assert compared > 10 and deviated > 0


def test_lost_hands_say_how_far_the_loser_got_and_who_closed():
    """Each lost hand is counted once, for the side that lost it, by its standing at the end."""
    result = tournament.run("medio", "principiante", games=20, seed=3, duplicate=True)
    lost = result["lost_hands"]
    assert sum(lost["a"].values()) == result["wins_b"]
    assert sum(lost["b"].values()) == result["wins_a"]
    standings = {"ready", "pozzetto", "burraco", "neither"}
    endings = {"they closed", "we closed", "no close"}
    for counts in lost.values():
        for key in counts:
            standing, ending = key.split(", ")
            assert standing in standings and ending in endings, key
    assert "lost:" in tournament.report_text(result)


def test_lost_hand_reads_the_standing_and_the_closer():
    ruleset = Ruleset.preset("classico", players=2, target=None)
    burraco = "5H 6H 7H 8H 9H TH JH"
    game = Game.setup(ruleset, hands=["3C 4D", "KS"], stock="QD QS", pozzetti=[None, "AS"],
                      melds=[[burraco], ["4C 4D 4S"]])
    assert tournament.lost_hand(game, 0) == "ready, no close"
    assert tournament.lost_hand(game, 1) == "neither, no close"
    game.closed_by = 0
    assert tournament.lost_hand(game, 1) == "neither, they closed"
    assert tournament.lost_hand(game, 0) == "ready, we closed"
    game.closed_by = None
    game.pozzetto_state[0] = "available"
    assert tournament.lost_hand(game, 0) == "burraco, no close"
    game.table[0] = []
    game.pozzetto_state[0] = "taken"
    assert tournament.lost_hand(game, 0) == "pozzetto, no close"
