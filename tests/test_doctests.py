"""Every example written in a docstring under games/ runs here and must hold.

The modules are found by walking the package, not listed by name: a module that moves or a new one
with examples is covered without editing this file. Each module with at least one example is one
test (so a failure names its module); the walk itself must find examples, so a broken walk cannot
pass as "nothing to check".
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("games",)
SKIP_PARTS = {"migrations"}


def _module_names() -> list[str]:
    names = []
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        names.append(package_name)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package_name}."):
            if SKIP_PARTS.isdisjoint(info.name.split(".")):
                names.append(info.name)
    return sorted(names)


def _examples(module) -> int:
    finder = doctest.DocTestFinder(exclude_empty=True)
    return sum(len(test.examples) for test in finder.find(module))


def _modules_with_examples() -> list[str]:
    return [name for name in _module_names() if _examples(importlib.import_module(name))]


MODULES = _modules_with_examples()


def test_the_walk_finds_the_examples_of_engine_bots_services_and_selectors():
    found = {name.split(".")[1] for name in MODULES if name.count(".") >= 1}
    assert {"engine", "bots", "services", "selectors"} <= found, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_hold(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, name
