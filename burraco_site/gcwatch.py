"""Watch Python's garbage collector: a full collection stops the event loop for every socket of
the process, so its pauses belong in the latency tail.

In a server process, BURRACO_GC_LOG=1 logs every collection longer than BURRACO_GC_LOG_MS
(default 10 ms). `Pauses` records them in the load benchmark's own generator.
"""

from __future__ import annotations

import gc
import logging
import os
import time

log = logging.getLogger("burraco.gc")


class Pauses:
    """Every collection's duration while `start()`ed, per generation."""

    def __init__(self) -> None:
        self.ms: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._began = 0.0

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.ms.setdefault(info.get("generation", 0), []).append((time.perf_counter() - self._began) * 1000)

    def start(self) -> Pauses:
        gc.callbacks.append(self._callback)
        return self

    def stop(self) -> dict[str, dict[str, float]]:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)
        return {f"gen{g}": {"count": len(v), "max_ms": round(max(v), 1) if v else 0.0,
                            "total_ms": round(sum(v), 1)} for g, v in self.ms.items()}


def freeze_startup_objects() -> None:
    """Move everything made while the process started (Django, the apps, the libraries: most of
    the objects it will ever hold) out of the collector's sight. A full collection then walks
    only what the sockets made since, so with a thousand sockets open it stops the event loop
    for a fraction of the time. Nothing frozen is garbage: modules, classes, settings."""
    if os.environ.get("GC_FREEZE", "1") == "1":
        gc.collect()
        gc.freeze()


def watch() -> None:
    if os.environ.get("BURRACO_GC_LOG") != "1":
        return
    slow_ms = float(os.environ.get("BURRACO_GC_LOG_MS", "10"))
    began = [0.0, 0.0]

    def callback(phase: str, info: dict) -> None:
        if phase == "start":
            began[:] = time.perf_counter(), time.thread_time()
            return
        took_ms = (time.perf_counter() - began[0]) * 1000
        if took_ms >= slow_ms:
            # CPU time beside wall time: on a busy machine a collection can be descheduled midway.
            log.warning("gc generation %s took %.1f ms (%.1f ms of CPU; %s collected)", info.get("generation"),
                        took_ms, (time.thread_time() - began[1]) * 1000, info.get("collected"))

    gc.callbacks.append(callback)
