"""The hosts test bed (games/benchmarks/hosts.py) for the tests of this folder: up once for the
module, down at the end. It needs root, iproute2, nftables, nginx, RabbitMQ and PostgreSQL's
server programs: in CI a missing one fails the run, elsewhere it is an explicit skip."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from games.benchmarks import hosts
from tests.faults.harness import prerequisite


@pytest.fixture(scope="module")
def bed() -> Iterator[dict[str, str]]:
    prerequisite(os.geteuid() == 0, "the hosts test bed makes network namespaces: run as root")
    for tool, package in (("ip", "iproute2"), ("nft", "nftables"), ("nginx", "nginx"),
                          ("rabbitmq-server", "rabbitmq-server"), ("redis-server", "redis-server")):
        prerequisite(shutil.which(tool) is not None, f"{tool} was not found (apt-get install {package})")
    hosts.down()  # whatever an interrupted run left
    try:
        yield hosts.up()
    finally:
        hosts.down()
