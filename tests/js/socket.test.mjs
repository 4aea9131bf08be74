// lib/socket.js's LiveSocket on a stand-in WebSocket and node's mock timers: reconnecting, and
// the watchdog that drops a socket whose server no longer answers.
//   node --test tests/js/

import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, mock, test } from "node:test";

import { LiveSocket } from "../../static/js/lib/socket.js";

class FakeWebSocket {
  static OPEN = 1;
  static made = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.listeners = {};
    this.closeCalls = 0;
    FakeWebSocket.made.push(this);
  }
  addEventListener(type, fn) { (this.listeners[type] ||= []).push(fn); }
  emit(type, event = {}) { for (const fn of this.listeners[type] || []) fn(event); }
  open() { this.readyState = 1; this.emit("open"); }
  receive(frame) { this.emit("message", { data: JSON.stringify(frame) }); }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() { this.closeCalls += 1; }  // a dead path: the close handshake never completes
}

describe("LiveSocket", () => {
  let closes;
  beforeEach(() => {
    mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
    globalThis.WebSocket = FakeWebSocket;
    globalThis.location = { protocol: "http:", host: "example.test" };
    FakeWebSocket.made = [];
    closes = [];
  });
  afterEach(() => mock.timers.reset());

  function connected(options = {}) {
    const socket = new LiveSocket("/ws/table/7/", { onClose: (event, retry) => closes.push([event.code, retry]) },
      { pingEvery: 25000, answerWithin: 8000, ...options });
    socket.connect();
    FakeWebSocket.made.at(-1).open();
    return socket;
  }

  test("a ping answered in time keeps the socket", () => {
    connected();
    const ws = FakeWebSocket.made[0];
    mock.timers.tick(25000);
    assert.deepEqual(ws.sent, [{ type: "ping" }]);
    mock.timers.tick(3000);
    ws.receive({ type: "pong", version: 4 });
    mock.timers.tick(20000);
    assert.equal(FakeWebSocket.made.length, 1);
    assert.deepEqual(closes, []);
  });

  test("a ping with no answer at all drops the socket and opens another at once", () => {
    connected();
    const ws = FakeWebSocket.made[0];
    mock.timers.tick(25000);
    mock.timers.tick(8000);
    assert.equal(ws.closeCalls, 1);
    assert.deepEqual(closes, [[1006, true]]);
    mock.timers.tick(1000);  // the first retry: half a second and a little jitter
    assert.equal(FakeWebSocket.made.length, 2);
    assert.equal(FakeWebSocket.made[1].url, "ws://example.test/ws/table/7/");
  });

  test("an action with no answer drops the socket; frames of the dropped one are ignored", () => {
    const frames = [];
    const socket = connected();
    socket.handlers.onFrame = (frame) => frames.push(frame);
    const ws = FakeWebSocket.made[0];
    assert.equal(socket.send({ type: "action", action: { type: "draw" }, ref: 1 }), true);
    mock.timers.tick(8000);
    assert.deepEqual(closes, [[1006, true]]);
    ws.receive({ type: "event", version: 9 });  // late, from the socket given up
    ws.emit("close", { code: 1006 });
    assert.deepEqual(frames, []);
    assert.equal(closes.length, 1);
  });

  test("frames that are not always answered arm no watchdog", () => {
    const socket = connected({ pingEvery: 0 });
    socket.send({ type: "chat", phrase: "ciao" });
    mock.timers.tick(60000);
    assert.equal(FakeWebSocket.made.length, 1);
    assert.deepEqual(closes, []);
  });

  test("a final close code is not retried", () => {
    const socket = new LiveSocket("/ws/table/7/", { onClose: (event, retry) => closes.push([event.code, retry]) },
      { finalCodes: [4401] });
    socket.connect();
    FakeWebSocket.made[0].open();
    FakeWebSocket.made[0].emit("close", { code: 4401 });
    mock.timers.tick(60000);
    assert.deepEqual(closes, [[4401, false]]);
    assert.equal(FakeWebSocket.made.length, 1);
  });

  test("a server cut from its data (4503): another socket within a second, then retries every 2 s at most", () => {
    connected();
    FakeWebSocket.made[0].emit("close", { code: 4503 });
    assert.deepEqual(closes, [[4503, true]]);
    mock.timers.tick(1000);
    assert.equal(FakeWebSocket.made.length, 2);
    // Every server refuses for a while (all cut): the handshakes fail, the retries stay close.
    for (let n = 0; n < 6; n += 1) {
      FakeWebSocket.made.at(-1).emit("close", { code: 1006 });
      mock.timers.tick(2300);
      assert.equal(FakeWebSocket.made.length, 3 + n);
    }
    FakeWebSocket.made.at(-1).open();
    assert.equal(FakeWebSocket.made.length, 8);
  });

  test("other closes keep the growing back-off", () => {
    connected();
    FakeWebSocket.made[0].emit("close", { code: 1006 });
    for (let n = 0; n < 5; n += 1) {
      mock.timers.tick(2 ** n * 500 + 300);
      FakeWebSocket.made.at(-1).emit("close", { code: 1006 });
    }
    assert.equal(FakeWebSocket.made.length, 6);
    mock.timers.tick(2300);  // the sixth retry waits up to 10 s, not 2
    assert.equal(FakeWebSocket.made.length, 6);
  });
});
