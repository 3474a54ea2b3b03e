// "Measure here" (docs/public-pages.md): after a tap, the phone's microphone, raw, through the
// meter the server designed (meter-worklet.js), shown live; at the end a check-in of API v2 for
// this venue, kept in the outbox (outbox.js) until the server has it.
import * as outbox from "./outbox.js";
import { judgedBesideNeighbours } from "./sound-classes.js";

const meter = document.getElementById("meter");
const venue = meter.dataset.venue;
const duration = Number(meter.dataset.seconds);
const element = (id) => document.getElementById(id);
const [levelText, historyLine, elapsedText, startButton, stopButton] = ["level", "history-line", "elapsed", "start", "stop"].map(element);
const [announce, statusText, outboxText, refusedList, calibrationField, calibrationNote, rateText, deviceText, forgetButton, offlineText] =
  ["announce", "status", "outbox", "refused", "calibration", "calibration-note", "rate", "device", "forget", "offline"].map(element);
const [readingField, calibrateButton, calibrationProgress, calibratedText] = ["reading", "calibrate", "calibration-progress", "calibrated"].map(element);

const CALIBRATION_KEY = "hearclear-calibration";
const HISTORY_SECONDS = 60;
/** How often the level is said to a screen reader: every second would drown everything else. */
const ANNOUNCE_EVERY = 15;

let session = null;
const retry = { timer: null, delay: 2000 };

/** A level as the columns carry it, tenths of a dB, never above full scale (Level.uploaded): halves away from zero, as Swift rounds. */
function tenths(level) {
  const x = level * 10;
  return Math.min(0, Math.sign(x) * Math.round(Math.abs(x)));
}

function minutesAndSeconds(seconds) {
  return `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, "0")}`;
}

/**
 * The dB a number field holds, or null when it holds none within the field's bounds (the server
 * renders them from a calibration's range, Level.plausibleDB).
 */
function decibels(field) {
  const text = field.value.trim();
  if (text === "") return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= Number(field.min) && value <= Number(field.max) ? value : null;
}

/** "between 0 and 200": the bounds of a field, for the sentence that asks for a value within them. */
function bounds(field) {
  return `between ${field.min} and ${field.max}`;
}

/** The person's calibration offset, or null: the server then applies its own. */
function calibration() {
  return decibels(calibrationField);
}

/**
 * Why the calibration field cannot be used, or null. A number field holding what the browser
 * cannot read as one ("105,5" where numbers take a point) reports its value as empty, as if
 * nothing had been typed: its validity says otherwise.
 */
function calibrationProblem() {
  const typed = calibrationField.validity.badInput || calibrationField.value.trim() !== "";
  return typed && calibration() === null ? `the calibration offset must be a number of dB ${bounds(calibrationField)}` : null;
}

/** What a session's levels are shown and judged with: the person's offset, else the server's for this browser. */
function offsetOf(session) {
  return session.calibration ?? session.serverCalibration.calibration_db;
}

/**
 * The server's JSON answer at `address`, kept under `key` for the next time this browser is
 * offline; the one kept when the server cannot answer, else the failure.
 */
async function answerKept(address, key) {
  try {
    const response = await fetch(address);
    if (!response.ok) throw new Error((await response.json().catch(() => null))?.error?.message ?? `the server answered ${response.status}`);
    const answer = await response.json();
    localStorage.setItem(key, JSON.stringify(answer));
    return answer;
  } catch (error) {
    const kept = JSON.parse(localStorage.getItem(key) ?? "null");
    if (kept === null) throw error;
    return kept;
  }
}

/**
 * What the server will add to this browser's levels when the person gives no offset: the one its
 * operators set for this browser's model, else its default (GET /api/v2/calibration); kept for
 * the next time this browser is offline, else the design's default.
 */
async function serverCalibration(model, fallback) {
  return answerKept(`/api/v2/calibration?model=${encodeURIComponent(model)}`, `hearclear-server-calibration-${model}`)
    .catch(() => ({ model, calibration_db: fallback, source: "default" }));
}

/** The design the server made for this rate, kept for the next time this browser is offline. */
async function design(rate) {
  return answerKept(`/api/v2/meter-design?rate=${rate}`, `hearclear-meter-design-${rate}`).catch((error) => {
    throw new Error(`The meter's filters for ${rate} Hz could not be fetched from the server (${error.message}).`);
  });
}

