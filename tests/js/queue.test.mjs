// The lobby's queue state (static/js/queue.js) with node's own test runner: node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";

import { allowed, describeWaiting, foundBy, nextState, pairEnded, tableAddress } from "../../static/js/queue.js";

const LABELS = {
  modes: { "2p": "1 contro 1", "4p": "A coppie" },
  presets: { classico: "Classico" },
  queueWhat: "Cerco avversari: {mode}, {preset}",
  queueSeconds: "da {n} s",
  queueWindow: "entro ±{n} punti",
  queueAnyone: "qualunque avversario",
  queueComputerIn: "computer tra {n} s",
  queuePartnerWait: "aspetto {name}",
  queuePartnerReady: "in coppia con {name}",
  pairDeclined: "ha detto di no",
  pairLeft: "il compagno è uscito",
  pairTimeout: "nessuna risposta",
};
const T0 = Date.parse("2026-05-04T18:00:00Z");

test("a waiting frame counts on from the server's seconds, and says when the computer comes", () => {
  const state = nextState({ status: "idle" }, { type: "queue", status: "waiting", mode: "4p", preset: "classico",
    waited: 4, computer_after: true, computer_in: 56 }, T0);
  assert.equal(state.status, "waiting");
  assert.deepEqual(describeWaiting(state, LABELS, T0 + 6000), {
    what: "Cerco avversari: A coppie, Classico", seconds: "da 10 s", detail: "entro ±200 punti computer tra 50 s",
  });
  assert.equal(describeWaiting(state, LABELS, T0 + 40000).detail, "qualunque avversario computer tra 16 s");
});

test("without the computer option there is no countdown", () => {
  const state = nextState({ status: "idle" }, { type: "queue", status: "waiting", mode: "2p", preset: "classico",
    waited: 0, computer_after: false, computer_in: null }, T0);
  assert.equal(describeWaiting(state, LABELS, T0).detail, "entro ±100 punti");
});

test("once matched, a late queue frame does not bring the form back", () => {
  const matched = nextState({ status: "waiting" }, { type: "matched", table: 7, url: "/tavolo/7/", computer: false }, T0);
  assert.deepEqual(matched, { status: "matched", table: 7, url: "/tavolo/7/", computer: false });
  assert.equal(nextState(matched, { type: "queue", status: "idle", reason: "cancelled" }, T0), matched);
  assert.deepEqual(nextState({ status: "waiting" }, { type: "queue", status: "idle", reason: "left" }, T0),
    { status: "idle", reason: "left" });
  assert.equal(tableAddress("/tavolo/7/"), "/tavolo/7/?trovata=1");
});

test("the table's address says how it was found: people, the computer or a challenge", () => {
  const frame = { type: "matched", table: 7, url: "/tavolo/7/", computer: false };
  assert.equal(foundBy(nextState({ status: "waiting" }, frame, T0)), "1");
  assert.equal(foundBy(nextState({ status: "waiting" }, { ...frame, computer: true }, T0)), "computer");
  assert.equal(foundBy(nextState({ status: "idle" }, { ...frame, challenge: true }, T0)), "sfida");
  assert.equal(tableAddress("/tavolo/7/", "sfida"), "/tavolo/7/?trovata=sfida");
});

test("a preset offered for a mode", () => {
  assert.equal(allowed("2p,4p", "4p"), true);
  assert.equal(allowed("2p", "4p"), false);
});

test("a pair's search says whether the partner has accepted, and why it ended", () => {
  const frame = { type: "queue", status: "waiting", mode: "4p", preset: "classico", waited: 0,
    computer_after: false, computer_in: null, partner: "bruno", partner_ready: false };
  const invited = nextState({ status: "idle" }, frame, T0);
  assert.equal(describeWaiting(invited, LABELS, T0).detail, "aspetto bruno entro ±100 punti");
  const ready = nextState(invited, { ...frame, partner_ready: true }, T0);
  assert.equal(describeWaiting(ready, LABELS, T0).detail, "in coppia con bruno entro ±100 punti");
  const alone = nextState({ status: "idle" }, { ...frame, partner: null, partner_ready: null }, T0);
  assert.equal(describeWaiting(alone, LABELS, T0).detail, "entro ±100 punti");
  assert.equal(pairEnded("partner_declined", LABELS), "ha detto di no");
  assert.equal(pairEnded("partner_left", LABELS), "il compagno è uscito");
  assert.equal(pairEnded("partner_timeout", LABELS), "nessuna risposta");
  assert.equal(pairEnded("cancelled", LABELS), "");
});
