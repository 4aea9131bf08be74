// One reconnecting WebSocket (table page and lobby): backoff with jitter, a keep-alive ping,
// close codes after which retrying cannot help (docs/protocol.md), and a watchdog: a frame the
// server always answers (ping, hello, action) that gets no answer at all within `answerWithin`
// means the path to the server is dead though the socket looks open (a host lost, a cable cut
// between the proxy and the server): the socket is dropped and another one opened at once.

// The frames the server answers every time (docs/protocol.md).
const ANSWERED = new Set(["ping", "hello", "action"]);
// The server cannot reach its data: reconnect at once, the proxy sends the new socket to
// another server (docs/protocol.md); spread over a second so a host's pages do not all come at
// once, and retried every 2 s at most until a socket opens (if every server is cut, the first
// one to reach its data again takes the page).
export const CLOSE_MOVE_ON = 4503;
const MOVE_ON_SPREAD = 1000;
const MOVE_ON_MAX_DELAY = 2000;

export class LiveSocket {
  /**
   * @param {string} path  e.g. "/ws/table/7/"
   * @param {object} handlers  onFrame(frame), onOpen(), onClose(event, willRetry)
   * @param {object} options  finalCodes, baseDelay, maxDelay, pingEvery (ms; 0 = none),
   *   answerWithin (ms; 0 = no watchdog)
   */
  constructor(path, handlers = {}, options = {}) {
    this.path = path;
    this.handlers = handlers;
    this.finalCodes = new Set(options.finalCodes || []);
    this.baseDelay = options.baseDelay ?? 500;
    this.maxDelay = options.maxDelay ?? 10000;
    this.pingEvery = options.pingEvery ?? 25000;
    this.answerWithin = options.answerWithin ?? 8000;
    this.retry = 0;
    this.ws = null;
    this.pingTimer = null;
    this.silenceTimer = null;
    this.stopped = false;
    this.movingOn = false;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}${this.path}`;
  }

  get open() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  connect() {
    if (!this.path || this.stopped) return;
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.retry = 0;
      this.movingOn = false;
      clearInterval(this.pingTimer);
      if (this.pingEvery) this.pingTimer = setInterval(() => this.send({ type: "ping" }), this.pingEvery);
      if (this.handlers.onOpen) this.handlers.onOpen();
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      this.heard();
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (frame && typeof frame === "object" && this.handlers.onFrame) this.handlers.onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      if (ws === this.ws) this.lost(event);
    });
  }

  /** The socket is gone (closed, or silent): tell the page, and retry unless that cannot help. */
  lost(event) {
    clearInterval(this.pingTimer);
    this.heard();
    const final = this.stopped || this.finalCodes.has(event.code);
    if (this.handlers.onClose) this.handlers.onClose(event, !final);
    if (final) return;
    if (event.code === CLOSE_MOVE_ON) {
      this.movingOn = true;
      setTimeout(() => this.connect(), Math.random() * MOVE_ON_SPREAD);
      return;
    }
    const cap = this.movingOn ? MOVE_ON_MAX_DELAY : this.maxDelay;
    const delay = Math.min(cap, this.baseDelay * 2 ** this.retry) + Math.random() * 300;
    this.retry += 1;
    setTimeout(() => this.connect(), delay);
  }

  heard() {
    clearTimeout(this.silenceTimer);
    this.silenceTimer = null;
  }

  /** Nothing came back in time: drop this socket without waiting for its close handshake. */
  silent() {
    const ws = this.ws;
    this.ws = null;
    try {
      ws.close();
    } catch {
      // already closing
    }
    this.retry = 0;  // the server may be fine: the next socket can go at once, through the proxy
    this.lost({ code: 1006, reason: "no answer", silent: true });
  }

  send(frame) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(frame));
    if (this.answerWithin && ANSWERED.has(frame.type) && !this.silenceTimer) {
      this.silenceTimer = setTimeout(() => this.silent(), this.answerWithin);
    }
    return true;
  }

  /** Close this socket; it reconnects by itself unless `stop` is true. */
  close(stop = false) {
    this.stopped = stop;
    if (this.ws) this.ws.close();
  }
}
