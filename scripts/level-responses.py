#!/usr/bin/env python3
"""The meter's frequency responses as docs/levels.md shows them, measured the way a user could:
sox makes a sine at each frequency, `hearclear analyze --json` measures it, and the response is
the settled interval's level against the unweighted one (A and C) or against the band's level at
its own midband (octave bands).

    scripts/level-responses.py [path/to/hearclear]     # default .build/debug/hearclear

Prints Markdown tables (A and C weighting at the IEC 61672-1 frequencies, octave bands at the
IEC 61260-1 normalised frequencies) at 44.1 and 48 kHz. Needs sox.
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HEARCLEAR = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/hearclear"
RATES = [44_100, 48_000]
G = 10 ** 0.3

# IEC 61672-1:2013 table 3: frequency, A nominal, C nominal, class 1 limits (+, −).
WEIGHTING = [
    (31.5, -39.4, -3.0, 1.5, 1.5), (63, -26.2, -0.8, 1.0, 1.0), (125, -16.1, -0.2, 1.0, 1.0),
    (250, -8.6, 0.0, 1.0, 1.0), (500, -3.2, 0.0, 1.0, 1.0), (1000, 0.0, 0.0, 0.7, 0.7),
    (2000, 1.2, -0.2, 1.0, 1.0), (4000, 1.0, -0.8, 1.0, 1.0), (8000, -1.1, -3.0, 1.5, 2.5),
    (10000, -2.5, -4.4, 2.0, 3.0), (12500, -4.3, -6.2, 2.0, 5.0), (16000, -6.6, -8.5, 2.5, 16.0),
]
# IEC 61260-1:2014 table 1, octave bands, class 1: exponent x of Ω = G^x, minimum and maximum
# relative attenuation (None: no maximum); the same at 1/Ω.
OCTAVE = [
    (0, -0.4, 0.4), (1 / 8, -0.4, 0.5), (1 / 4, -0.4, 0.7), (3 / 8, -0.4, 1.4), (1 / 2, 1.2, 5.3),
    (1, 16.6, None), (2, 40.5, None), (3, 60.0, None), (4, 70.0, None),
]
BANDS = [(500, -1), (1000, 0), (2000, 1), (4000, 2)]  # name, k of the midband 1000·G^k


def settled(path, weighting):
    """The last interval of `hearclear analyze` on the file: the filters have settled by then."""
    out = subprocess.run([HEARCLEAR, "analyze", str(path), "--weighting", weighting, "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["samples"][-1]


def measure(folder, rate, frequency):
    path = Path(folder) / f"{rate}-{frequency:.3f}.wav"
    seconds = "4" if frequency < 100 else "2"
    subprocess.run(["sox", "-n", "-r", str(rate), "-b", "32", "-e", "floating-point", str(path),
                    "synth", seconds, "sine", f"{frequency:.6f}", "vol", "0.316"], check=True)
    return settled(path, "Z"), settled(path, "A")


def main():
    with tempfile.TemporaryDirectory() as folder:
        print(f"Measured by `scripts/level-responses.py` (sox sines at −10 dBFS, `hearclear analyze --json`).\n")
        print("| Hz | A nominal | C nominal | class 1 | " + " | ".join(f"A at {r / 1000:g} kHz | C at {r / 1000:g} kHz" for r in RATES) + " |")
        print("| --- " * (4 + 2 * len(RATES)) + "|")
        for frequency, a, c, plus, minus in WEIGHTING:
            cells = []
            for rate in RATES:
                z, weighted = measure(folder, rate, frequency)
                cells += [f"{weighted['avg'] - z['avg']:+.2f}", f"{z['c_avg'] - z['avg']:+.2f}"]
            limits = f"±{plus}" if plus == minus else f"+{plus} / −{minus}"
            print(f"| {frequency:g} | {a:+.1f} | {c:+.1f} | {limits} | " + " | ".join(cells) + " |")

        print("\nRelative attenuation of each octave band (dB; positive is attenuated), at the "
              "normalised frequencies Ω = G^x below (−) and above (+) the midband:\n")
        for rate in RATES:
            cache = {}

            def band_level(k, name):
                frequency = 1000 * G ** k
                if frequency not in cache:
                    cache[frequency] = measure(folder, rate, frequency)[0]
                return cache[frequency][f"oct_{name}"]

            print(f"At {rate / 1000:g} kHz:\n")
            print("| x | class 1 limits | " + " | ".join(f"{name} Hz −x | {name} Hz +x" for name, _ in BANDS) + " |")
            print("| --- " * (2 + 2 * len(BANDS)) + "|")
            for x, minimum, maximum in OCTAVE:
                cells = []
                for name, k in BANDS:
                    midband = band_level(k, name)
                    for side in (-1, 1):
                        frequency = 1000 * G ** (k + side * x)
                        if frequency < 20 or frequency > 0.45 * rate:
                            cells.append("—")
                        else:
                            cells.append(f"{midband - band_level(k + side * x, name):.2f}")
                limits = f"{minimum:g} … {maximum:g}" if maximum is not None else f"≥ {minimum:g}"
                print(f"| {x:g} | {limits} | " + " | ".join(cells) + " |")
            print()


if __name__ == "__main__":
    main()
