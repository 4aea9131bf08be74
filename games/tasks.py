"""Celery tasks: thin. Each takes ids (and the game version it was scheduled for) and calls the
service that people's actions go through too; a stale task does nothing."""

from __future__ import annotations

from celery import shared_task

from .services import timeouts


@shared_task(name="games.turn_timeout", ignore_result=True)
def turn_timeout(game_id: int, version: int) -> str:
    """The turn's deadline: complete the turn for the player if it is still that turn."""
    return timeouts.handle_deadline(game_id, version)


@shared_task(name="games.computer_move", ignore_result=True)
def computer_move(game_id: int, version: int) -> str:
    """One action of a computer (or computer-covered) seat."""
    return timeouts.play_computer_move(game_id, version)


@shared_task(name="games.presence_check", ignore_result=True)
def presence_check(game_id: int, version: int) -> str:
    """The disconnect grace ran out: cover the seat if its player is still away."""
    return timeouts.check_presence(game_id, version)


@shared_task(name="games.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    """Beat, every few seconds: catch any timer or computer move that was lost."""
    return timeouts.sweep()
