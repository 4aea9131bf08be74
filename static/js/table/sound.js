// Short sounds made with WebAudio (no files): a draw, a discard, a meld, our turn, the clock
// running out, the end of a hand. The player's settings say whether sounds start on or off
// (<body data-sound-default>); the table's button toggles them, remembered on this device until
// the settings' default changes again.

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
  constructor(storageKey, accountDefault = globalThis.document?.body?.dataset.soundDefault) {
    this.key = storageKey;
    this.accountDefault = accountDefault === "off" ? "off" : "on";
    this.muted = this.accountDefault === "off";
    try {
      // A choice made on this device counts while the settings' default is still the one it
      // was made under; a newer default from the settings wins.
      const stored = localStorage.getItem(storageKey);
      const under = localStorage.getItem(`${storageKey}:default`) || "on";
      if (stored && under === this.accountDefault) this.muted = stored === "off";
    } catch {
      // storage refused: the settings' default, not remembered
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
      localStorage.setItem(`${this.key}:default`, this.accountDefault);
    } catch {
      // not remembered
    }
    if (!this.muted) this.unlock();
    return this.muted;
  }
}
