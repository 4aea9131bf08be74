"""axe-core (vendored from npm in static/vendor/axe-core/) run inside a Playwright page."""

from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).resolve().parents[2] / "static" / "vendor" / "axe-core" / "axe.min.js"

RUN = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
  }));
}"""


def serious_violations(page) -> list[dict]:
    """axe's serious and critical violations on the page as it is now (an empty list is a pass)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return [v for v in page.evaluate(RUN) if v["impact"] in ("serious", "critical")]
