#!/usr/bin/python3
"""Measures from a venue's "Measure here" page in headless Chromium (Debian's chromium-driver and
python3-selenium), its microphone fed from a WAV file, as a person with a phone would: taps Start,
then does what standard input asks, one command a line, and answers each on standard output:

    seconds N      waits until the page has measured N seconds; prints "measured N"
    elapsed        prints the page's line of the time measured
    stop           taps "Stop and send"; prints "stopped"
    wait TEXT      waits until the page's status or outbox line holds TEXT; prints that line
    rate           prints the sample rate the page measures at
    calibration    prints what the page says of the calibration its levels are shown with
    offset TEXT    types TEXT into the calibration field, as a person does, and leaves the field;
                   prints what the page then says of the calibration
    pause          pauses the page's audio as a phone does when a call comes in or another app
                   takes the microphone (AudioContext.suspend()); prints "paused N", the seconds
                   the page had measured then
    dismiss        taps the first refused check-in's "Dismiss"; prints "dismissed"
    refused        prints the refused check-ins listed, "none" if none
    start          taps "Measure again" after a measurement; prints "started"
    leave          goes to the venue's page, as a tap on a link does; prints "left"
    return         opens the measuring page again, without starting; prints "returned"
    hide, show     hides the page and shows it again, as switching to another app and back does
                   (the browser releasing the screen's wake lock as it hides); print "hidden", "shown"
    awake N        waits until the page holds N screen wake locks; prints "awake N"
    kept           waits until the page says it is kept for use without a connection; prints that
    storage-full   makes this page's storage refuse every write from now on, as a full one (or
                   one some private modes turn off) does; prints "storage full"
    left-levels    prints the level arrays' names, in the order of its body, of the last check-in
                   kept in the browser's storage as a measuring page was left ("none" if none)
    device         prints the device this browser registered as (its JSON, from the page's storage)
    judge R P,P,…  prints, comma-separated, the whole percents P judged beside their neighbours up to R
                   either side by the page's own rule (sound-classes.js, judgedBesideNeighbours)
    unchanging JSON
                   prints, comma-separated, whether the page's rule for a sound that does not change
                   (sound-classes.js, hasNotChanged, as the server's design at 48 kHz sets it) finds
                   each of made-up intervals unchanging, in order: JSON is [[V, F, C], …], an
                   interval of F frames whose first band is V and the others 0, cut short if C
    calibrate DB   types DB as what a sound level meter reads and taps "Calibrate"; waits until the
                   page says how that ended, and prints it
    calibrate-enter DB
                   the same, pressing Enter in the field instead of tapping "Calibrate"
    offset-value   prints what the calibration field holds
    quit           closes the browser

Any failure (a wait of more than 120 s, an element missing) prints "error: ..." and exits 1.

    /usr/bin/python3 scripts/browser-measure.py [--idle] http://127.0.0.1:PORT VENUE_ID FILE.wav [MICROPHONE]

The page is opened and Start tapped; with --idle it is opened only (for `calibrate`, or `start`).

MICROPHONE is what the browser says of the processing it applies to the microphone: "chromium"
(the default: the browser's own answers), "webkit" (as Safari and every browser on an iPhone
answer: echo cancellation is the only switch they name, no automatic gain control or noise
suppression, whether asked for or in the settings), "webkit-echo" (WebKit with echo cancellation
left on), "unreported" (a browser that knows the gain control switch but does not say how it
set it), or a browser that gives none: "denied" (the person refused it), "missing" (none
connected) or "busy" (another app holds it).
"""
import json
import re
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

import headless_chromium

TIMEOUT = 120

# Before the page's own scripts: every AudioContext it makes is kept where `pause` can reach it.
KEEP_AUDIO_CONTEXTS = """
const PageAudioContext = window.AudioContext;
window.hearclearAudioContexts = [];
window.AudioContext = class extends PageAudioContext {
  constructor(...options) {
    super(...options);
    window.hearclearAudioContexts.push(this);
  }
};
// The screen's wake lock and the page's visibility as a phone's browser keeps them: every lock is
// released when the page is hidden. Headless Chromium is always visible and grants no lock.
window.hearclearScreen = { visible: true, locks: [] };
Object.defineProperty(document, "visibilityState", { get: () => (hearclearScreen.visible ? "visible" : "hidden") });
Object.defineProperty(document, "hidden", { get: () => !hearclearScreen.visible });
Object.defineProperty(navigator, "wakeLock", { value: { request: async () => {
  const lock = { released: false, release: async () => { lock.released = true; } };
  hearclearScreen.locks.push(lock);
  return lock;
} } });
"""

