"""esperto's look-ahead: its rollout player, the opponent that takes piles, the leaf, the budget."""

from __future__ import annotations

import random

from games.bots import expert, knowledge, strategy
from games.engine import Card, Game, Ruleset, check_meld
from tests.bots.helpers import medio_positions


def test_rollout_player_is_the_greedy_player_when_the_opponent_is_medio():
    """The remembered and skipped turn searches change no choice: with the other side taking
    piles as medio does, every action is `greedy_action`'s with the same weights (esperto's
    cautious `DEFAULT`, not medio's), in every position (the same player, remembered across the
    positions of several hands)."""
    player = expert.RolloutPlayer(strategy.DEFAULT, 0, opponent_takes_usable=0)
    compared = lines = 0
    for game, seat in medio_positions(6, 131):
        want = strategy.greedy_action(game, seat, random.Random(1), strategy.DEFAULT)
        assert player.action(game, seat, random.Random(1)) == want
        compared += 1
        lines += game.phase == "play" and strategy.finishing_line(game, seat) is not None
    assert compared > 300 and lines > 5  # the positions include turns the search finishes


def test_hopeless_only_where_the_turn_search_finds_nothing():
    skipped = 0
    for game, seat in medio_positions(8, 7):
        if game.phase != "play" or len(game.hands[seat]) > strategy.DEFAULT.finish_hand:
            continue
        if expert.hopeless(game, seat):
            skipped += 1
            assert strategy.finishing_line(game, seat, prune=False) is None
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


def _pile_position(pile: str) -> Game:
    """Seat 0 has discarded; seat 1 (the other side) holds a run of clubs on the table."""
    return Game.setup(Ruleset.preset("classico"),
                      hands=["3H 4S KD QS 9H JD", "4D 9S KH 2S TD JH QH"],
                      stock="AS 4C 5D 6S 7D 8H 9D TC JS QD KS AH 3S",
                      discard=pile, pozzetti=["5H 6H 7H 8H", "8S 8D 3C 9C"],
                      melds=[[], ["5C 6C 7C"]], to_move=1)


def test_lookahead_opponent_takes_a_pile_that_pays():
    """A single card that lays off on their run: medio draws instead (its gain, about 13, is
    under its threshold of 20); the look-ahead's opponent takes it, and so it does a card that
    lengthens a run its hand holds (TH to JH QH KH). The deciding side's own seats keep medio's draw."""
    game = _pile_position("8C")
    assert strategy.draw_action(game, 1) == {"type": "draw"}
    as_opponent = expert.RolloutPlayer(strategy.DEFAULT, 0)
    assert as_opponent.action(game, 1, random.Random(0)) == {"type": "take_discards"}
    as_own_side = expert.RolloutPlayer(strategy.DEFAULT, 1)
    assert as_own_side.action(game, 1, random.Random(0)) == {"type": "draw"}
    assert strategy.draw_action(_pile_position("TH"), 1) == {"type": "draw"}
    assert as_opponent.action(_pile_position("TH"), 1, random.Random(0)) == {"type": "take_discards"}
    # A card it has no use for stays on the pile.
    assert as_opponent.action(_pile_position("6S"), 1, random.Random(0)) == {"type": "draw"}


def _half_points(cards: str) -> float:
    return sum(Card.parse(t).points for t in cards.split()) / 2


def test_promise_counts_a_short_hand_near_its_pozzetto():
    ruleset = Ruleset.preset("classico")
    pozzetti = ["5H 6H 7H 8H", "8S 8D 8C 9C"]

    def side_zero(hand: str) -> float:
        game = Game.setup(ruleset, hands=[hand, "4D 9S KH"], stock="AS 4C 5D", discard="8D",
                          pozzetti=pozzetti, to_move=0)
        return expert.promise(game, 0) - _half_points(hand)

    # Beyond the cards' points: nothing yet with seven cards, more the shorter the hand.
    assert side_zero("3H 4S KD QS 9H JD 7C") == 0
    assert 0 < side_zero("3H 4S KD QS") < side_zero("3H 4S")


def test_promise_counts_the_threat_to_close():
    ruleset = Ruleset.preset("classico")
    burraco = "5C 6C 7C 8C 9C TC JC"

    def side_one(melds: list[str]) -> float:
        game = Game.setup(ruleset, hands=["3H 4S KD QS 9H", "4D 9S"], stock="AS 4C 5D", discard="8D",
                          pozzetti=["5H 6H 7H 8H", None], melds=[[], melds], to_move=0)
        return expert.promise(game, 1)

    # Two cards left after the pozzetto with a burraco down: a close is near, and with it the
    # other side's cards count in full.
    assert side_one([burraco]) > side_one(["5C 6C 7C 8C"]) + 50


