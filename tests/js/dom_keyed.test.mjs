// lib/dom.js's keyed reconciliation on a minimal stand-in for the DOM (node has none): the
// nodes it reuses, creates, removes and moves. A move takes a node out of the layout and puts it
// back, so the table's render cost follows the number of moves.
//   node --test tests/js/

import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { keyed } from "../../static/js/lib/dom.js";

class FakeNode {
  constructor(name) {
    this.name = name;
    this.dataset = {};
    this.parent = null;
    this.kids = [];
    this.moves = 0;
  }
  get children() { return [...this.kids]; }
  get firstElementChild() { return this.kids[0] || null; }
  get nextElementSibling() {
    const siblings = this.parent.kids;
    return siblings[siblings.indexOf(this) + 1] || null;
  }
  remove() {
    if (!this.parent) return;
    this.parent.kids.splice(this.parent.kids.indexOf(this), 1);
    this.parent = null;
  }
  insertBefore(node, before) {
    if (node.parent) { node.moves += 1; node.remove(); }
    const at = before ? this.kids.indexOf(before) : this.kids.length;
    this.kids.splice(at, 0, node);
    node.parent = this;
  }
  contains(node) { return this.kids.includes(node); }
}

function draw(parent, keys) {
  keyed(parent, keys, (k) => k, (k) => new FakeNode(k), () => {});
  return parent.kids;
}

describe("keyed", () => {
  let hand;
  beforeEach(() => {
    globalThis.document = { activeElement: null };
    hand = new FakeNode("hand");
    draw(hand, ["a", "b", "c", "d", "e", "f"]);
  });

  test("draws the nodes in order, one per key", () => {
    assert.deepEqual(hand.kids.map((n) => n.dataset.key), ["a", "b", "c", "d", "e", "f"]);
  });

  test("a key gone from the middle removes its node and moves no other", () => {
    const before = hand.children;
    const after = draw(hand, ["a", "b", "d", "e", "f"]);
    assert.deepEqual(after.map((n) => n.dataset.key), ["a", "b", "d", "e", "f"]);
    assert.ok(after.every((node) => before.includes(node)), "every remaining node is reused");
    assert.deepEqual(after.map((n) => n.moves), [0, 0, 0, 0, 0]);
  });

  test("a key added in the middle inserts one node and moves no other", () => {
    const after = draw(hand, ["a", "b", "c", "x", "d", "e", "f"]);
    assert.deepEqual(after.map((n) => n.dataset.key), ["a", "b", "c", "x", "d", "e", "f"]);
    assert.equal(after.reduce((sum, n) => sum + n.moves, 0), 0);
  });

  test("one card out and one in (a discard, then a draw) moves nothing", () => {
    const after = draw(hand, ["a", "c", "d", "y", "e", "f"]);
    assert.deepEqual(after.map((n) => n.dataset.key), ["a", "c", "d", "y", "e", "f"]);
    assert.equal(after.reduce((sum, n) => sum + n.moves, 0), 0);
  });

  test("a reorder moves nodes but keeps every one of them", () => {
    const before = hand.children;
    const after = draw(hand, ["f", "e", "d", "c", "b", "a"]);
    assert.deepEqual(after.map((n) => n.dataset.key), ["f", "e", "d", "c", "b", "a"]);
    assert.ok(after.every((node) => before.includes(node)));
  });

  test("unkeyed children and duplicate nodes of one key are dropped", () => {
    const stray = new FakeNode("stray");
    hand.insertBefore(stray, hand.kids[2]);
    const twin = new FakeNode("a-twin");
    twin.dataset.key = "a";
    hand.insertBefore(twin, null);
    const after = draw(hand, ["a", "b", "c", "d", "e", "f"]);
    assert.deepEqual(after.map((n) => n.dataset.key), ["a", "b", "c", "d", "e", "f"]);
    assert.ok(!after.includes(stray) && !after.includes(twin));
  });
});