/**
 * What the browser granted, against what a measurement needs: none of the processing that changes
 * levels. Automatic gain control must be reported off; a browser that knows the switch and does not
 * say is not trusted. WebKit (Safari, and every browser on an iPhone) has no such switch: its one
 * is echo cancellation, and with it off it bypasses its voice processing whole, gain control and
 * noise suppression included (WebKit's CoreAudioSharedUnit), so there echo cancellation reported
 * off is gain control off.
 */
function refusals(settings) {
  const problems = [];
  const gainSwitch = hasGainSwitch();
  const gainOff = settings.autoGainControl === false || (!gainSwitch && settings.echoCancellation === false);
  if (!gainOff) {
    problems.push("automatic gain control (it turns quiet rooms up and loud ones down)" + (gainSwitch
      ? " is " + (settings.autoGainControl ? "on" : "not reported off")
      : ", which this browser turns off only with echo cancellation"));
  }
  if (settings.noiseSuppression === true) problems.push("noise suppression (it removes the noise we want to measure) is on");
  if (settings.echoCancellation === true) problems.push("echo cancellation is on");
  return problems;
}

/** Whether the browser names an automatic gain control switch: WebKit does not. */
function hasGainSwitch() {
  return navigator.mediaDevices.getSupportedConstraints().autoGainControl === true;
}

/** Why levels from this browser would not be the microphone's (`refusals`), and where else to measure. */
function unprocessed(problems) {
  return `this browser did not turn off what would change its levels (${problems.join("; ")}). ${elsewhere()}`;
}

/**
 * Where else a refused measurement may be made. On an iPhone every browser is WebKit, whose one
 * switch this one left on, so another browser there would be refused alike.
 */
function elsewhere() {
  return hasGainSwitch()
    ? "Another browser on this phone may."
    : "On an iPhone every browser measures through Safari's engine, so another one there will not; an Android phone's browser or a computer's may.";
}

/**
 * The microphone, raw, through the meter the server designed for its rate (meter-worklet.js), not
 * yet listened to (`listen`); with what the browser did not turn off that would change its levels.
 * `interrupted(reason)` is told when the sound stops reaching the meter. Throws an Error that
 * says why there is none.
 */
async function openMeter(interrupted) {
  let stream;
  try {
    // 48 kHz where the microphone can: the rate most phones' audio runs at natively, so that
    // nothing is resampled before the filters.
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, sampleRate: { ideal: 48000 }, channelCount: { ideal: 1 } },
    });
  } catch (error) {
    throw new Error(`The microphone is not available: ${microphoneProblem(error)}.`);
  }
  const track = stream.getAudioTracks()[0];
  const settings = track.getSettings();
  try {
    // At the microphone's own rate where the browser says it, so nothing is resampled before the filters.
    const context = new AudioContext(settings.sampleRate ? { sampleRate: settings.sampleRate } : {});
    const filters = await design(context.sampleRate);
    await context.audioWorklet.addModule("/public/meter-worklet.js");
    const node = new AudioWorkletNode(context, "hearclear-meter", { numberOfInputs: 1, numberOfOutputs: 0, processorOptions: { design: filters } });
    // Seconds carry no time of their own: were the sound to come back after a pause, they would be
    // filed under the times of the seconds it missed. So a pause ends the measurement there.
    context.onstatechange = () => { if (context.state !== "running") interrupted("the browser paused the sound (a call, another app taking the microphone, or the screen locking)"); };
    track.onended = () => interrupted("the microphone was turned off or disconnected");
    // A muted track delivers silence, which would be measured as a quiet room.
    track.onmute = () => interrupted("the browser muted the microphone");
    return { stream, context, node, filters, problems: refusals(settings) };
  } catch (error) {
    stream.getTracks().forEach((t) => t.stop());
    throw new Error(`Measuring cannot start in this browser: ${error.message}`);
  }
}

/** Starts the meter's sound, its seconds handed to `received`. */
function listen(meter, received) {
  meter.node.port.onmessage = (event) => received(event.data);
  meter.context.createMediaStreamSource(meter.stream).connect(meter.node);
  return meter.context.resume();
}

/** Ends a meter's sound, and the microphone with it. */
function closeMeter(meter) {
  meter.stream.getTracks().forEach((t) => t.stop());
  // Not awaited: nothing waits for the audio to close.
  meter.context.close().catch(() => {});
}

