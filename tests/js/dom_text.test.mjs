// lib/dom.js's setText on a stand-in for the DOM (node has none): a lone text child is changed in
// place, so the browser keeps its layout object instead of building a new one on every clock tick.
//   node --test tests/js/

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { setText } from "../../static/js/lib/dom.js";

class FakeText {
  constructor(data) { this.nodeType = 3; this.data = data; }
}

class FakeElement {
  constructor(...kids) { this.nodeType = 1; this.kids = kids; this.replaced = 0; }
  get firstChild() { return this.kids[0] || null; }
  get lastChild() { return this.kids[this.kids.length - 1] || null; }
  get textContent() { return this.kids.map((k) => (k.nodeType === 3 ? k.data : k.textContent)).join(""); }
  set textContent(text) { this.replaced += 1; this.kids = text === "" ? [] : [new FakeText(text)]; }
}

describe("setText", () => {
  test("changes a lone text child in place, keeping the node", () => {
    const clock = new FakeElement(new FakeText("4:56"));
    const text = clock.firstChild;
    setText(clock, "4:55");
    assert.equal(clock.textContent, "4:55");
    assert.equal(clock.firstChild, text, "the same text node");
    assert.equal(clock.replaced, 0);
  });

  test("writes nothing when the text is the same", () => {
    const clock = new FakeElement(new FakeText("4:56"));
    setText(clock, "4:56");
    assert.equal(clock.replaced, 0);
  });

  test("replaces the children of an empty node or one with elements", () => {
    const empty = new FakeElement();
    setText(empty, "11 carte");
    assert.equal(empty.textContent, "11 carte");
    assert.equal(empty.replaced, 1);
    const mixed = new FakeElement(new FakeText("Noi "), new FakeElement(new FakeText("0")));
    setText(mixed, "Loro");
    assert.equal(mixed.textContent, "Loro");
    assert.equal(mixed.kids.length, 1);
  });

  test("an empty text clears the node", () => {
    const badge = new FakeElement(new FakeText("3"));
    setText(badge, "");
    assert.equal(badge.textContent, "");
    assert.equal(badge.kids.length, 0);
  });

  test("tolerates a missing node", () => {
    assert.doesNotThrow(() => setText(null, "x"));
  });
});