# Before the page's own scripts: the microphone as WebKit describes it (MediaTrackSupportedConstraints
# and MediaTrackSettings there name echoCancellation alone).
WEBKIT = """
const supported = navigator.mediaDevices.getSupportedConstraints.bind(navigator.mediaDevices);
navigator.mediaDevices.getSupportedConstraints = () => {
  const names = supported();
  delete names.autoGainControl;
  delete names.noiseSuppression;
  return names;
};
const granted = MediaStreamTrack.prototype.getSettings;
const webkitSettings = function () {
  const settings = granted.call(this);
  delete settings.autoGainControl;
  delete settings.noiseSuppression;
  return settings;
};
MediaStreamTrack.prototype.getSettings = webkitSettings;
"""

# Before the page's own scripts: what the browser says of its microphone's processing.
MICROPHONES = {
    "chromium": "",
    "webkit": WEBKIT,
    # WebKit with its one switch reported on.
    "webkit-echo": WEBKIT + """
MediaStreamTrack.prototype.getSettings = function () {
  return { ...webkitSettings.call(this), echoCancellation: true };
};
""",
    "unreported": """
const granted = MediaStreamTrack.prototype.getSettings;
MediaStreamTrack.prototype.getSettings = function () {
  const settings = granted.call(this);
  delete settings.autoGainControl;
  return settings;
};
""",
}
# A browser that gives no microphone, with the error it names: refused by the person ("denied"),
# none connected ("missing"), or taken by another app ("busy").
for kind, error in (("denied", "NotAllowedError"), ("missing", "NotFoundError"), ("busy", "NotReadableError")):
    MICROPHONES[kind] = f"""
navigator.mediaDevices.getUserMedia = async () => {{ throw new DOMException("no microphone", "{error}"); }};
"""

SET_VISIBLE = """
hearclearScreen.visible = arguments[0];
if (!arguments[0]) hearclearScreen.locks.forEach((lock) => { lock.released = true; });
document.dispatchEvent(new Event("visibilitychange"));
"""

# The page's rule on made-up intervals, in a SoundClassesMeter made from the server's design at 48 kHz.
UNCHANGING = """
const windows = arguments[0];
return (async () => {
  const { SoundClassesMeter } = await import('/public/sound-classes.js');
  const design = (await (await fetch('/api/v2/meter-design?rate=48000')).json()).classes;
  const rule = new SoundClassesMeter(design), bands = design.bands.length;
  return windows.map(([first, frames, cutShort]) =>
    rule.hasNotChanged(Array.from({ length: frames }, () => [first, ...new Array(bands - 1).fill(0)]), cutShort));
})();
"""


def answer(text):
    print(text, flush=True)


