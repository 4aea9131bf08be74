"""Prints, as JSON, what seeded runs of the engine and the computer players produce.

``tests/engine/test_hash_seeds.py`` runs this file under different ``PYTHONHASHSEED`` values and
compares the output byte for byte: every order the engine and the bots produce must follow from
the position (and the seeded rng) alone, never from how this process hashes strings.

    python tests/engine/order_probe.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from games.bots.lab import tournament
from games.engine import replay  # noqa: E402
from tests.engine.test_properties import play_checked  # noqa: E402


def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def tournaments() -> list[dict]:
    """Short seeded tournaments; the expert samples a fixed number of worlds (no clock)."""
    out = []
    for a, b, games, players, worlds in (("medio", "principiante", 6, 2, None),
                                         ("medio", "principiante", 2, 4, None),
                                         ("esperto", "medio", 1, 2, 2)):
        result = tournament.run(a, b, games=games, seed=101, players=players, worlds=worlds)
        del result["decision_ms_a"], result["decision_ms_b"]  # clock readings, not play
        out.append(result)
    return out


def random_hands() -> list[dict]:
    """The seeded hands of the property test (`play_checked`), and the legal actions listed at
    every step of them (their order is what the random player's choice depends on)."""
    out = []
    for name, players, seed in (("classico", 2, 7), ("mano_unica", 4, 8), ("testa_a_testa", 2, 9)):
        g = play_checked(name, players, seed, thorough=True)
        again = replay(g.deal, [])
        listed = hashlib.sha256()
        for action in g.actions:
            listed.update(json.dumps(list(again.legal_actions(again.to_move))).encode())
            again.apply(again.to_move, action)
        out.append({"preset": name, "players": players, "actions": len(g.actions),
                    "game": _digest(g.to_dict()), "legal": listed.hexdigest()[:16]})
    return out


def main() -> None:
    print(json.dumps({"tournaments": tournaments(), "random_hands": random_hands()}, indent=1))


if __name__ == "__main__":
    main()