/** Measuring and calibrating each take the microphone: one at a time. */
function microphoneBusy(busy) {
  startButton.disabled = busy;
  calibrateButton.disabled = busy;
}

async function start() {
  const problem = calibrationProblem();
  if (problem) {
    // Measured with another calibration than the one typed, the levels shown would not be the person's.
    statusText.textContent = `Not started: ${problem} (or leave the field empty for the server's).`;
    calibrationField.focus();
    return;
  }
  microphoneBusy(true);
  // A measurement again: nothing of the last one's may read as this one's.
  levelText.textContent = "–";
  elapsedText.textContent = "";
  historyLine.setAttribute("points", "");
  statusText.textContent = "Asking for the microphone…";
  let meter;
  try {
    meter = await openMeter(interrupted);
  } catch (error) {
    statusText.textContent = error.message;
    microphoneBusy(false);
    return;
  }
  const { stream, context, node, filters, problems } = meter;
  const applied = await serverCalibration(outbox.browserModel(navigator.userAgent), filters.default_calibration_db);
  // A design kept from a server that did not say from which probability a class counts: no classes sent.
  const detected = filters.classes?.detected ?? null;
  session = {
    stream, context, node, problems, rate: context.sampleRate, details: filters.bands !== null,
    classesModel: detected !== null ? filters.classes.model.version : null, detected, loudEvents: filters.loud_events ?? null,
    // A model from before the neighbour rule judges each second alone.
    neighbourIntervals: (detected !== null && filters.classes.model.neighbour_intervals) || { speech: 0, music: 0 },
    fewestCounted: filters.fewest_counted_intervals ?? null, silence: filters.silence_db ?? null,
    calibration: calibration(), serverCalibration: applied, startedAt: new Date(), intervals: [], wakeLock: null,
  };
  try {
    await listen(meter, received);
  } catch (error) {
    session = null;
    closeMeter(meter);
    statusText.textContent = `Measuring cannot start in this browser: ${error.message}`;
    microphoneBusy(false);
    return;
  }
  // Not awaited: the seconds are timed from startedAt, whatever the browser takes to answer.
  keepAwake(session);
  startButton.hidden = true;
  stopButton.hidden = false;
  stopButton.disabled = false;
  stopButton.focus();
  const offset = offsetOf(session);
  calibrationNote.textContent = session.calibration !== null
    ? `Calibrated: ${offset} dB added.`
    : applied.source === "model"
      ? `Uncalibrated: shown with ${offset} dB added, the calibration this server's operators set for ${applied.model}, as the server will apply it.`
      : `Uncalibrated: shown with ${offset} dB added, this server's default, as no calibration is set for ${applied.model}.`;
  rateText.textContent = `The microphone's sound arrives at ${session.rate} samples a second, through filters the server designed for that rate.`;
  statusText.textContent = problems.length
    ? `Measuring, but this check-in will not be sent: ${unprocessed(problems)}`
    : `Measuring for ${minutesAndSeconds(duration)} unless you stop. Keep this page open and the phone still, away from your mouth.`;
}

/** The calibration under way against a sound level meter, or null. */
let calibrating = null;

/**
 * "Calibrate": the phone beside a sound level meter in a steady sound, as `hearclear calibrate
 * --reading` does on a computer: listens for the design's `calibration.measured_s`, then sets the
 * offset to the meter's reading less the microphone's Leq. Nothing is sent: a calibration is no
 * check-in of the venue.
 */
