"""A TCP relay that delays what crosses it: the wide-area link between an app host and the data
host of the test bed (games/benchmarks/hosts.py), whose kernel may have no netem.

One process per app host relays each of the data host's ports; the app host's firewall sends its
connections to the data host there (DNAT), so the settings keep naming the data host. The delay
is read from a JSON file (`{"ms": 100}`) every 0.2 s, so it changes under open connections: a
pooled connection feels it as a new one does. Bytes keep their order; each chunk is delivered
`ms` after it was read, in each direction.

    python -m games.benchmarks.wan --listen 10.77.0.10:25432=10.77.0.10:5432 --control FILE
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path


class Link:
    def __init__(self, control: Path) -> None:
        self.control = control
        self.ms = 0.0

    async def watch(self) -> None:
        while True:
            try:
                self.ms = max(0.0, float(json.loads(self.control.read_text()).get("ms", 0)))
            except (OSError, ValueError):
                self.ms = 0.0
            await asyncio.sleep(0.2)

    async def pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copy reader to writer, each chunk delivered `ms` after it arrived, in order."""
        queue: asyncio.Queue = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not chunk:
                    break
                writer.write(chunk)
                await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()

        sender = asyncio.create_task(deliver())
        try:
            while True:
                chunk = await reader.read(65536)
                await queue.put((time.monotonic() + self.ms / 1000, chunk))
                if not chunk:
                    break
            await sender
        except (ConnectionError, asyncio.CancelledError):
            sender.cancel()
        finally:
            writer.close()

    def serve(self, target: tuple[str, int]):
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                up_reader, up_writer = await asyncio.open_connection(*target)
            except OSError:
                writer.close()
                return
            await asyncio.gather(self.pump(reader, up_writer), self.pump(up_reader, writer), return_exceptions=True)
        return handle


def _address(text: str) -> tuple[str, int]:
    address, port = text.rsplit(":", 1)
    return address, int(port)


async def main(routes: list[str], control: Path) -> None:
    link = Link(control)
    servers = []
    for route in routes:
        listen, target = route.split("=")
        servers.append(await asyncio.start_server(link.serve(_address(target)), *_address(listen)))
    await link.watch()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listen", action="append", required=True, help="LISTEN_ADDR:PORT=TARGET_ADDR:PORT")
    parser.add_argument("--control", type=Path, required=True)
    args = parser.parse_args()
    asyncio.run(main(args.listen, args.control))
