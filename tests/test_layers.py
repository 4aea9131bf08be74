"""The layers of docs/architecture.md hold (`.importlinter`, run by `lint-imports`), and the
checker really catches an arrow that points up: a copy of the tree in which one selector imports
a service breaks the "selectors import no service" contract."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "accounts", "burraco_site")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    """`lint-imports` on the tree at `cwd`, with the project's own contracts."""
    command = [str(Path(sys.executable).parent / "lint-imports"), "--no-cache", str(ROOT / ".importlinter")]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_tree_keeps_every_contract():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout
    assert "Selectors import no service KEPT" in result.stdout


def test_a_selector_importing_a_service_breaks_a_contract(tmp_path):
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    probe = tmp_path / "games" / "selectors" / "contract_probe.py"
    probe.write_text("from games.services.play import play  # noqa: F401\n")

    result = lint_imports(tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "Selectors import no service BROKEN" in result.stdout
    assert "games.selectors.contract_probe -> games.services.play.play" in result.stdout
