// Speech and music in the browser's audio thread, found as LevelMeter's SoundFeatures and
// SoundClassifier find them (docs/sound-classes.md): the decimating filter, the frames' bands, the
// pitch lags and the network all come from the server's meter design (SoundClassesDesign, made in
// Swift from the model `make train-classes` wrote); this file designs nothing, it runs them. It
// sums in double precision where Swift sums in single, so a second's probabilities agree to about
// a hundredth, not bit for bit (BrowserMeasureTests compares them with `hearclear analyze`).
//
// The worklet hands it every sample (`push`) and closes its intervals where the levels' close
// (`closeInterval`), which gives the interval's {speech, music}, or null when too little was heard.

const FLOOR = 1e-12;

export class SoundClassesMeter {
  constructor(design) {
    this.factor = design.decimation_factor;
    this.taps = Float64Array.from(design.decimation_taps);
    // The last taps.length input samples, newest at `newest`, zeros before the first.
    this.recentInput = new Float64Array(this.taps.length);
    this.newest = 0;
    this.inputs = 0;

    const n = design.frame_size;
    this.n = n;
    this.frame = new Float64Array(n);
    this.filled = 0;
    this.window = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
    this.cos = Float64Array.from({ length: n }, (_, i) => Math.cos((2 * Math.PI * i) / n));
    this.sin = Float64Array.from({ length: n }, (_, i) => Math.sin((2 * Math.PI * i) / n));
    this.spectrumBins = design.spectrum_bins;
    this.binKHz = design.bin_khz;
    this.bands = design.bands.map((band) => {
      const total = band.weights.reduce((sum, weight) => sum + weight, 0);
      return { bins: band.bins, weights: band.weights, total, logTotal: Math.log(total) };
    });
    // The bins a frame needs: the centroid's, which hold the bands', and the pitch's, to a quarter of the frame.
    this.topBin = Math.max(design.spectrum_bins[1], n / 4);
    this.windowed = new Float64Array(n);
    this.power = new Float64Array(this.topBin + 1);
    const half = n / 2;
    this.mirrored = new Float64Array(half);
    this.halfCos = Float64Array.from({ length: half }, (_, i) => Math.cos((2 * Math.PI * i) / half));
    this.pitchLags = design.pitch_lags;
    this.windowCorrelation = design.window_correlation;
    this.steadinessReach = design.steadiness_reach;
    const spanned = design.spectrum_bins[1] - design.spectrum_bins[0] + 1;
    this.peaks = new Float64Array(spanned);
    this.previousPeaks = new Float64Array(spanned);
    this.peaksBefore = false;

    this.model = design.model;
    this.width = design.model.features.length;
    this.context = design.model.context_frames;
    this.fewestJudged = design.fewest_frames_judged;
    this.unchangingIntervals = design.unchanging_intervals;
    this.unchangingRange = design.unchanging_range;
    // The last intervals' band sums over their own frames, and how many, oldest first (hasNotChanged).
    this.recentSums = [];
    this.frames = [];
    this.recent = [];
    this.previousBands = null;
    this.lastPitch = 0;
    this.framesSeen = 0;
  }

  /** One sample in [−1, 1]: decimated (y[m] = Σ taps[k]·x[m·factor − k]), then into the frame. */
  push(x) {
    this.newest = (this.newest + 1) % this.taps.length;
    this.recentInput[this.newest] = x;
    const due = this.inputs % this.factor === 0;
    this.inputs++;
    if (!due) return;
    let y = 0;
    for (let k = 0, at = this.newest; k < this.taps.length; k++, at = at === 0 ? this.taps.length - 1 : at - 1) {
      y += this.taps[k] * this.recentInput[at];
    }
    this.frame[this.filled++] = y;
    if (this.filled === this.n) {
      this.analyseFrame();
      this.filled = 0;
    }
  }

