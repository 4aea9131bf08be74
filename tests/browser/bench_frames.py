"""A fixed sequence of table frames for measuring the page's render time (seat 0's view).

A seeded engine game played by the greedy computer player for every seat: the snapshot of the
deal, then one `event` per action as seat 0's socket would receive it, then the hand's
`hand_over` and the next hand's snapshot. The same seed gives the same frames on every run, so
render times before and after a change are measured on the same work.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from games.bots import choose_action
from games.engine import Game as EngineGame
from games.engine import Ruleset


def _view(game: EngineGame, version: int) -> dict:
    view = game.view(0)
    view["version"] = version
    return view


def fixed_frames(seed: int = 3, players: int = 2, max_events: int = 400) -> list[dict]:
    rng = random.Random(seed)
    game = EngineGame.new(Ruleset.preset("classico", players=players), rng=rng)
    now = datetime(2026, 5, 4, 18, 0, tzinfo=UTC)
    deadline = (now + timedelta(seconds=300)).isoformat()
    frames: list[dict] = [{
        "type": "snapshot", "version": 0, "seat": 0, "view": _view(game, 0), "deadline": deadline,
        "server_time": now.isoformat(), "hand_number": 1, "totals": [0, 0], "finished": False,
        "result": None, "table": None, "presence": None,
    }]
    version = 0
    while not game.hand_over and version < max_events:
        seat = game.to_move
        action = choose_action(game.view(seat), "medio", rng)
        game.apply(seat, action)
        record = dict(game.actions[-1])
        if record["type"] in ("draw", "take_discards"):
            record = {"type": record["type"]}
        version += 1
        frames.append({
            "type": "event", "version": version, "hand_number": 1, "seat": seat,
            "actor": "computer" if seat else "person", "action": record, "view": _view(game, version),
            "to_move": None if game.hand_over else game.to_move, "deadline": None if game.hand_over else deadline,
            "server_time": now.isoformat(),
        })
    if game.hand_over:
        match = game.match
        frames.append({
            "type": "hand_over", "version": version, "hand_number": 1, "score": game.score(),
            "totals": list(match.totals), "end_reason": game.end_reason, "closed_by": game.closed_by,
            "match_over": False, "winner_side": None,
        })
        following = game.next_hand(rng)
        frames.append({
            "type": "snapshot", "version": version, "seat": 0, "view": _view(following, version),
            "deadline": deadline, "server_time": now.isoformat(), "hand_number": 2,
            "totals": list(match.totals), "finished": False, "result": None, "table": None, "presence": None,
        })
    return frames
