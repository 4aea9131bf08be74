"""Record complete matches played by a random legal policy, exactly as the play service stores them.

Used by the tests (history, replays, ratings) and by `bench_site` before and besides real play:
Table/Seat/Game/Hand/Move rows are written the way games/models.py documents them
(Hand.deal = engine deal, Hand.score = engine score(), Move.seq = game version after the move,
Game.state = engine to_dict() of the last hand, Game.result shaped like games/services/table/play.py's).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from games.bots.random_player import random_action
from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.models import BotLevel, Game, Hand, Move, Seat, Table
from games.services.history.ratings import record_match_result
from games.services.table.seating import check_players


def match_result_dict(totals: Sequence[int], winner: int | None, hands: int, target: int | None,
                      end_reason: str | None) -> dict:
    """Game.result of a finished match, in the shape games/services/table/play.py stores."""
    return {"totals": list(totals), "winner_side": winner, "hands": hands, "target": target,
            "end_reason": end_reason}


@transaction.atomic
def record_sample_match(
    users: Sequence,
    *,
    preset: str = "mano_unica",
    rated: bool = False,
    seed: int | None = None,
    finished_at: datetime | None = None,
    stop_after: int | None = None,
    max_hands: int = 12,
    **overrides,
) -> Game:
    """Play a match at a new table seating `users` (None = a computer seat) and store it.

    `stop_after=n` leaves the match in progress after n actions in all (the hand in play keeps
    its state on Game.state and its moves, with no score). A finished rated match goes through
    `record_match_result` in this same transaction, as the play service does.
    """
    rng = random.Random(seed)
    ruleset = Ruleset.preset(preset, players=len(users), **overrides)
    check_players(ruleset)  # no recorded table may hold a game the lobby would refuse
    creator = next(u for u in users if u is not None)
    when = finished_at or timezone.now()
    table = Table.objects.create(
        creator=creator, players=ruleset.players, preset=preset, options=ruleset.to_dict(), rated=rated,
        status=Table.Status.PLAYING, started_at=when, draw_seconds=ruleset.draw_seconds,
        play_seconds=ruleset.play_seconds,
    )
    seats = [
        Seat(table=table, position=pos, user=user, bot_level="" if user is not None else BotLevel.MEDIO)
        for pos, user in enumerate(users)
    ]
    Seat.objects.bulk_create(seats)
    game = Game.objects.create(table=table, totals=[0, 0])

    engine = EngineGame.new(ruleset, rng)
    version = 0
    moves: list[Move] = []
    own = [0] * len(users)
    number = 1
    while True:
        hand = Hand.objects.create(game=game, number=number, deal=engine.deal)
        game.totals = list(engine.totals)
        while not engine.hand_over:
            if stop_after is not None and version >= stop_after:
                break
            seat = engine.to_move
            engine.apply(seat, random_action(engine, seat, rng))
            version += 1
            own[seat] += 1
            moves.append(
                Move(game=game, seq=version, hand_number=number, seat=seat, action=engine.actions[-1],
                     actor=Move.Actor.PERSON if users[seat] is not None else Move.Actor.COMPUTER)
            )
        if not engine.hand_over:
            break  # left in progress
        hand.score = engine.score()
        hand.finished_at = when
        hand.save(update_fields=["score", "finished_at"])
        match = engine.match
        if match.finished or number >= max_hands:
            break
        engine = engine.next_hand(rng)
        number += 1
    Move.objects.bulk_create(moves, batch_size=500)
    for seat in seats:
        seat.own_moves = own[seat.position]
    Seat.objects.bulk_update(seats, ["own_moves"])

    game.hand_number = number
    game.state = engine.to_dict()
    game.version = version
    if engine.hand_over:
        match = engine.match
        winner = match.winner
        if not match.finished and match.totals[0] != match.totals[1]:  # stopped at max_hands
            winner = 0 if match.totals[0] > match.totals[1] else 1
        game.finished = True
        game.winner_side = winner
        game.result = match_result_dict(match.totals, winner, number, match.target, engine.end_reason)
        game.finished_at = when
        game.to_move = None
        table.status = Table.Status.FINISHED
        table.finished_at = when
    else:
        game.to_move = engine.to_move
    game.save()
    table.save(update_fields=["status", "finished_at"])
    if game.finished:
        record_match_result(game)
    return game