  analyseFrame() {
    const n = this.n;
    for (let i = 0; i < n; i++) this.windowed[i] = this.frame[i] * this.window[i];
    // The bins it needs by the transform's definition: a fast transform would need sizes of 704 and
    // 768 points, and these few hundred bins are about 350,000 multiply-adds a frame (225 × 768 × 2
    // at 48 kHz), 31 frames a second.
    for (let bin = 0; bin <= this.topBin; bin++) {
      let re = 0, im = 0;
      for (let i = 0, at = 0; i < n; i++) {
        re += this.windowed[i] * this.cos[at];
        im -= this.windowed[i] * this.sin[at];
        at += bin;
        if (at >= n) at -= n;
      }
      this.power[bin] = re * re + im * im;
    }
    let total = 0, weighted = 0;
    for (let bin = this.spectrumBins[0]; bin <= this.spectrumBins[1]; bin++) {
      total += this.power[bin];
      weighted += this.power[bin] * bin;
    }
    const values = [];
    let meanDensity = 0, meanLogDensity = 0;
    for (const band of this.bands) {
      let energy = 0;
      for (let member = 0; member < band.bins.length; member++) energy += this.power[band.bins[member]] * band.weights[member];
      const level = Math.log10(energy + FLOOR);
      values.push(level);
      meanDensity += energy / band.total;
      meanLogDensity += level * Math.LN10 - band.logTotal;
    }
    meanDensity /= this.bands.length;
    meanLogDensity /= this.bands.length;
    const flatness = meanDensity > FLOOR ? Math.min(1, Math.exp(meanLogDensity) / meanDensity) : 1;
    const centroid = total > FLOOR ? (weighted / total) * this.binKHz : 0;
    let flux = 0;
    if (this.previousBands) {
      for (let band = 0; band < this.bands.length; band++) flux += Math.max(0, values[band] - this.previousBands[band]);
      flux /= this.bands.length;
    }
    this.previousBands = values.slice();
    const steadiness = this.steadiness();
    if (this.framesSeen % 2 === 0) this.lastPitch = this.pitch();
    this.framesSeen++;
    values.push(flux, flatness, centroid, this.lastPitch, steadiness);
    this.frames.push(values);
  }

  /** How periodic the frame is at a voice's pitch: the power spectrum's transform at the pitch lags. */
  pitch() {
    const half = this.n / 2, quarter = half / 2;
    for (let bin = 0; bin <= quarter; bin++) this.mirrored[bin] = this.power[bin];
    for (let bin = 1; bin < quarter; bin++) this.mirrored[half - bin] = this.power[bin];
    let zero = 0;
    for (let m = 0; m < half; m++) zero += this.mirrored[m];
    if (!(zero > FLOOR)) return 0;
    let pitch = 0;
    for (let lag = this.pitchLags[0]; lag <= this.pitchLags[1]; lag++) {
      let r = 0;
      for (let m = 0, at = 0; m < half; m++) {
        r += this.mirrored[m] * this.halfCos[at];
        at += lag;
        if (at >= half) at -= half;
      }
      pitch = Math.max(pitch, r / zero / this.windowCorrelation[lag]);
    }
    return Math.min(1, Math.max(0, pitch));
  }

  /**
   * How much the frame's spectral peaks stand where the last frame's stood: each bin's power over
   * its neighbourhood's mean, less that ratio's mean, correlated with the last frame's.
   */
  steadiness() {
    const first = this.spectrumBins[0], count = this.peaks.length, reach = this.steadinessReach;
    let sum = 0;
    for (let index = 0; index < count; index++) {
      const low = Math.max(0, index - reach), high = Math.min(count - 1, index + reach);
      let neighbourhood = 0;
      for (let bin = low; bin <= high; bin++) neighbourhood += this.power[first + bin];
      this.peaks[index] = this.power[first + index] / (neighbourhood / (high - low + 1) + FLOOR);
      sum += this.peaks[index];
    }
    const mean = sum / count;
    for (let index = 0; index < count; index++) this.peaks[index] -= mean;
    let steadiness = 0;
    if (this.peaksBefore) {
      let product = 0, current = 0, previous = 0;
      for (let index = 0; index < count; index++) {
        product += this.peaks[index] * this.previousPeaks[index];
        current += this.peaks[index] * this.peaks[index];
        previous += this.previousPeaks[index] * this.previousPeaks[index];
      }
      const scale = Math.sqrt(current * previous);
      if (scale > FLOOR) steadiness = product / scale;
    }
    [this.peaks, this.previousPeaks] = [this.previousPeaks, this.peaks];
    this.peaksBefore = true;
    return steadiness;
  }

  /**
   * Ends an interval where the levels' ends: its classes, after its frames' bands lose their mean.
   * An interval `cutShort` (the last, ended by "stop") is judged with the one before it (hasNotChanged).
   */
  closeInterval(cutShort = false) {
    const bandCount = this.bands.length, count = this.frames.length;
    if (count > 0) {
      let sum = 0;
      for (const frame of this.frames) for (let band = 0; band < bandCount; band++) sum += frame[band];
      const mean = sum / (count * bandCount);
      for (const frame of this.frames) for (let band = 0; band < bandCount; band++) frame[band] -= mean;
    }
    const unchanging = this.hasNotChanged(this.frames, cutShort);
    const window = this.recent.concat(this.frames);
    const context = this.recent.length;
    this.recent = window.slice(-this.context);
    this.frames = [];
    const classes = this.classify(window, context, count);
    // A hum, which the network reads as music, holds neither (UnchangingSound).
    return classes && unchanging ? { speech: 0, music: 0 } : classes;
  }

