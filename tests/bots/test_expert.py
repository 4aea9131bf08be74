"""esperto's look-ahead: its rollout player and its budget."""

from __future__ import annotations

import random

from games.bots import expert, knowledge, strategy
from games.engine import Card, Game, Ruleset, check_meld


def _positions(hands: int, seed: int):
    """Every position of a few medio-against-medio hands (the game before each action)."""
    rng = random.Random(seed)
    for _ in range(hands):
        game = Game.new(Ruleset.preset("classico"), rng=random.Random(rng.getrandbits(64)))
        for _ in range(3000):
            if game.hand_over:
                break
            seat = game.to_move
            yield game, seat
            game.apply(seat, strategy.greedy_action(game, seat, rng))


def test_rollout_player_is_the_greedy_player_when_the_opponent_is_medio():
    """The remembered and skipped turn searches change no choice: every action is
    `greedy_action`'s, in every position (the same player, remembering across several hands)."""
    player = expert.RolloutPlayer(strategy.DEFAULT, 0)
    compared = lines = 0
    for game, seat in _positions(6, 131):
        want = strategy.greedy_action(game, seat, random.Random(1))
        assert player.action(game, seat, random.Random(1)) == want
        compared += 1
        lines += game.phase == "play" and strategy.finishing_line(game, seat) is not None
    assert compared > 300 and lines > 5  # the positions include turns the search finishes


def test_hopeless_only_where_the_turn_search_finds_nothing():
    skipped = 0
    for game, seat in _positions(8, 7):
        if game.phase != "play" or len(game.hands[seat]) > strategy.DEFAULT.finish_hand:
            continue
        if expert.hopeless(game, seat):
            skipped += 1
            assert strategy.finishing_line(game, seat) is None
    assert skipped > 20  # the shortcut is taken, so the assertion above was tested


def test_stranded_counts_cards_that_cannot_leave_the_hand():
    melds = [check_meld(["5C", "6C", "7C"], Ruleset.preset("classico"))]
    hand = [Card.parse(t) for t in ("KD", "9S", "9H", "8C", "3H")]
    # KD and 3H have no partner and no meld; the 9s pair; 8C goes on the run.
    assert expert.stranded(hand, melds) == 2
    hand = [Card.parse(t) for t in ("KD", "JK", "QC")]
    # QC: the run 5-7C is five places away, but the hand's two other cards cannot bridge it.
    assert expert.stranded(hand, melds) == 2
    assert expert.stranded([Card.parse(t) for t in ("KD", "QD")], melds) == 0


def _fake_clocks(monkeypatch, cpu_per_world: float, wall_per_world: float) -> list[int]:
    """Every rollout costs the given CPU and wall time on fake clocks; returns a counter of
    rollouts."""
    clock = {"cpu": 0.0, "wall": 0.0}
    calls = [0]

    class FakeTime:
        @staticmethod
        def thread_time() -> float:
            return clock["cpu"]

        @staticmethod
        def perf_counter() -> float:
            return clock["wall"]

    real = expert._rollout

    def rollout(*args, **kwargs):
        calls[0] += 1
        clock["cpu"] += cpu_per_world
        clock["wall"] += wall_per_world
        return real(*args, **kwargs)

    monkeypatch.setattr(expert, "time", FakeTime)
    monkeypatch.setattr(expert, "_rollout", rollout)
    monkeypatch.setattr(expert, "HORIZON_TURNS", 1)  # the real look-ahead is not the point: be quick
    return calls


def _a_decision() -> tuple[dict, int]:
    """A discard with several candidates."""
    for game, seat in _positions(1, 5):
        if game.phase != "play":
            continue
        view = game.view(seat)
        cands = expert._candidates(knowledge.determinize(view, random.Random(0)), seat, strategy.DEFAULT)
        if len(cands) >= 3:
            return view, len(cands)
    raise AssertionError("no decision with three candidates")


def test_budget_is_cpu_time_a_busy_machine_samples_as_many_worlds(monkeypatch):
    view, n = _a_decision()
    calls = _fake_clocks(monkeypatch, cpu_per_world=0.004, wall_per_world=0.004)
    expert.expert_action(view, random.Random(1), budget_seconds=0.2)
    idle = calls[0] // n
    calls = _fake_clocks(monkeypatch, cpu_per_world=0.004, wall_per_world=0.008)  # half the time off the CPU
    expert.expert_action(view, random.Random(1), budget_seconds=0.2)
    busy = calls[0] // n
    assert idle >= 10 and busy == idle


def test_wall_clock_caps_a_decision_on_a_very_busy_machine(monkeypatch):
    view, n = _a_decision()
    calls = _fake_clocks(monkeypatch, cpu_per_world=0.002, wall_per_world=0.05)  # 25x descheduled
    expert.expert_action(view, random.Random(1), budget_seconds=expert.DEFAULT_BUDGET_SECONDS)
    worlds = calls[0] // n
    # A world is n rollouts of 0.05 s each: none is started that would end past the limit...
    assert worlds >= 1 and worlds * n * 0.05 <= expert.WALL_LIMIT_SECONDS + 1e-9
    # ... so it stops far short of the CPU budget.
    assert worlds * n * 0.002 < expert.DEFAULT_BUDGET_SECONDS / 4
