#!/usr/bin/python3
"""What the order of a v2 body's level arrays does to its gzipped size, on recordings the bench's
wire size case does not use: six voices of espeak-ng reading six licence texts, eight of Planet
Blupi's tunes (the bench plays the second, music001) and each voice over a tune, every one over
the bench's −60 dBFS pink noise, 5 minutes at 48 kHz. Each is measured by `hearclear analyze
--json`; its eight series are written as the client writes them (integer tenths, no spaces) in
each order, then gzipped at zlib's strongest level, as the client does. Prints bytes per interval.

    /usr/bin/python3 scripts/wire-orders.py .build/release/hearclear WORK_FOLDER

Needs espeak-ng, sox and planetblupi-music-ogg (`make bench` installs them).
"""
import json
import os
import subprocess
import sys
import zlib

ORDERS = {
    "sorted": ["avg", "c_avg", "fast_max", "oct_1000", "oct_2000", "oct_4000", "oct_500", "peak"],
    "avg, peak, details": ["avg", "peak", "fast_max", "c_avg", "oct_500", "oct_1000", "oct_2000", "oct_4000"],
    # The order CheckInV2.Levels.CodingKeys declares (CheckInV2.body writes it)
    "chain": ["peak", "oct_4000", "oct_2000", "oct_1000", "oct_500", "avg", "c_avg", "fast_max"],
}
HEADER = ('"calibration_db":110,"events":[],"id":"0D9F2C1E-3B7A-4C5D-9E8F-1A2B3C4D5E6F","interval_s":1,'
          '"started_at":"2026-09-21T12:26:40Z","venue_id":"v1","weighting":"A"')
FORMAT = ["-r", "48000", "-c", "1"]
VOICES = [("GPL-2", "en"), ("Apache-2.0", "en-us"), ("LGPL-2.1", "fr"), ("Artistic", "de"), ("MPL-2.0", "es"), ("CC0-1.0", "en+f3")]
TUNES = [f"/usr/share/planetblupi/music/music00{n}.ogg" for n in range(2, 10)]


def sox(*arguments):
    subprocess.run(["sox", *arguments], check=True, stderr=subprocess.DEVNULL)


def recordings(work):
    noise = os.path.join(work, "noise.wav")
    sox("-n", *FORMAT, noise, "synth", "300", "pinknoise", "vol", "0.001")
    voices = []
    for number, (text, voice) in enumerate(VOICES):
        spoken, trimmed = os.path.join(work, f"espeak{number}.wav"), os.path.join(work, f"voice{number}.wav")
        with open(f"/usr/share/common-licenses/{text}", encoding="utf-8") as licence:
            words = licence.read()[:9000]
        subprocess.run(["espeak-ng", "-v", voice, "-w", spoken, words], check=True)
        sox(spoken, *FORMAT, trimmed, "trim", "0", "300")
        voices.append((f"speech {voice} ({text})", trimmed))
    tunes = []
    for tune in TUNES:
        trimmed = os.path.join(work, os.path.basename(tune) + ".wav")
        sox(tune, *FORMAT, trimmed, "trim", "0", "300")
        tunes.append((f"music {os.path.basename(tune)}", trimmed))
    made = []
    for name, file in voices + tunes:
        mixed = file + ".noise.wav"
        sox("-m", "-v", "1", file, "-v", "1", noise, mixed)
        made.append((name, mixed))
    for (voice, spoken), (tune, played) in zip(voices, tunes[1:]):
        mixed = spoken + ".over.wav"
        sox("-m", "-v", "1", spoken, "-v", "0.3", played, "-v", "1", noise, mixed)
        made.append((f"{voice} over {tune}", mixed))
    return made


def gzipped(text):
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    return len(compressor.compress(text.encode()) + compressor.flush())


def main():
    hearclear, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    print("| recording | " + " | ".join(ORDERS) + " |")
    print("|---|" + "---|" * len(ORDERS))
    for name, file in recordings(work):
        analysis = subprocess.run([hearclear, "analyze", file, "--json"], check=True, capture_output=True, env={**os.environ, "HOME": work})
        seconds = json.loads(analysis.stdout)["samples"]
        columns = {key: [round(second[key] * 10) for second in seconds] for key in ORDERS["sorted"]}
        sizes = []
        for order in ORDERS.values():
            levels = ",".join(f'"{key}":[{",".join(map(str, columns[key]))}]' for key in order)
            sizes.append(gzipped(f'{{"levels":{{{levels}}},{HEADER}}}') / len(seconds))
        print(f"| {name} | " + " | ".join(f"{size:.2f}" for size in sizes) + " |")


main()
