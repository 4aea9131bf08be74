"""The same seeded runs give the same games in every process, whatever PYTHONHASHSEED.

Python salts the hash of every string per process, so anything that iterates a set (or builds
an order from hashes) can change the engine's `legal_actions` order, the random player's
choices and the bots' games from one run to the next. `order_probe.py` prints seeded
tournaments (medio, principiante, and the expert with a fixed number of worlds) and the
property test's seeded hands with every listing of legal actions; two processes with different
hash seeds must print the same bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = Path(__file__).with_name("order_probe.py")
ROOT = Path(__file__).resolve().parents[2]


def _start(hash_seed: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    return subprocess.Popen([sys.executable, str(PROBE)], cwd=str(ROOT), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_seeded_runs_do_not_depend_on_the_hash_seed():
    runs = [_start(seed) for seed in ("0", "4242")]  # side by side: about a second each
    outputs = []
    for proc in runs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        outputs.append(out)
    data = json.loads(outputs[0])
    assert [t["a"] for t in data["tournaments"]] == ["medio", "medio", "esperto"]
    assert all(t["games"] >= 1 and len(t["digest"]) == 16 for t in data["tournaments"])
    assert all(h["actions"] > 20 for h in data["random_hands"])
    assert outputs[0] == outputs[1], "a seeded run changed with PYTHONHASHSEED"
