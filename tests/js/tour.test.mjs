// Where the tour's box goes (static/js/table/tour.js): never over the hand, always on the screen.

import assert from "node:assert/strict";
import { test } from "node:test";

import { tourTop } from "../../static/js/table/tour.js";

const rect = (top, bottom) => ({ top, bottom });

test("below the target when it fits and leaves the hand free", () => {
  assert.equal(tourTop(rect(100, 200), 120, 844, rect(600, 840)), 210);
});

test("above the target when below would cover the hand (the stock just over the hand)", () => {
  assert.equal(tourTop(rect(480, 580), 150, 844, rect(600, 840)), 320);
});

test("above the hand itself when the hand is the target", () => {
  assert.equal(tourTop(rect(600, 840), 150, 844, rect(600, 840)), 440);
});

test("at the top when neither side of the target is free", () => {
  assert.equal(tourTop(rect(100, 560), 130, 844, rect(600, 840)), 8);
});

test("without a hand on the page, the old rule: below, else above", () => {
  assert.equal(tourTop(rect(700, 760), 120, 800, null), 570);
});
