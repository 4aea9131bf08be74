// "Gioca con persone": what the lobby shows of the person's place in the queue, from the lobby
// socket's `queue` and `matched` frames (docs/protocol.md). No DOM here: frames and the time go
// in, texts and decisions come out (tests/js/queue.test.mjs).

import { fmt } from "./lib/dom.js";

// The window widens as on the server (games/selectors/matchmaking.py rating_window); the page
// only counts on from the server's figure between frames.
const WINDOW_START = 100;
const WINDOW_GROWTH = 10;
const WINDOW_ANYONE_SECONDS = 30;

/** The queue state after a frame: {status: "idle"|"waiting"|"matched", ...}; `now` in ms. */
export function nextState(state, frame, now) {
  if (frame.type === "matched") {
    const found = { status: "matched", table: frame.table, url: frame.url, computer: frame.computer };
    return frame.challenge ? { ...found, challenge: true } : found;
  }
  if (frame.type !== "queue") return state;
  if (state.status === "matched") return state; // the page is already on its way to the table
  if (frame.status === "waiting") {
    return {
      status: "waiting",
      mode: frame.mode,
      preset: frame.preset,
      since: now - (frame.waited || 0) * 1000,
      computerAt: frame.computer_in === null || frame.computer_in === undefined ? null : now + frame.computer_in * 1000,
      partner: frame.partner || null,
      partnerReady: Boolean(frame.partner_ready),
    };
  }
  return { status: "idle", reason: frame.reason || "none" };
}

/** The waiting box's texts at time `now` (ms). */
export function describeWaiting(state, labels, now) {
  const waited = Math.max(0, Math.floor((now - state.since) / 1000));
  const what = fmt(labels.queueWhat, {
    mode: (labels.modes || {})[state.mode] || state.mode,
    preset: (labels.presets || {})[state.preset] || state.preset,
  });
  const details = [];
  if (state.partner) details.push(fmt(state.partnerReady ? labels.queuePartnerReady : labels.queuePartnerWait,
    { name: state.partner }));
  if (waited >= WINDOW_ANYONE_SECONDS) details.push(labels.queueAnyone);
  else details.push(fmt(labels.queueWindow, { n: WINDOW_START + WINDOW_GROWTH * waited }));
  if (state.computerAt !== null) {
    details.push(fmt(labels.queueComputerIn, { n: Math.max(0, Math.ceil((state.computerAt - now) / 1000)) }));
  }
  return { what, seconds: fmt(labels.queueSeconds, { n: waited }), detail: details.join(" ") };
}

/** Where the page goes once matched: the table, flagged with how it was found ("1": people
 * from the queue, "computer": the queue's fallback, "sfida": a challenge), so its page says so. */
export function tableAddress(url, how = "1") {
  return `${url}${url.includes("?") ? "&" : "?"}trovata=${how}`;
}

/** How a `matched` state was found, for tableAddress. */
export function foundBy(state) {
  if (state.challenge) return "sfida";
  return state.computer ? "computer" : "1";
}

/** The presets a mode allows, from the options' `data-modes` ("2p,4p"). */
export function allowed(modes, mode) {
  return String(modes || "").split(",").includes(mode);
}

/** The text that explains why a pair's search ended, or "" for the other idle reasons. */
export function pairEnded(reason, labels) {
  return { partner_declined: labels.pairDeclined, partner_left: labels.pairLeft,
    partner_timeout: labels.pairTimeout }[reason] || "";
}