def main():
    arguments = [argument for argument in sys.argv[1:] if argument != "--idle"]
    idle = len(arguments) < len(sys.argv) - 1
    base, venue, audio = arguments[0], arguments[1], arguments[2]
    microphone = MICROPHONES[arguments[3] if len(arguments) > 3 else "chromium"]
    driver = headless_chromium.start(
        "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
        # %noloop: the file is played once, then silence, rather than from its start again.
        "--use-file-for-fake-audio-capture=" + audio + "%noloop",
        "--autoplay-policy=no-user-gesture-required",
    )
    wait = WebDriverWait(driver, TIMEOUT)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": KEEP_AUDIO_CONTEXTS + microphone})
        measuring_page = f"{base}/venues/{venue}/measure"
        driver.get(measuring_page)
        wait.until(lambda d: d.find_element(By.ID, "meter").is_displayed())
        if not idle:
            driver.find_element(By.ID, "start").click()
        for line in sys.stdin:
            command, _, argument = line.strip().partition(" ")
            if command == "seconds":
                wanted = int(argument)
                wait.until(lambda d: d.execute_script(
                    "return document.getElementById('elapsed').textContent.match(/^(\\d+):(\\d+) of/)") is not None
                    and measured(d) >= wanted)
                answer(f"measured {measured(driver)}")
            elif command == "elapsed":
                answer(driver.find_element(By.ID, "elapsed").text)
            elif command == "stop":
                wait.until(lambda d: d.find_element(By.ID, "stop").is_enabled())
                driver.find_element(By.ID, "stop").click()
                answer("stopped")
            elif command == "wait":
                wait.until(lambda d: argument in status(d))
                answer(status(driver))
            elif command == "offset":
                field = driver.find_element(By.ID, "calibration")
                field.clear()
                field.send_keys(argument)
                driver.execute_script("arguments[0].blur(); arguments[0].dispatchEvent(new Event('change'))", field)
                answer(driver.find_element(By.ID, "calibration-note").text)
            elif command in ("calibrate", "calibrate-enter"):
                field = driver.find_element(By.ID, "reading")
                field.clear()
                wait.until(lambda d: d.find_element(By.ID, "calibrate").is_enabled())
                if command == "calibrate":
                    field.send_keys(argument)
                    driver.find_element(By.ID, "calibrate").click()
                else:
                    field.send_keys(argument + Keys.ENTER)
                wait.until(lambda d: re.match(r"Leq |Not calibrated|Type what", d.find_element(By.ID, "calibrated").text))
                answer(driver.find_element(By.ID, "calibrated").text)
            elif command == "offset-value":
                answer(driver.find_element(By.ID, "calibration").get_attribute("value"))
            elif command == "calibration":
                answer(driver.find_element(By.ID, "calibration-note").text)
            elif command == "rate":
                answer(re.search(r"\d+", driver.find_element(By.ID, "rate").text).group(0))
            elif command == "pause":
                driver.execute_script("return Promise.all(window.hearclearAudioContexts.map((c) => c.suspend()))")
                answer(f"paused {measured(driver)}")
            elif command == "dismiss":
                listed = len(driver.find_elements(By.CSS_SELECTOR, "#refused li"))
                driver.find_element(By.CSS_SELECTOR, "#refused button").click()
                wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#refused li")) == listed - 1)
                answer("dismissed")
            elif command == "refused":
                answer(" | ".join(item.text for item in driver.find_elements(By.CSS_SELECTOR, "#refused li")) or "none")
            elif command == "start":
                wait.until(lambda d: d.find_element(By.ID, "start").is_enabled())
                driver.find_element(By.ID, "start").click()
                answer("started")
            elif command == "leave":
                driver.get(f"{base}/venues/{venue}")
                answer("left")
            elif command == "return":
                driver.get(measuring_page)
                wait.until(lambda d: d.find_element(By.ID, "meter").is_displayed())
                answer("returned")
            elif command in ("hide", "show"):
                driver.execute_script(SET_VISIBLE, command == "show")
                answer("hidden" if command == "hide" else "shown")
            elif command == "awake":
                wait.until(lambda d: d.execute_script("return hearclearScreen.locks.filter((lock) => !lock.released).length") == int(argument))
                answer(f"awake {argument}")
            elif command == "kept":
                wait.until(lambda d: d.find_element(By.ID, "offline").text != "")
                answer(driver.find_element(By.ID, "offline").text)
            elif command == "storage-full":
                driver.execute_script(
                    "Storage.prototype.setItem = function () {"
                    " throw new DOMException('The quota has been exceeded.', 'QuotaExceededError'); }")
                answer("storage full")
            elif command == "left-levels":
                answer(driver.execute_script(
                    "const left = JSON.parse(localStorage.getItem('hearclear-left') || '[]');"
                    "return left.length ? Object.keys(JSON.parse(left[left.length - 1].body).levels).join(',') : 'none'"))
            elif command == "device":
                answer(driver.execute_script("return localStorage.getItem('hearclear-device')"))
            elif command == "judge":
                reach, percents = argument.split(" ")
                answer(",".join(str(p) for p in driver.execute_script(
                    "return import('/public/sound-classes.js').then((m) => m.judgedBesideNeighbours(arguments[1], arguments[0]))",
                    int(reach), [int(p) for p in percents.split(",")])))
            elif command == "unchanging":
                answer(",".join(str(found).lower() for found in driver.execute_script(UNCHANGING, json.loads(argument))))
            elif command == "quit":
                break
            else:
                answer(f"error: unknown command {command}")
                sys.exit(1)
    except Exception as error:  # Every failure is the test's to report, in one line.
        # One line, so that `make test`'s summary of failures shows the page's status too.
        message = " ".join(str(error).split())
        answer(f"error: {type(error).__name__}: {message}; status: {status(driver)}")
        sys.exit(1)
    finally:
        driver.quit()


def measured(driver):
    text = driver.find_element(By.ID, "elapsed").text
    minutes, seconds = text.split(" ")[0].split(":")
    return int(minutes) * 60 + int(seconds)


def status(driver):
    try:
        return " | ".join(driver.find_element(By.ID, name).text for name in ("status", "outbox", "refused"))
    except Exception:
        return "(no page)"


if __name__ == "__main__":
    main()
