"""The expert ("esperto"): determinized Monte Carlo over the greedy player."""

from __future__ import annotations

import random
from typing import Any

from .knowledge import determinize
from .strategy import greedy_action


def expert_action(view: dict[str, Any], rng: random.Random, *, budget_seconds: float | None = None) -> dict:
    game = determinize(view, rng)
    return greedy_action(game, view["seat"], rng)