async function calibrate() {
  const reading = decibels(readingField);
  if (reading === null) {
    calibratedText.textContent = `Type what the sound level meter reads, in dB(A) (a number ${bounds(readingField)}), then tap Calibrate.`;
    readingField.focus();
    return;
  }
  microphoneBusy(true);
  calibrationProgress.textContent = "";
  calibratedText.textContent = "Asking for the microphone…";
  const current = { reading, intervals: [], meter: null };
  calibrating = current;
  try {
    current.meter = await openMeter((reason) => calibrated(current, reason));
  } catch (error) {
    calibrating = null;
    calibratedText.textContent = `Not calibrated: ${error.message}`;
    microphoneBusy(false);
    return;
  }
  const { filters, problems } = current.meter;
  // What the browser turns up or down, or a design kept from a server that did not say the rule,
  // would make the difference something other than this microphone's.
  const refusal = problems.length
    ? unprocessed(problems)
    : filters.calibration ? null : "this browser keeps the meter's design of an older server, which does not say how to calibrate: try again online";
  if (refusal) return calibrated(current, refusal);
  current.rule = filters.calibration;
  const wanted = Math.round(current.rule.measured_s / filters.interval_s);
  calibratedText.textContent = `Listening to the steady sound for ${minutesAndSeconds(current.rule.measured_s)}: keep the phone beside the meter, and the sound steady.`;
  try {
    await listen(current.meter, (message) => {
      if (message.type !== "interval" || calibrating !== current) return;
      current.intervals.push(message);
      calibrationProgress.textContent = `${minutesAndSeconds(current.intervals.length * filters.interval_s)} of ${minutesAndSeconds(current.rule.measured_s)}: ${message.avg.toFixed(1)} dBFS`;
      if (current.intervals.length >= wanted) calibrated(current, null);
    });
  } catch (error) {
    calibrated(current, `the browser would not play the microphone's sound (${error.message})`);
  }
}

/**
 * Ends a calibration: with what stopped it early (`interruption`), else with the calibration its
 * intervals make, which is saved as the person's offset.
 */
function calibrated(current, interruption) {
  if (calibrating !== current) return;
  calibrating = null;
  closeMeter(current.meter);
  microphoneBusy(false);
  if (interruption) {
    calibratedText.textContent = `Not calibrated: ${interruption}. The offset was not changed.`;
    return;
  }
  const seconds = current.intervals.length * current.meter.filters.interval_s;
  const outcome = calibrationFrom(current.reading, current.intervals, seconds, current.rule);
  if (outcome.problem) {
    calibratedText.textContent = `Not calibrated: ${outcome.problem}. The offset was not changed.`;
    return;
  }
  calibrationField.value = String(outcome.calibration);
  localStorage.setItem(CALIBRATION_KEY, calibrationField.value);
  calibrationNote.textContent = "";
  calibratedText.textContent = `Leq ${outcome.leq.toFixed(2)} dBFS over ${minutesAndSeconds(seconds)}, steady within ${outcome.range.toFixed(1)} dB: `
    + `${current.reading} dB(A) on the meter makes the calibration ${outcome.calibration} dB. Saved as this browser's offset: the levels shown and sent from now on carry it.`;
}

/**
 * MicrophoneCalibration's rule (Sources/HearClearClient) with the design's limits, over full
 * intervals of `seconds` in all: the meter's reading less the Leq, to the tenth of a dB (halves
 * away from zero, as Swift rounds); `{ problem }` where the difference would not be the microphone's,
 * in the CLI's words and order.
 */
function calibrationFrom(reading, intervals, seconds, rule) {
  const leq = 10 * Math.log10(intervals.reduce((sum, interval) => sum + 10 ** (interval.avg / 10), 0) / intervals.length);
  if (leq < rule.quietest_dbfs) return { problem: `the microphone heard almost nothing (Leq ${leq.toFixed(1)} dBFS): is it muted, or is the sound too far from it?` };
  const peak = Math.max(...intervals.map((interval) => interval.peak));
  if (peak >= rule.loudest_peak_dbfs) {
    return { problem: `the sound reached the microphone's full scale (peak ${peak.toFixed(1)} dBFS), so it reads lower than it is: turn the sound down, or move the phone away from it` };
  }
  const levels = intervals.map((interval) => interval.avg);
  const range = Math.max(...levels) - Math.min(...levels);
  if (range > rule.steady_within_db) {
    return {
      problem: `the sound was not steady: its level moved over ${range.toFixed(1)} dB in ${minutesAndSeconds(seconds)}, so the meter and the microphone may have read different moments of it. `
        + `Calibrate against a steady sound (pink noise, a fan), within ${rule.steady_within_db} dB`,
    };
  }
  const difference = (reading - leq) * 10;
  const calibration = Math.sign(difference) * Math.round(Math.abs(difference)) / 10;
  const [lowest, highest] = rule.plausible_db;
  if (calibration < lowest || calibration > highest) {
    return { problem: `the reading and the microphone's level give a calibration of ${calibration.toFixed(1)} dB, and a calibration must be between ${lowest} and ${highest} dB: is the reading in dB?` };
  }
  return { leq, range, calibration };
}

