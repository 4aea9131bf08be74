"""The table page's render time per event, measured in Chromium on a fixed sequence of frames.

The frames (tests/browser/bench_frames.py) are a seeded hand of seat 0's view, fed to the page's
own frame handler; performance.now() is read around each call, then again after forcing the
layout, so the figure is the script plus the style and layout work the change costs. Results go
to test-output/render-times.json (docs/performance.md quotes them). With RENDER_TRACE=<path>,
Chromium's trace of the desktop run is written there (layout, style and script per event, to
find where the time goes before changing anything); RENDER_TRACE_EXTRA adds trace categories
(comma-separated, e.g. disabled-by-default-devtools.timeline.invalidationTracking to count the
nodes restyled and laid out, which the machine's load does not change), RENDER_EXTRA_CSS adds a
style sheet to the page before the run (to try a rule's cost without editing table.css), and
RENDER_NO_FLIGHTS=1 leaves out the cards that fly between the rounds (whether their style work
landed in the trace depended on timing, so the counts did not repeat). With a trace, the results
also carry its summary ("trace": style and layout thread CPU, elements styled,
matched-properties cache misses).
"""

from __future__ import annotations

import json
import os
import statistics
from collections import Counter
from pathlib import Path

import pytest

from games.engine import Ruleset
from games.services.table.seating import create_table, sit
from tests.conftest import OUTPUT
from tests.factories import make_user

from .bench_frames import fixed_frames
from .table_helpers import DESKTOP, PHONE, signed_in_page, wait_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MEASURE = """async (frames) => {
  const t = window.burracoTable;
  const script = [], total = [];
  for (let round = 0; round < 3; round++) {
    for (const frame of frames) {
      const f = JSON.parse(JSON.stringify(frame));
      const t0 = performance.now();
      t.handleFrame(f);
      const t1 = performance.now();
      void document.body.offsetHeight;  // style and layout now, inside the measurement
      const t2 = performance.now();
      if (f.type === "event") { script.push(t1 - t0); total.push(t2 - t0); }
    }
    const d = document.getElementById("score-dialog");
    if (d && d.open) d.close();
    await new Promise((resolve) => setTimeout(resolve, 50));  // the dialog's close event
  }
  return {script, total, cards: document.querySelectorAll('#hand .pcard').length};
}"""


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1], 3),
        "max_ms": round(ordered[-1], 3),
        "events": len(ordered),
    }


def trace_summary(raw: bytes) -> dict:
    """The renderer main thread's style and layout work in a trace: thread CPU (`tdur`, less
    sensitive to other processes than wall time) and Blink's style counters, which the machine's
    load does not change (elements styled, and those whose style missed the matched-properties
    cache: computed in full instead of copied)."""
    data = json.loads(raw)
    events = data["traceEvents"] if isinstance(data, dict) else data
    threads = Counter((e.get("pid"), e.get("tid")) for e in events if e.get("name") == "UpdateLayoutTree")
    if not threads:
        return {}
    main_thread = threads.most_common(1)[0][0]
    cpu = Counter()
    counters = Counter()
    for e in events:
        if (e.get("pid"), e.get("tid")) != main_thread or e.get("ph") != "X":
            continue
        if e["name"] in ("UpdateLayoutTree", "Layout"):
            cpu[e["name"]] += e.get("tdur", 0)
        elif e["name"] == "Document::updateStyle":
            counters.update(e.get("args", {}).get("counters", {}))
    styled = counters["elementsStyled"]
    return {
        "style_cpu_ms": round(cpu["UpdateLayoutTree"] / 1000, 2),
        "layout_cpu_ms": round(cpu["Layout"] / 1000, 2),
        "elements_styled": styled,
        "cache_misses": styled - counters["matchedPropertyCacheHit"] if counters else None,
        "rules_matched": counters["rulesMatched"],
    }


def test_render_time_per_event(live_site, browser):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = create_table(creator=anna, ruleset=Ruleset.preset("classico", draw_seconds=300, play_seconds=300))
    sit(table_id=table.pk, user=bruno, position=1)
    # RENDER_FRAMES=<path>: frames saved as JSON, so that two trees whose computer players differ
    # are measured on the same work.
    saved = os.environ.get("RENDER_FRAMES")
    frames = json.loads(Path(saved).read_text()) if saved else fixed_frames()
    results = {}
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        context, page = signed_in_page(browser, live_site, anna, viewport)
        try:
            page.goto(f"{live_site}/tavolo/{table.pk}/")
            wait_version(page, 0)
            if os.environ.get("RENDER_NO_FLIGHTS"):
                # The cards that fly (table/motion.js) start in the animation frames between the
                # rounds, outside the timed calls; whether their style work (about 80 elements a
                # round, animated, so none from the matched-properties cache) fell inside the
                # trace depended on timing, in either tree. Without them the trace's counts repeat.
                page.evaluate("window.burracoTable.motion.fly = () => {}")
            if os.environ.get("RENDER_EXTRA_CSS"):
                page.add_style_tag(content=os.environ["RENDER_EXTRA_CSS"])
            trace = os.environ.get("RENDER_TRACE")  # a path: Chromium's trace of the desktop run goes there
            if trace and label == "desktop":
                extra = [c for c in os.environ.get("RENDER_TRACE_EXTRA", "").split(",") if c]
                browser.start_tracing(page=page, categories=["devtools.timeline", "blink", "v8.execute", *extra])
            out = page.evaluate(MEASURE, frames)
            if trace and label == "desktop":
                raw = browser.stop_tracing()
                Path(trace).write_bytes(raw)
                results["trace"] = trace_summary(raw)
            assert out["cards"] == 11  # the next hand's snapshot was drawn last
            results[label] = {"script": _summary(out["script"]), "script_and_layout": _summary(out["total"])}
            assert page.js_errors == []
        finally:
            context.close()
    OUTPUT.mkdir(exist_ok=True)
    (OUTPUT / "render-times.json").write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))
    # A generous ceiling: one event must never cost a whole frame at 60 Hz on this machine.
    assert results["desktop"]["script_and_layout"]["median_ms"] < 16
