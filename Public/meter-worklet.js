// HearClear's meter in the browser's audio thread: it runs the filters the server designed
// (GET /api/v2/meter-design, from Swift's LevelMeter) and applies LevelMeter's rules to them, so a
// second measured here is the second `hearclear analyze` measures. It designs nothing; the rules
// it repeats (interval boundaries, the Fast detector's steps, the peak) are tested against the
// Swift meter on the same audio (BrowserTests, docs/public-pages.md).
//
// Posts {type: "interval", avg, peak, details: {fastMax, cAvg, octaves}, classes: {speech, music}}
// (levels in dBFS; details and classes null where the rate has none, classes null too for an interval
// too short to judge) for each interval it completes; on {type: "finish"} posts the last, partial
// interval if any, then {type: "finished"}. Speech and music are found by sound-classes.js.

import { SoundClassesMeter } from "./sound-classes.js";

// A cascade of second-order sections in transposed direct form II, in double precision.
class Cascade {
  constructor(sections) {
    this.sections = sections.map((s) => ({ b0: s[0], b1: s[1], b2: s[2], a1: s[3], a2: s[4], z1: 0, z2: 0 }));
  }

  process(x) {
    for (const s of this.sections) {
      const y = s.b0 * x + s.z1;
      s.z1 = s.b1 * x - s.a1 * y + s.z2;
      s.z2 = s.b2 * x - s.a2 * y;
      x = y;
    }
    return x;
  }
}

class MeterProcessor extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const design = options.processorOptions.design;
    this.floor = design.floor_db;
    this.silence = design.silence_db;
    this.samplesPerInterval = design.samples_per_interval;
    this.samplesPerStep = design.samples_per_fast_step;
    this.fastSamples = design.fast_time_constant_s * design.sample_rate;
    this.a = new Cascade(design.a);
    this.c = new Cascade(design.c);
    this.bands = design.bands ? design.bands.map((sections) => new Cascade(sections)) : null;
    this.sound = design.classes ? new SoundClassesMeter(design.classes) : null;
    this.count = 0;
    this.fast = 0;
    this.fastMax = 0;
    this.running = true;
    this.resetSums();
    this.port.onmessage = (event) => {
      if (event.data.type !== "finish" || !this.running) return;
      this.running = false;
      if (this.count > 0) this.closeInterval(true);
      this.port.postMessage({ type: "finished" });
    };
  }

  resetSums() {
    this.weighted = 0;
    this.cSum = 0;
    this.bandSums = [0, 0, 0, 0];
    this.largest = 0;
  }

  level(energy) {
    return energy > 0 ? Math.max(this.floor, 10 * Math.log10(energy)) : this.floor;
  }

  process(inputs) {
    const input = inputs[0];
    if (!this.running) return false;
    if (!input || input.length === 0) return true;
    // The first channel: a phone's microphone is mono, and a second channel would be another microphone.
    const samples = input[0];
    let position = 0;
    while (position < samples.length) {
      // A step of the Fast detector ends at its length or at the interval's end, whichever comes
      // first (LevelMeter.process); a block's end cuts it too, as in Swift.
      const intoStep = this.count % this.samplesPerStep;
      const take = Math.min(this.samplesPerStep - intoStep, this.samplesPerInterval - this.count, samples.length - position);
      let stepWeighted = 0;
      for (let index = position; index < position + take; index++) {
        const x = samples[index];
        if (this.sound) this.sound.push(x);
        const y = this.a.process(x);
        stepWeighted += y * y;
        this.largest = Math.max(this.largest, Math.abs(y));
        const c = this.c.process(x);
        this.cSum += c * c;
        if (this.bands) {
          for (let band = 0; band < 4; band++) {
            const b = this.bands[band].process(x);
            this.bandSums[band] += b * b;
          }
        }
      }
      this.weighted += stepWeighted;
      // The exponential average over `take` samples of constant mean square: e ← e·d + m·(1 − d).
      const decay = Math.exp(-take / this.fastSamples);
      this.fast = this.fast * decay + (stepWeighted / take) * (1 - decay);
      this.fastMax = Math.max(this.fastMax, this.fast);
      this.count += take;
      position += take;
      if (this.count === this.samplesPerInterval) this.closeInterval();
    }
    return true;
  }

  closeInterval(cutShort = false) {
    const n = this.count;
    const avg = this.level(this.weighted / n);
    const classes = this.sound ? this.sound.closeInterval(cutShort) : null;
    this.port.postMessage({
      type: "interval",
      avg,
      peak: this.level(this.largest * this.largest),
      details: this.bands
        ? { fastMax: this.level(this.fastMax), cAvg: this.level(this.cSum / n), octaves: this.bandSums.map((sum) => this.level(sum / n)) }
        : null,
      // A second that held no sound at all holds neither (SoundClasses.heard(inIntervalOf:)): the
      // network never heard digital silence.
      classes: classes && avg < this.silence ? { speech: 0, music: 0 } : classes,
    });
    this.resetSums();
    this.count = 0;
    // The next interval's maximum starts from where the detector is now.
    this.fastMax = this.fast;
  }
}

registerProcessor("hearclear-meter", MeterProcessor);