  /**
   * Whether the sound has kept its spectrum over this interval, whose frames are `own`, and the
   * intervals before it, the design's unchanging_intervals in all: the mean over the bands of how
   * far each band's mean over an interval's own frames moved across them (highest less lowest) is
   * at most unchanging_range. An interval without frames of its own starts the count again; one
   * `cutShort` joins its frames to the interval before it, as UnchangingSound does: a few frames'
   * means over a room's noise move by more than the rule allows.
   */
  hasNotChanged(own, cutShort) {
    const bandCount = this.bands.length;
    const sums = new Float64Array(bandCount);
    for (const frame of own) for (let band = 0; band < bandCount; band++) sums[band] += frame[band];
    if (cutShort) {
      const before = this.recentSums.at(-1);
      if (!before) return false;
      const joined = { sums: sums.map((sum, band) => sum + before.sums[band]), frames: before.frames + own.length };
      return this.hasNotChangedOver(this.recentSums.slice(0, -1).concat([joined]));
    }
    if (own.length === 0) {
      this.recentSums = [];
      return false;
    }
    this.recentSums.push({ sums, frames: own.length });
    if (this.recentSums.length > this.unchangingIntervals) this.recentSums.shift();
    return this.hasNotChangedOver(this.recentSums);
  }

  /** Whether over `span`, unchanging_intervals of them, the bands' means moved by at most unchanging_range on average. */
  hasNotChangedOver(span) {
    if (span.length < this.unchangingIntervals) return false;
    const bandCount = this.bands.length;
    let moved = 0;
    for (let band = 0; band < bandCount; band++) {
      const means = span.map((interval) => interval.sums[band] / interval.frames);
      moved += Math.max(...means) - Math.min(...means);
    }
    return moved / bandCount <= this.unchangingRange;
  }

  /** The network over the window's frames, pooled over the interval's (or its last few): {speech, music}. */
  classify(window, context, own) {
    const positions = context + own;
    const judged = Math.max(own, this.fewestJudged);
    if (positions < judged) return null;
    const model = this.model;
    let layer = window.map((frame) => frame.map((value, feature) => (value - model.mean[feature]) / model.scale[feature]));
    for (const convolution of model.convolutions) {
      const outputs = convolution.bias.length, inputs = layer[0].length, kernel = convolution.kernel, reach = Math.floor(kernel / 2);
      layer = layer.map((_, position) => {
        const out = new Array(outputs);
        for (let o = 0; o < outputs; o++) {
          let sum = convolution.bias[o];
          for (let k = 0; k < kernel; k++) {
            const source = position + (k - reach) * convolution.dilation;
            if (source < 0 || source >= positions) continue;
            const values = layer[source];
            for (let i = 0; i < inputs; i++) sum += convolution.weights[(o * inputs + i) * kernel + k] * values[i];
          }
          out[o] = Math.max(0, sum);
        }
        return out;
      });
    }
    const channels = layer[0].length;
    const pooled = new Array(2 * channels).fill(0);
    for (let channel = 0; channel < channels; channel++) pooled[channels + channel] = -Infinity;
    for (let position = positions - judged; position < positions; position++) {
      for (let channel = 0; channel < channels; channel++) {
        pooled[channel] += layer[position][channel];
        pooled[channels + channel] = Math.max(pooled[channels + channel], layer[position][channel]);
      }
    }
    for (let channel = 0; channel < channels; channel++) pooled[channel] /= judged;
    const [speech, music] = model.output.weights.map((row, index) => {
      const sum = row.reduce((total, weight, j) => total + weight * pooled[j], model.output.bias[index]);
      return 1 / (1 + Math.exp(-sum));
    });
    return { speech, music };
  }
}

/**
 * A check-in's whole percents of one class, each the mean of its own and those up to `reach`
 * either side of it, rounded half up: the model's last rule (neighbour_intervals, a reach per
 * class), run once the measurement has ended, as SoundClasses.judgedBesideNeighbours runs it on the
 * same integers.
 */
export function judgedBesideNeighbours(percents, reach) {
  if (!(reach > 0)) return percents;
  return percents.map((_, t) => {
    const near = percents.slice(Math.max(0, t - reach), t + reach + 1);
    return Math.round(near.reduce((sum, p) => sum + p, 0) / near.length);
  });
}