/**
 * Why the browser gave no microphone, and what the person can do about it, by the error it named
 * (Media Capture and Streams, getUserMedia): allowing it in the settings helps only where it was
 * refused.
 */
function microphoneProblem(error) {
  if (!window.isSecureContext || !navigator.mediaDevices) {
    return "browsers give the microphone only to pages served over HTTPS (or from this computer), and this one is not";
  }
  switch (error.name) {
    case "NotAllowedError":
    case "SecurityError":
      return "this site may not use it: allow the microphone for it in the browser's settings (on a phone, for the browser in the phone's settings too) and try again";
    case "NotFoundError":
    case "OverconstrainedError":
      return "this device has none the browser can use: connect one, or measure from a phone";
    case "NotReadableError":
    case "AbortError":
      return "something else is using it, such as a call or a recording app: end that and try again";
    default:
      return `the browser said ${error.name}: allow the microphone for this site in the browser's settings and try again`;
  }
}

/**
 * The screen kept on while a session measures, where the browser allows (Wake Lock): a phone
 * that locks its screen pauses the sound, which ends the measurement. A browser releases the lock
 * whenever the page is hidden, so it is asked for again when the page is shown.
 */
async function keepAwake(current) {
  if (!navigator.wakeLock || document.visibilityState !== "visible" || (current.wakeLock && !current.wakeLock.released)) return;
  current.wakeLock = await navigator.wakeLock.request("screen").catch(() => null);
  // Finished while the browser answered: the lock is not wanted any more.
  if (session !== current && current.wakeLock) current.wakeLock.release().catch(() => {});
}

function received(message) {
  if (message.type === "finished") return finished();
  if (message.type !== "interval" || !session) return;
  session.intervals.push(message);
  const seconds = session.intervals.length;
  const shown = message.avg + offsetOf(session);
  levelText.textContent = shown.toFixed(0);
  // Stopped sooner, a check-in is stored but does not count: said while it would not.
  const counts = session.fewestCounted !== null && seconds < session.fewestCounted ? `, counts from ${minutesAndSeconds(session.fewestCounted)}` : "";
  // Silence is no quiet room: the server drops it, and the person can still unmute (the CLI's words).
  const silent = session.silence !== null && message.avg < session.silence;
  elapsedText.textContent = `${minutesAndSeconds(seconds)} of ${minutesAndSeconds(duration)} measured${counts}`
    + (silent ? " · no sound: is the microphone muted?" : message.classes && session.detected !== null ? ` · ${heard(message.classes, session.detected)}` : "");
  drawHistory();
  if (seconds % ANNOUNCE_EVERY === 0) announce.textContent = `${shown.toFixed(0)} decibels A, ${minutesAndSeconds(seconds)} measured`;
  if (seconds >= duration) stop();
}

/** What a second held, in the words of the CLI's live line: a probability counts from `detected`, to the whole percent. */
function heard(classes, detected) {
  const speech = percent(classes.speech) / 100 >= detected, music = percent(classes.music) / 100 >= detected;
  return speech && music ? "speech and music" : speech ? "speech" : music ? "music" : "other";
}

/** A probability as the columns carry it: whole percent, halves up, as Swift rounds. */
function percent(probability) {
  return Math.round(probability * 100);
}

function drawHistory() {
  const recent = session.intervals.slice(-HISTORY_SECONDS);
  const offset = offsetOf(session);
  // 30 to 110 dB(A) from the bottom of the 40-unit box to its top.
  historyLine.setAttribute("points", recent.map((interval, index) => {
    const level = Math.min(110, Math.max(30, interval.avg + offset));
    return `${index + HISTORY_SECONDS - recent.length},${(40 - (level - 30) / 2).toFixed(2)}`;
  }).join(" "));
}

/** What ended a measurement early, said with its check-in, by its id. */
const interruptions = new Map();

/** The sound stopped reaching the meter while it measured: what it measured until then is sent. */
function interrupted(reason) {
  if (!session || session.stopping) return;
  session.interruption = `Stopped at ${minutesAndSeconds(session.intervals.length)}: ${reason}. `;
  stop();
}

/** How long the audio thread has to hand over the last, partial second before the check-in is made without it. */
const FINISH_WAIT_MS = 3000;

