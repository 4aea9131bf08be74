// One reconnecting WebSocket (table page and lobby): backoff with jitter, a keep-alive ping,
// and close codes after which retrying cannot help (docs/protocol.md).

export class LiveSocket {
  /**
   * @param {string} path  e.g. "/ws/table/7/"
   * @param {object} handlers  onFrame(frame), onOpen(), onClose(event, willRetry)
   * @param {object} options  finalCodes, baseDelay, maxDelay, pingEvery (ms; 0 = none)
   */
  constructor(path, handlers = {}, options = {}) {
    this.path = path;
    this.handlers = handlers;
    this.finalCodes = new Set(options.finalCodes || []);
    this.baseDelay = options.baseDelay ?? 500;
    this.maxDelay = options.maxDelay ?? 10000;
    this.pingEvery = options.pingEvery ?? 25000;
    this.retry = 0;
    this.ws = null;
    this.pingTimer = null;
    this.stopped = false;
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
      this.retry = 0;
      clearInterval(this.pingTimer);
      if (this.pingEvery) this.pingTimer = setInterval(() => this.send({ type: "ping" }), this.pingEvery);
      if (this.handlers.onOpen) this.handlers.onOpen();
    });
    ws.addEventListener("message", (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (frame && typeof frame === "object" && this.handlers.onFrame) this.handlers.onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      clearInterval(this.pingTimer);
      if (ws !== this.ws) return;
      const final = this.stopped || this.finalCodes.has(event.code);
      if (this.handlers.onClose) this.handlers.onClose(event, !final);
      if (final) return;
      const delay = Math.min(this.maxDelay, this.baseDelay * 2 ** this.retry) + Math.random() * 300;
      this.retry += 1;
      setTimeout(() => this.connect(), delay);
    });
  }

  send(frame) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** Close this socket; it reconnects by itself unless `stop` is true. */
  close(stop = false) {
    this.stopped = stop;
    if (this.ws) this.ws.close();
  }
}
