"""The hosts test bed (games/benchmarks/hosts.py) for the tests of this folder: up once for the
module, down at the end. It needs root, iproute2, nftables, nginx, RabbitMQ and PostgreSQL's
server programs: in CI a missing one fails the run, elsewhere it is an explicit skip.

There is one bed per machine (fixed namespaces and addresses). CI runs this folder in a pytest
session of its own, one test after the other, beside its other slow tests; in any parallel run
a module still holds a lock on the bed from bringing it up to taking it down, so a second module
waits its turn instead of cutting links under the first one's tables (which is how CI's run of
e707d96 failed). Each test here allows for that wait in its timeout. (xdist's `loadgroup` would
keep them on one worker, but its groups do not work with pytest 9.2: it renames `item._nodeid`,
which pytest no longer reads.)"""

from __future__ import annotations

import fcntl
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
    with open(hosts.BED_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, after the bed is down
        hosts.down()  # whatever an interrupted run left
        try:
            bed = hosts.up()
            # The bed's hosts stand for other machines: CI's slow tests beside them (CPU-bound
            # strength runs on the other workers) must not starve them. Four times the default
            # weight, no quota.
            for name in hosts.HOSTS:
                hosts.cpu_quota(name, 0, 4096)
            yield bed
        finally:
            hosts.down()