function stop() {
  if (!session || session.stopping) return;
  session.stopping = true;
  stopButton.disabled = true;
  statusText.textContent = "Finishing…";
  session.node.port.postMessage({ type: "finish" });
  // A browser that stalls its audio thread (a phone saving power) must not hold the measured seconds hostage.
  const stopping = session;
  setTimeout(() => { if (session === stopping) finished(); }, FINISH_WAIT_MS);
}

/**
 * The loud events of a check-in's seconds, by LoudEventDetector's rule (docs/client.md), on the
 * seconds as they go up: a second whose peak, calibrated, reaches the design's threshold is loud;
 * loud seconds starting within the merge window of an event's first belong to it; an event says
 * what its seconds up to its last loud one mostly held (SoundClasses.dominant).
 */
function loudEvents(peaks, classes, calibration, rule, detected) {
  const events = [];
  let current = null;
  const close = () => {
    if (!current) return;
    const event = { t: current.start, peak: current.peak, duration_s: current.end - current.start };
    const held = dominant(classes ? classes.slice(current.start, current.end) : [], detected);
    if (held !== null) event.class = held;
    events.push(event);
    current = null;
  };
  peaks.forEach((peak, t) => {
    if (peak + calibration < rule.threshold_db) return;
    if (current && t - current.start < rule.merge_window_s) {
      current.end = t + 1;
      current.peak = Math.max(current.peak, peak);
      return;
    }
    close();
    current = { start: t, end: t + 1, peak };
  });
  close();
  return events;
}

/** What seconds mostly held: the class whose mean probability is higher (speech on a tie), if it reaches `detected`; null unclassified. */
function dominant(held, detected) {
  if (held.length === 0) return null;
  const mean = (kind) => held.reduce((sum, second) => sum + second[kind], 0) / held.length;
  const [speech, music] = [mean("speech"), mean("music")];
  const best = music > speech ? ["music", music] : ["speech", speech];
  return best[1] >= detected ? best[0] : "other";
}

/** The check-in of API v2 the intervals make. */
function checkIn(current) {
  const column = (read) => current.intervals.map((interval) => tenths(read(interval)));
  // In the order the CLI writes them (CheckInV2.Levels.CodingKeys), each beside the array it most
  // resembles, which gzip packs a few percent tighter (docs/api.md, "The order of the arrays").
  const levels = current.details
    ? {
      peak: column((i) => i.peak), oct_4000: column((i) => i.details.octaves[3]), oct_2000: column((i) => i.details.octaves[2]),
      oct_1000: column((i) => i.details.octaves[1]), oct_500: column((i) => i.details.octaves[0]), avg: column((i) => i.avg),
      c_avg: column((i) => i.details.cAvg), fast_max: column((i) => i.details.fastMax),
    }
    : { peak: column((i) => i.peak), avg: column((i) => i.avg) };
  const body = {
    id: timeOrderedId(current.startedAt), venue_id: venue, started_at: current.startedAt.toISOString(), interval_s: 1, weighting: "A", levels,
  };
  if (current.calibration !== null) body.calibration_db = current.calibration;
  // As the CLI sends them: only when every interval was judged (API v2 carries none otherwise).
  if (current.classesModel !== null && current.intervals.every((interval) => interval.classes)) {
    const judged = (kind) => judgedBesideNeighbours(current.intervals.map((i) => percent(i.classes[kind])), current.neighbourIntervals[kind]);
    body.classes = { speech: judged("speech"), music: judged("music") };
    body.classes_model = current.classesModel;
  }
  // From the seconds as they go up (tenths, whole percent), as the CLI finds them when it seals a
  // check-in; none by a design kept from a server that did not say the rule.
  const sent = body.classes && body.classes.speech.map((speech, t) => ({ speech: speech / 100, music: body.classes.music[t] / 100 }));
  body.events = current.loudEvents
    ? loudEvents(levels.peak.map((tenth) => tenth / 10), sent, offsetOf(current), current.loudEvents, current.detected)
    : [];
  return body;
}

/** A session's check-in as the outbox keeps it. */
function outboxEntry(current) {
  const body = checkIn(current);
  return { id: body.id, venue, body: JSON.stringify(body), seconds: current.intervals.length, savedAt: Date.now() };
}

