// Short sounds made with WebAudio (no files): a draw, a discard, a meld, our turn, the clock
// running out, the end of a hand. Muting is remembered for this player on this device.

const TONES = {
  draw: [[520, 0.05, "triangle"]],
  discard: [[300, 0.07, "square"]],
  meld: [[660, 0.07, "triangle"], [880, 0.09, "triangle"]],
  yourTurn: [[587, 0.1, "sine"], [880, 0.18, "sine"]],
  tick: [[1046, 0.05, "square"]],
  handOver: [[523, 0.1, "sine"], [659, 0.1, "sine"], [784, 0.2, "sine"]],
  matched: [[659, 0.09, "sine"], [784, 0.09, "sine"], [1046, 0.22, "sine"]],
};

export class Sounds {
  constructor(storageKey) {
    this.key = storageKey;
    this.muted = false;
    try {
      this.muted = localStorage.getItem(storageKey) === "off";
    } catch {
      // storage refused: sounds on, not remembered
    }
    this.ctx = null;
    this.played = []; // what was asked for, for the tests (also when muted)
  }

  /** Browsers start audio only after a gesture: call from a click or a key. */
  unlock() {
    if (this.ctx || this.muted) {
      if (this.ctx && this.ctx.state === "suspended") this.ctx.resume();
      return;
    }
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      this.ctx = new Ctx();
    } catch {
      this.ctx = null;
    }
  }

  play(name) {
    const tones = TONES[name];
    if (!tones) return;
    this.played.push(name);
    if (this.played.length > 100) this.played.shift();
    if (this.muted || !this.ctx || this.ctx.state !== "running") return;
    let t = this.ctx.currentTime;
    for (const [freq, length, wave] of tones) {
      const osc = this.ctx.createOscillator();
      const gain = this.ctx.createGain();
      osc.type = wave;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.12, t + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
      osc.connect(gain).connect(this.ctx.destination);
      osc.start(t);
      osc.stop(t + length + 0.02);
      t += length * 0.9;
    }
  }

  toggle() {
    this.muted = !this.muted;
    try {
      localStorage.setItem(this.key, this.muted ? "off" : "on");
    } catch {
      // not remembered
    }
    if (!this.muted) this.unlock();
    return this.muted;
  }
}
