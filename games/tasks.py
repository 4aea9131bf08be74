"""Celery tasks: thin. Each takes ids (and the game version it was queued for) and calls the
service that people's actions go through too; a stale task does nothing, so a task delivered
twice (acks_late: a worker killed mid-task has its task redone) changes nothing the second time.

Turn deadlines are not tasks: the scheduler scans them (games/services/table/scheduler.py), in a thread
of every worker. Only a computer's move is queued, when a computer is to move."""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError
from redis.exceptions import RedisError

from games.services.history import analysis
from games.services.table import autoplay, scheduler


# A move that met PostgreSQL or Redis down is tried again a second later, then a little later
# each time, rather than left to the scheduler's look `COMPUTER_SLACK_SECONDS` after it was due.
@shared_task(name="games.computer_move", ignore_result=True, acks_late=True,
             autoretry_for=(DatabaseError, RedisError), retry_backoff=1, retry_backoff_max=4,
             retry_jitter=False, max_retries=15)
def computer_move(game_id: int, version: int) -> str:
    """One action of a computer (or computer-covered) seat."""
    return autoplay.play_computer_move(game_id, version)


@shared_task(name="games.scheduler_tick", ignore_result=True)
def scheduler_tick() -> dict:
    """One scheduler pass, for an operator who prefers beat to the worker's own thread."""
    return scheduler.Scheduler().tick()


@shared_task(name="games.analyse_game", ignore_result=True, acks_late=True,
             autoretry_for=(DatabaseError,), retry_backoff=2, max_retries=5)
def analyse_game(game_id: int) -> str:
    """Analisi della partita: esperto reviews a finished game's draws and discards."""
    return analysis.run_analysis(game_id)