/**
 * Leaving the page while it measures (a link, the back button, closing the tab) ends the
 * measurement there, as Ctrl-C ends the client's: what was measured is kept and sent. The page may
 * be gone before an IndexedDB write or an upload of its own ends, so the check-in is handed over
 * the ways that outlive it (outbox.keepWhileLeaving); the audio goes with the page.
 */
function left() {
  const current = session;
  if (!current || current.intervals.length === 0 || current.problems.length) return;
  // Kept once: a later second from the audio thread would make other bytes under the same id.
  session = null;
  outbox.keepWhileLeaving(outboxEntry(current));
  current.stream.getTracks().forEach((t) => t.stop());
}

/**
 * A version 7 UUID (RFC 9562) at `date`, as the CLI makes a check-in's id: its milliseconds first,
 * so that the server's index of check-in ids grows at its end. crypto.randomUUID makes version 4.
 */
function timeOrderedId(date) {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let milliseconds = date.getTime();
  for (let i = 5; i >= 0; i--) {
    bytes[i] = milliseconds % 256;
    milliseconds = Math.floor(milliseconds / 256);
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join("-");
}

async function finished() {
  const current = session;
  if (!current) return;
  session = null;
  // The check-in is kept first, whatever closing the audio takes.
  closeMeter(current);
  if (current.wakeLock) current.wakeLock.release().catch(() => {});
  stopButton.hidden = true;
  startButton.hidden = false;
  microphoneBusy(false);
  startButton.textContent = "Measure again";
  const early = current.interruption ?? "";
  if (current.intervals.length === 0) {
    statusText.textContent = early + "Nothing was measured: the microphone sent no sound.";
    return;
  }
  if (current.problems.length) {
    statusText.textContent = early + `Not sent: ${unprocessed(current.problems)}`;
    return;
  }
  const entry = outboxEntry(current);
  try {
    await outbox.keep(entry);
  } catch (error) {
    statusText.textContent = early + `Not sent: this browser would not keep the check-in until the server has it (${error.message}; private browsing may turn its storage off).`;
    return;
  }
  if (early) interruptions.set(entry.id, early);
  statusText.textContent = early + "Sending…";
  const result = await send();
  if (!result.stored.some((stored) => stored.entry.id === entry.id)) {
    statusText.textContent = early + (result.waiting.some((waiting) => waiting.id === entry.id)
      ? "Measured and kept in this browser, not sent yet (below)."
      : "Measured, but the server would not store it (below).");
  }
}

/** What the server decided about a stored check-in, in words (CheckInStatus). */
const verdicts = {
  accepted: "",
  too_short: " It was too short to count towards the venue's levels.",
  outlier: " It reads far from what others measured here at this hour, so it is kept but not counted unless more measurements agree.",
};

/** One sending at a time: the timer, the browser coming online and a new check-in may all ask at once. */
let sending = Promise.resolve();

function send() {
  sending = sending.then(sendWaiting, sendWaiting);
  return sending;
}

/** Sends what waits and says how it went (and returns it); what is still waiting is tried again later, less and less often. */
async function sendWaiting() {
  clearTimeout(retry.timer);
  const result = await outbox.send();
  for (const { entry, receipt } of result.stored) {
    const level = receipt.level_db === null || receipt.level_db === undefined ? "" : `, ${Math.round(receipt.level_db)} dB(A) on average`;
    // A check-in of nothing but silence is too short by the rules, but "too short" is not why.
    const silent = receipt.status === "too_short" && receipt.samples > 0 && receipt.dropped_samples === receipt.samples;
    statusText.textContent = (interruptions.get(entry.id) ?? "") + `Thank you: ${lasting(entry.seconds)} measured${level}. Stored for this venue${entry.venue === venue ? "" : ` (${entry.venue})`}.` +
      (silent ? " No second of it held sound: the microphone gave silence (was it muted?), so it does not count." : verdicts[receipt.status] ?? "");
    interruptions.delete(entry.id);
  }
  showRefused(result.refused);
  if (result.waiting.length) {
    outboxText.textContent = `Waiting to send ${result.waiting.length} check-in${result.waiting.length > 1 ? "s" : ""}: ${result.problem}. ` +
      "It is kept in this browser and sent when the server can be reached; you may close this page and come back.";
    retry.timer = setTimeout(send, retry.delay);
    retry.delay = Math.min(retry.delay * 2, 120000);
  } else {
    outboxText.textContent = "";
    retry.delay = 2000;
  }
  showDevice();
  return result;
}

function lasting(seconds) {
  return seconds >= 60 ? `${Math.round(seconds / 60)} min` : `${seconds} s`;
}

/**
 * The check-ins the server refused for good, each with its reason, until the person dismisses it:
 * it is never sent again, and a list that only grew would bury what the page says now.
 */
function showRefused(refused) {
  refusedList.replaceChildren(...refused.map(({ entry, reason }) => {
    const item = document.createElement("li");
    const place = entry.venue === venue ? "" : ` at ${entry.venue}`;
    item.append(`The check-in of ${lasting(entry.seconds)}${place} measured ${new Date(entry.savedAt).toLocaleString()} was refused by the server: ${reason}`);
    const dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.textContent = "Dismiss";
    dismiss.setAttribute("aria-label", `Dismiss the refused check-in of ${lasting(entry.seconds)}${place}`);
    dismiss.addEventListener("click", async () => {
      await outbox.dismiss(entry.id);
      // Focus goes where the next thing to read is, not back to the top of the page.
      (item.nextElementSibling ?? item.previousElementSibling)?.querySelector("button")?.focus();
      item.remove();
      refusedList.hidden = refusedList.childElementCount === 0;
    });
    item.append(" ", dismiss);
    return item;
  }));
  refusedList.hidden = refused.length === 0;
}

function showDevice() {
  const known = outbox.device() !== null;
  forgetButton.hidden = !known;
  deviceText.textContent = known
    ? "This browser is registered as a measuring device: its key is kept here and sent only to this server."
    : "This browser keeps a device key (never shown or sent anywhere but to this server) once it has sent a check-in.";
}

async function forget() {
  forgetButton.disabled = true;
  try {
    await outbox.forget();
    navigator.serviceWorker?.controller?.postMessage({ forget: true });
    offlineText.textContent = "";
    outboxText.textContent = "";
    showRefused([]);
    statusText.textContent = "Forgotten: the server deleted this browser's device and its check-ins, and this browser its key, waiting check-ins and the pages it kept.";
  } catch (error) {
    statusText.textContent = `Could not forget this browser now (${error.message}); nothing was deleted. Try again when online.`;
  }
  forgetButton.disabled = false;
  showDevice();
}

/**
 * Asks the service worker (measure-worker.js) to keep this page and its scripts, so that it opens
 * and measures where the server cannot be reached; says so once they are kept.
 */
async function keepForOffline() {
  if (!("serviceWorker" in navigator)) return;
  try {
    await navigator.serviceWorker.register("/public/measure-worker.js", { scope: "/venues/" });
    const worker = (await navigator.serviceWorker.ready).active;
    navigator.serviceWorker.addEventListener("message", (event) => {
      if (event.data?.kept === location.pathname) {
        offlineText.textContent = "This page is kept in this browser: it opens and measures without a connection, and what it measures is sent once the server can be reached.";
      }
    });
    worker.postMessage({ keep: location.pathname });
  } catch {
    // Without a worker (private browsing may refuse one) the page needs the server to open.
  }
}

calibrationField.value = localStorage.getItem(CALIBRATION_KEY) ?? "";
calibrationField.addEventListener("change", () => {
  const problem = calibrationProblem();
  if (problem) {
    calibrationNote.textContent = problem[0].toUpperCase() + problem.slice(1) + ".";
    return;
  }
  calibrationNote.textContent = "";
  localStorage.setItem(CALIBRATION_KEY, calibrationField.value.trim());
});
startButton.addEventListener("click", start);
calibrateButton.addEventListener("click", calibrate);
// The reading typed, Enter calibrates, as it would submit a form of one field.
readingField.addEventListener("keydown", (event) => { if (event.key === "Enter" && !calibrateButton.disabled) calibrate(); });
stopButton.addEventListener("click", stop);
forgetButton.addEventListener("click", forget);
window.addEventListener("online", send);
window.addEventListener("pagehide", left);
document.addEventListener("visibilitychange", () => { if (session && !session.stopping) keepAwake(session); });
meter.hidden = false;
showDevice();
keepForOffline();
outbox.entries().then((waiting) => { if (waiting.length) send(); });