def test_a_wild_held_is_an_asset_not_a_loss(monkeypatch):
    monkeypatch.setattr(expert, "PROMISE_LEAF", True)
    ruleset = Ruleset.preset("classico")
    with_wild = Game.setup(ruleset, hands=["3H JK 9D 9H 9S 4C 4D 4H", "4S 9C"], stock="AS", discard="8D")
    without = Game.setup(ruleset, hands=["3H 5S 9D 9H 9S 4C 4D 4H", "4S 9C"], stock="AS", discard="8D")
    # The score counts the joker's 30 against the side; the leaf gives them back and more.
    gap = (expert._evaluate(with_wild, 0) - expert._evaluate(without, 0))
    assert gap > 0


def _fake_clocks(monkeypatch, cpu_per_world: float, wall_per_world: float,
                 stall: dict[int, float] | None = None) -> list[int]:
    """Every rollout costs the given CPU and wall time on fake clocks; returns a counter of
    rollouts. ``stall`` maps a rollout's number (from 1) to extra wall-clock seconds it loses
    before its look-ahead starts (the thread descheduled in the middle of a world)."""
    clock = {"cpu": 0.0, "wall": 0.0}
    calls = [0]
    stall = stall or {}

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
        clock["wall"] += wall_per_world + stall.get(calls[0], 0.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(expert, "time", FakeTime)
    monkeypatch.setattr(expert, "_rollout", rollout)
    monkeypatch.setattr(expert, "HORIZON_TURNS", 1)  # the real look-ahead is not the point: be quick
    return calls


def _a_decision() -> tuple[dict, int]:
    """A discard with several candidates."""
    for game, seat in medio_positions(1, 5):
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


def test_a_world_still_running_at_the_wall_clock_cap_is_cut_short_and_dropped(monkeypatch):
    """The cap between worlds guesses from the worlds so far; a world whose thread is descheduled
    in its middle must not run on past the cap (in session 6 single decisions took 1.7 s)."""
    view, n = _a_decision()
    seen: list[float] = []
    real = expert._rollout

    def rollout(game, seat, plan, rng, player, deadline=None):
        value = real(game, seat, plan, rng, player, deadline)
        seen.append(value)
        return value

    monkeypatch.setattr(expert, "_rollout", rollout)
    # The first rollout of the third world loses 5 s: it stops at its first move, and no
    # other rollout of that world (nor any later one) is started.
    calls = _fake_clocks(monkeypatch, cpu_per_world=0.002, wall_per_world=0.002, stall={2 * n + 1: 5.0})
    action = expert.expert_action(view, random.Random(1), budget_seconds=expert.DEFAULT_BUDGET_SECONDS)
    assert calls[0] == 2 * n + 1
    assert len(seen) == 2 * n  # the cut one returned no value
    assert action in expert._candidates(knowledge.determinize(view, random.Random(1)), view["seat"], strategy.DEFAULT)


def test_when_not_even_one_world_fits_the_greedy_choice_stands(monkeypatch):
    view, n = _a_decision()
    calls = _fake_clocks(monkeypatch, cpu_per_world=0.002, wall_per_world=0.002, stall={1: 5.0})
    action = expert.expert_action(view, random.Random(1), budget_seconds=expert.DEFAULT_BUDGET_SECONDS)
    assert calls[0] == 1
    game = knowledge.determinize(view, random.Random(0))
    assert action == strategy.greedy_action(game, view["seat"], None, strategy.MEDIO_WITHOUT_RECORD)


def test_no_discard_that_feeds_the_other_side_while_a_safe_one_is_left(monkeypatch):
    """Without MEDIO_DISCARD_FIRST, even deviating from medio on any difference at all (no
    margin), esperto throws no card that lays off on the other side's melds while a natural card
    that does not is in hand;
    without SAFE_DISCARDS such cards are among the ones it compares, and it throws some."""
    monkeypatch.setattr(expert, "DEVIATION_MARGIN", 0.0)
    monkeypatch.setattr(expert, "HORIZON_TURNS", 2)
    monkeypatch.setattr(expert, "MEDIO_DISCARD_FIRST", False)  # the rule as it was before issue 31

    def feeding_discards(safe_discards: bool) -> tuple[int, int]:
        monkeypatch.setattr(expert, "SAFE_DISCARDS", safe_discards)
        compared = fed = 0
        for game, seat in medio_positions(6, 21):
            if game.phase != "play":
                continue
            view = game.view(seat)
            world = knowledge.determinize(view, random.Random(0))
            cands = expert._candidates(world, seat, strategy.DEFAULT)
            if len(cands) < 2 or cands[0]["type"] != "discard":
                continue
            if not any(not c.is_wild and not expert._feeds(world, seat, c.text) for c in world.hands[seat]):
                continue  # every natural feeds them: nothing safe to prefer
            compared += 1
            action = expert.expert_action(view, random.Random(0), worlds=4)
            fed += expert._feeds(world, seat, action["card"])
        return compared, fed

    compared, fed = feeding_discards(False)
    assert compared > 20 and fed > 0
    compared, fed = feeding_discards(True)
    assert compared > 20 and fed == 0


def test_no_card_that_completes_their_burraco_while_another_is_left(monkeypatch):
    """Every card in hand lays off on the other side's melds; the jack of hearts would also
    complete their burraco. It is never among the discards esperto compares, so no look-ahead
    (whose opponent may not take the pile) can choose it; without `no_gift` it is compared."""
    game = Game.setup(Ruleset.preset("classico"), hands=["JH QH", "5S 6S 7S 8S 9S 10S JS 2C"],
                      stock="KS 3D 4D 5D 6D 7D", discard="8D",
                      melds=[[], ["5H 6H 7H 8H 9H 10H", "QC QD QS", "KD KH KC"]])
    game.apply(0, {"type": "draw"})
    view = game.view(0)
    world = knowledge.determinize(view, random.Random(0))
    assert all(expert._feeds(world, 0, c.text) for c in world.hands[0])
    compared = [a["card"] for a in expert._candidates(world, 0, strategy.DEFAULT)]
    assert "JH" not in compared and len(compared) == 2
    monkeypatch.setattr(expert, "DEVIATION_MARGIN", 0.0)
    assert all(expert.expert_action(view, random.Random(i), worlds=2)["card"] != "JH" for i in range(3))
    monkeypatch.setattr(expert, "no_gift", lambda g, seat, legal: legal)
    assert "JH" in [a["card"] for a in expert._candidates(world, 0, strategy.DEFAULT)]


def test_medio_throws_no_gift_while_another_card_is_left():
    # A lone wild with no home is thrown to close (strategy.discard_action), unless it would
    # complete their burraco: the other card goes instead.
    game = Game.setup(Ruleset.preset("classico"), hands=["2C", "5S 6S 7S 8S 9S 10S JS 2D"],
                      stock="4D 3D 4H 5D 6D 7D", discard="8D", pozzetti=[None, None],
                      melds=[["AS AH AD AC AS AH AD"], ["5C 6C 7C 8C 9C 10C"]])
    game.apply(0, {"type": "draw"})
    assert strategy.opponents_can_take(game, 0, Card.parse("2C")) == (True, True)
    assert strategy.discard_action(game, 0)["card"] == "4D"


def test_medio_s_choice_stands_unless_another_candidate_wins_by_the_margin(monkeypatch):
    """esperto starts from medio as the site plays it (issue 31, point 4): when no candidate can
    beat the first by the margin, each of its decisions is medio's (`MEDIO`, given the record),
    its draw included, with the pile judged by the judge it is given as `choose_action` gives it."""
    monkeypatch.setattr(expert, "DEVIATION_MARGIN", float("inf"))
    monkeypatch.setattr(expert, "HORIZON_TURNS", 1)  # the look-ahead is not the point: be quick

    def judge(g, seat, rng, samples, known):  # a stand-in for `sparring.copy_pile_judge`
        return {"type": "take_discards"} if len(g.discard_pile) % 2 else {"type": "draw"}

    draws = takes = plays = 0
    for game, seat in medio_positions(2, 17):
        view, record = game.view(seat), game.public_record()
        action = expert.expert_action(view, random.Random(3), worlds=1, record=record, pile_judge=judge)
        medio = strategy.greedy_action(knowledge.determinize(view, random.Random(0)), seat,
                                       random.Random(0), strategy.MEDIO, pile_judge=judge)
        assert action == medio
        draws += action["type"] == "draw"
        takes += action["type"] == "take_discards"
        plays += game.phase == "play"
    assert draws > 5 and takes > 5 and plays > 50
