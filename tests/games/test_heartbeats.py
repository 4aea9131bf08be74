"""The per-process heartbeat of table sockets: every socket once an interval, a slice at a time."""

from __future__ import annotations

import asyncio
from collections import Counter

from games.consumers.base import SocketHeartbeat


class Recorded(SocketHeartbeat):
    slices = 5
    beats: list[list[object]] = []

    @classmethod
    def interval(cls) -> float:
        return 0.25

    @classmethod
    async def beat(cls, sockets: list) -> None:
        cls.beats.append(sockets)


async def test_each_socket_is_beaten_once_an_interval_in_slices():
    sockets = [object() for _ in range(200)]
    for socket in sockets:
        Recorded.add(socket)

    # Two whole intervals, ten slices: waited for by count, as a loaded machine runs them late.
    async def ten_slices() -> None:
        while len(Recorded.beats) < 10:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(ten_slices(), 10)
    for socket in sockets:
        Recorded.discard(socket)
    await asyncio.wait_for(Recorded.task, 1)

    first_ten = Recorded.beats[:10]
    counts = Counter(id(s) for beat in first_ten for s in beat)
    assert set(counts) == {id(s) for s in sockets}
    assert set(counts.values()) == {2}  # each socket twice in two intervals, never more
    assert max(len(beat) for beat in first_ten) < len(sockets) // 2  # slices, not one beat of all
