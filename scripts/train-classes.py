#!/usr/bin/env python3
"""Rebuilds the speech and music model from scratch (make train-classes; docs/sound-classes.md).

1. Makes a corpus of clips only from what Debian packages ship (SOURCES below, with licences):
   speech, crowd babble, music, speech over music, room noise and tones, every clip over a pink
   noise bed at -60 dBFS (synthetic speech has digital silence between words, which no room has).
2. Reads each clip's per-second features with the client itself (`hearclear analyze --features`),
   so the model learns from exactly what the meter computes.
3. Trains a small neural network (one hidden layer, a sigmoid output per class; numpy, fixed seed)
   on the training sources and evaluates it on whole held-out source packages, never on seconds of
   the training recordings.
4. Writes Sources/LevelMeter/Resources/sound-classes-v2.json and the figures between the markers
   of docs/sound-classes.md.

Usage: scripts/train-classes.py HEARCLEAR_BINARY WORK_FOLDER
"""
import json
import math
import os
import random
import re
import subprocess
import sys
import zipfile

import numpy as np

SEED = 2026
MODEL_VERSION = 2
# SoundFeatures.version: the meter refuses a model made from other features (the shipped model's
# test fails when the two differ).
FEATURES_VERSION = 2
# The network's size and penalty are chosen by 4-fold cross-validation over the training clips
# (whole clips per fold), never by the held-out sources.
CANDIDATES = [(hidden, l2) for hidden in (4, 12) for l2 in (0.001, 0.01, 0.05)]
STEPS = 1500
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "Sources/LevelMeter/Resources/sound-classes-v2.json")
REPORT = os.path.join(ROOT, "docs/sound-classes.md")
PLANETBLUPI = "/usr/share/planetblupi/music"
DRASCULA = "/usr/share/scummvm/drascula/audio"
ALSA_SOUNDS = "/usr/share/sounds/alsa"
NEXUIZ = "/usr/share/games/nexuiz/data/music.pk3"

# Every source, the Debian package it comes from and its licence (from the package's copyright file).
SOURCES = [
    ("espeak-ng", "espeak-ng, espeak-ng-data", "GPL-3+", "synthetic speech, 8 voices (training)"),
    ("flite", "flite", "BSD-style (CMU), see its copyright file", "synthetic speech, 4 voices of another synthesiser (training)"),
    ("festival", "festival, festvox-kallpc16k", "festival: X11-style; kal voice: free use with notice (CMU)", "synthetic speech, another synthesiser (held out)"),
    ("alsa-utils", "alsa-utils", "GPL-2", "a real voice reading the speaker names of /usr/share/sounds/alsa (held out), and its Noise.wav (held out)"),
    ("planetblupi", "planetblupi-music-ogg", "GPL-3+", "game music, Ogg Vorbis (training)"),
    ("nexuiz", "nexuiz-music", "GPL-2+", "game music, Ogg Vorbis inside music.pk3 (training)"),
    ("drascula", "drascula-music", "Drascula-License (free redistribution)", "game music, Ogg Vorbis (held out)"),
    ("gpl-text", "base-files", "the licences' own texts", "the words espeak-ng, flite and festival read: /usr/share/common-licenses"),
    ("sox", "sox", "GPL-2+", "noise, tones, sweeps and chord progressions synthesised by sox"),
]


def sox(*arguments):
    # -R: sox's own noise (the bed, room noise, dither) from a fixed seed too.
    subprocess.run(["sox", "-R", *arguments], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Corpus:
    def __init__(self, folder, rng):
        self.folder = folder
        self.rng = rng
        self.clips = []  # (path, split, kind, speech, music, source)
        os.makedirs(folder, exist_ok=True)

    def path(self, name):
        return os.path.join(self.folder, name + ".wav")

    def finish(self, raw, name, split, kind, speech, music, source):
        """Resamples to 44.1 or 48 kHz mono at a random level over the pink noise bed."""
        rate = self.rng.choice([44100, 48000])
        gain = self.rng.uniform(-30, -12)
        out = self.path(name)
        self.clips.append((out, split, kind, speech, music, source))
        if os.path.exists(out):  # made by an earlier run with the same seed
            return out
        tmp = out + ".tmp.wav"
        sox(raw, "-r", str(rate), "-c", "1", tmp, "norm", f"{gain:.1f}")
        seconds = float(subprocess.run(["soxi", "-D", tmp], capture_output=True, text=True, check=True).stdout)
        bed = out + ".bed.wav"
        sox("-n", "-r", str(rate), "-c", "1", bed, "synth", f"{seconds:.3f}", "pinknoise", "vol", "0.001")
        sox("-m", tmp, bed, out)
        os.remove(tmp)
        os.remove(bed)
        return out


def sentences(license_name):
    text = open(f"/usr/share/common-licenses/{license_name}", encoding="utf-8").read()
    text = re.sub(r"\s+", " ", text)
    parts = re.split(r"(?<=[.;:])\s", text)
    chunks, current = [], ""
    for part in parts:
        current += part + " "
        if len(current) > 260:
            chunks.append(current.strip())
            current = ""
    return chunks


def make_corpus(corpus, rng):
    work = corpus.folder
    # Speech: espeak-ng for training, festival and a real voice held out.
    voices = ["en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "de", "fr", "es", "it"]
    train_texts = sentences("GPL-3")
    held_texts = sentences("Apache-2.0")
    train_speech, held_speech = [], []
    for index in range(32):
        raw = os.path.join(work, f"espeak-{index}.raw.wav")
        text = train_texts[index % len(train_texts)]
        subprocess.run(
            ["espeak-ng", "-v", voices[index % len(voices)], "-s", str(rng.randint(140, 190)), "-p", str(rng.randint(30, 70)), "-w", raw, text],
            check=True)
        train_speech.append(raw)
        corpus.finish(raw, f"speech-espeak-{index}", "train", "speech", 1, 0, "espeak-ng")
    flite_texts = sentences("GPL-2")
    for index in range(16):
        raw = os.path.join(work, f"flite-{index}.raw.wav")
        text = flite_texts[index % len(flite_texts)]
        subprocess.run(["flite", "-voice", ["kal16", "awb", "rms", "slt"][index % 4], "-t", text, "-o", raw], check=True)
        train_speech.append(raw)
        corpus.finish(raw, f"speech-flite-{index}", "train", "speech", 1, 0, "flite")
    for index in range(10):
        raw = os.path.join(work, f"festival-{index}.raw.wav")
        text = held_texts[index % len(held_texts)]
        subprocess.run(["text2wave", "-o", raw], input=text, text=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        held_speech.append(raw)
        corpus.finish(raw, f"speech-festival-{index}", "held-out", "speech", 1, 0, "festival")
    voice = [os.path.join(ALSA_SOUNDS, name) for name in sorted(os.listdir(ALSA_SOUNDS)) if name != "Noise.wav"]
    raw = os.path.join(work, "alsa-voice.raw.wav")
    sox(*voice, raw)
    corpus.finish(raw, "speech-alsa-voice", "held-out", "speech", 1, 0, "alsa-utils")

    # Music: planetblupi for training, drascula held out; 20-second excerpts.
    def excerpts(folder, count, per_track):
        tracks = sorted(f for f in os.listdir(folder) if f.endswith(".ogg"))
        chosen = []
        for track in tracks[:count]:
            path = os.path.join(folder, track)
            seconds = float(subprocess.run(["soxi", "-D", path], capture_output=True, text=True, check=True).stdout)
            for part in range(per_track):
                if seconds < 25:
                    continue
                start = rng.uniform(0, seconds - 21)
                raw = os.path.join(work, f"{os.path.basename(folder)}-{track}-{part}.raw.wav")
                sox(path, "-c", "1", raw, "trim", f"{start:.2f}", "20")
                chosen.append(raw)
        return chosen

    nexuiz = os.path.join(work, "nexuiz")
    with zipfile.ZipFile(NEXUIZ) as archive:
        for member in archive.namelist():
            if member.endswith(".ogg"):
                os.makedirs(nexuiz, exist_ok=True)
                with open(os.path.join(nexuiz, os.path.basename(member)), "wb") as out:
                    out.write(archive.read(member))
    train_music = excerpts(PLANETBLUPI, 14, 2) + excerpts(nexuiz, 12, 2)
    held_music = excerpts(DRASCULA, 12, 1)
    for index, raw in enumerate(train_music):
        corpus.finish(raw, f"music-train-{index}", "train", "music", 0, 1, "nexuiz" if "/nexuiz-" in raw else "planetblupi")
    for index, raw in enumerate(held_music):
        corpus.finish(raw, f"music-drascula-{index}", "held-out", "music", 0, 1, "drascula")
    # Chord progressions (sox), for training: music without drums or voice.
    for index in range(6):
        raw = os.path.join(work, f"chords-{index}.raw.wav")
        parts = []
        for chord in range(8):
            root = rng.choice([110, 130.8, 146.8, 164.8, 196, 220])
            part = os.path.join(work, f"chords-{index}-{chord}.wav")
            shape = rng.choice(["sine", "triangle", "pluck"])
            sox("-n", "-r", "48000", "-c", "1", part, "synth", "2.5", shape, str(root), shape, str(root * 1.26), shape, str(root * 1.5), "fade", "0.02", "2.5", "0.3")
            parts.append(part)
        sox(*parts, raw)
        corpus.finish(raw, f"music-chords-{index}", "train", "music", 0, 1, "sox")

    # Crowd babble: four voices at once.
    def babble(voices_from, count, split, source, label):
        for index in range(count):
            chosen = []
            for voice_index, voice in enumerate(rng.sample(voices_from, 4)):
                # sox mixes files of one rate only.
                same = os.path.join(work, f"babble-{label}-{index}-{voice_index}.wav")
                sox(voice, "-r", "48000", "-c", "1", same, "norm", "-20")
                chosen.append(same)
            raw = os.path.join(work, f"babble-{label}-{index}.raw.wav")
            sox("-m", *chosen, raw, "trim", "0", "12")
            corpus.finish(raw, f"babble-{label}-{index}", split, "babble", 1, 0, source)

    babble(train_speech, 12, "train", "espeak-ng and flite", "espeak")
    babble(held_speech, 4, "held-out", "festival", "festival")

    # Speech over music at +10, 0 and -5 dB: both present.
    def mixtures(speech_from, music_from, count, split, source, label):
        for index in range(count):
            snr = [10, 0, -5][index % 3]
            speech, music = rng.choice(speech_from), rng.choice(music_from)
            s = os.path.join(work, f"mix-{label}-{index}-s.wav")
            m = os.path.join(work, f"mix-{label}-{index}-m.wav")
            sox(speech, "-r", "48000", "-c", "1", s, "norm", "-20")
            sox(music, "-r", "48000", "-c", "1", m, "norm", f"{-20 - snr}", "trim", "0", "12")
            raw = os.path.join(work, f"mix-{label}-{index}.raw.wav")
            sox("-m", s, m, raw, "trim", "0", "12")
            corpus.finish(raw, f"mix-{label}-{index}-snr{snr}", split, f"speech over music {snr:+d} dB", 1, 1, source)

    mixtures(train_speech, train_music, 24, "train", "espeak-ng or flite + planetblupi or nexuiz", "train")
    mixtures(held_speech, held_music, 9, "held-out", "festival + drascula", "held")

    # Neither: room noise (steady and swelling) and tones.
    for index, colour in enumerate(["pinknoise", "whitenoise", "brownnoise"] * 3):
        raw = os.path.join(work, f"noise-{index}.raw.wav")
        sox("-n", "-r", "48000", "-c", "1", raw, "synth", "15", colour, "tremolo", f"{rng.uniform(0.1, 1.5):.2f}", str(rng.randint(10, 60)))
        corpus.finish(raw, f"noise-{colour}-{index}", "train", "noise", 0, 0, "sox")
    for index in range(4):
        raw = os.path.join(work, f"tone-{index}.raw.wav")
        sox("-n", "-r", "48000", "-c", "1", raw, "synth", "10", "sine", str(rng.choice([250, 440, 1000, 2500, 3150])))
        corpus.finish(raw, f"tone-{index}", "train", "tone", 0, 0, "sox")
        raw = os.path.join(work, f"sweep-{index}.raw.wav")
        sox("-n", "-r", "48000", "-c", "1", raw, "synth", "10", "sine", f"{rng.randint(100, 500)}-{rng.randint(2000, 8000)}")
        corpus.finish(raw, f"sweep-{index}", "train", "tone", 0, 0, "sox")
    corpus.finish(os.path.join(ALSA_SOUNDS, "Noise.wav"), "noise-alsa", "held-out", "noise", 0, 0, "alsa-utils")
    for index, frequency in enumerate([630, 1600]):
        raw = os.path.join(work, f"held-tone-{index}.raw.wav")
        sox("-n", "-r", "48000", "-c", "1", raw, "synth", "10", "sine", str(frequency))
        corpus.finish(raw, f"tone-held-{index}", "held-out", "tone", 0, 0, "sox")


def features(hearclear, path):
    cache = path + ".features.csv"
    # Reused while neither the clip nor the code that computes features changed.
    code = [os.path.join(ROOT, "Sources/LevelMeter", name) for name in ("SoundFeatures.swift", "FFT.swift")]
    if os.path.exists(cache) and os.path.getmtime(cache) > max(os.path.getmtime(f) for f in [path, *code]):
        output = open(cache).read()
    else:
        output = subprocess.run([hearclear, "analyze", "--features", path], capture_output=True, text=True, check=True).stdout
        with open(cache, "w") as out:
            out.write(output)
    lines = output.strip().split("\n")
    names = lines[0].split(",")[1:]
    rows = [[float(v) for v in line.split(",")[1:]] for line in lines[1:]]
    return names, rows


def train_network(x, y, weights, hidden, seed, l2, steps=STEPS, rate=0.01):
    """One hidden layer of tanh units and one sigmoid output per class (speech, music), trained
    full-batch with Adam on the weighted log loss and an L2 penalty: deterministic for a seed."""
    generator = np.random.default_rng(seed)
    w1 = generator.normal(0, 1 / math.sqrt(x.shape[1]), (x.shape[1], hidden))
    b1 = np.zeros(hidden)
    w2 = generator.normal(0, 1 / math.sqrt(hidden), (hidden, y.shape[1]))
    b2 = np.zeros(y.shape[1])
    parameters = [w1, b1, w2, b2]
    moments = [np.zeros_like(p) for p in parameters]
    squares = [np.zeros_like(p) for p in parameters]
    total = weights.sum(axis=0)
    for step in range(1, steps + 1):
        h = np.tanh(x @ w1 + b1)
        p = 1 / (1 + np.exp(-(h @ w2 + b2)))
        error = (p - y) * weights / total
        gradients = [None, None, h.T @ error + l2 * w2, error.sum(axis=0)]
        back = (error @ w2.T) * (1 - h * h)
        gradients[0] = x.T @ back + l2 * w1
        gradients[1] = back.sum(axis=0)
        for index, (parameter, gradient) in enumerate(zip(parameters, gradients)):
            moments[index] = 0.9 * moments[index] + 0.1 * gradient
            squares[index] = 0.999 * squares[index] + 0.001 * gradient * gradient
            parameter -= rate * (moments[index] / (1 - 0.9**step)) / (np.sqrt(squares[index] / (1 - 0.999**step)) + 1e-8)
    return parameters


def main():
    hearclear, work = sys.argv[1], sys.argv[2]
    rng = random.Random(SEED)
    corpus = Corpus(os.path.join(work, "corpus"), rng)
    make_corpus(corpus, rng)

    names = None
    data = {"train": [], "held-out": []}
    for path, split, kind, speech, music, source in corpus.clips:
        clip_names, rows = features(hearclear, path)
        names = names or clip_names
        for row in rows:
            data[split].append((row, speech, music, kind, source, os.path.basename(path)))

    x = np.array([row for row, *_ in data["train"]])
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1
    z = (x - mean) / scale
    y = np.array([[entry[1], entry[2]] for entry in data["train"]], dtype=float)

    def class_weights(y):
        # Both values of each class weigh the same, whatever their share of the seconds.
        share = y.mean(axis=0)
        return np.where(y == 1, 0.5 / share, 0.5 / (1 - share))

    def balanced_accuracy(p, truth):
        detected = p >= 0.5
        return [((detected[truth[:, c] == 1, c]).mean() + (~detected[truth[:, c] == 0, c]).mean()) / 2 for c in range(truth.shape[1])]

    clips = sorted({entry[5] for entry in data["train"]})
    fold_of = {clip: index % 4 for index, clip in enumerate(clips)}
    folds = np.array([fold_of[entry[5]] for entry in data["train"]])
    validation = []
    for hidden, l2 in CANDIDATES:
        scores = []
        for fold in range(4):
            fit, check = folds != fold, folds == fold
            w1, b1, w2, b2 = train_network(z[fit], y[fit], class_weights(y[fit]), hidden, SEED, l2)
            p = 1 / (1 + np.exp(-(np.tanh(z[check] @ w1 + b1) @ w2 + b2)))
            scores.append(np.mean(balanced_accuracy(p, y[check])))
        validation.append((float(np.mean(scores)), hidden, l2))
    score, hidden, l2 = max(validation)
    w1, b1, w2, b2 = train_network(z, y, class_weights(y), hidden, SEED, l2)
    model = {
        "version": MODEL_VERSION, "features_version": FEATURES_VERSION, "features": names, "mean": mean.tolist(), "scale": scale.tolist(),
        "hidden": {"weights": w1.T.tolist(), "bias": b1.tolist()},
        "output": {"weights": w2.T.tolist(), "bias": b2.tolist()},
    }
    with open(MODEL, "w") as out:
        json.dump(model, out)
        out.write("\n")

    def predict(rows, label):
        zz = (np.array(rows) - mean) / scale
        p = 1 / (1 + np.exp(-(np.tanh(zz @ w1 + b1) @ w2 + b2)))
        return p[:, 0 if label == "speech" else 1]

    lines = []
    held = data["held-out"]
    rows = [entry[0] for entry in held]
    for index, label in [(1, "speech"), (2, "music")]:
        truth = np.array([entry[index] for entry in held])
        p = predict(rows, label) >= 0.5
        tp, fn = int((p & (truth == 1)).sum()), int((~p & (truth == 1)).sum())
        fp, tn = int((p & (truth == 0)).sum()), int((~p & (truth == 0)).sum())
        balanced = (tp / (tp + fn) + tn / (tn + fp)) / 2
        lines.append(f"| {label} | {tp} | {fn} | {fp} | {tn} | {balanced:.3f} |")
    kinds = sorted({entry[3] for entry in held})
    by_kind = []
    for kind in kinds:
        kind_rows = [entry[0] for entry in held if entry[3] == kind]
        ps, pm = predict(kind_rows, "speech"), predict(kind_rows, "music")
        by_kind.append(
            f"| {kind} | {len(kind_rows)} | {ps.mean():.2f} | {(ps >= 0.5).mean():.2f} | {pm.mean():.2f} | {(pm >= 0.5).mean():.2f} |")
    train_seconds = len(data["train"])
    report = "\n".join([
        f"Network: {hidden} hidden units, L2 {l2}, chosen by 4-fold cross-validation over the training clips "
        f"(mean balanced accuracy {score:.3f}; the others: "
        + ", ".join(f"{h} units L2 {penalty}: {value:.3f}" for value, h, penalty in validation if (h, penalty) != (hidden, l2)) + ").",
        "",
        f"Training: {train_seconds} seconds from {sum(1 for c in corpus.clips if c[1] == 'train')} clips; "
        f"held out: {len(held)} seconds from {sum(1 for c in corpus.clips if c[1] == 'held-out')} clips (seed {SEED}).",
        "",
        "Held-out seconds, p ≥ 0.5 counted as detected:",
        "",
        "| class | true positive | false negative | false positive | true negative | balanced accuracy |",
        "|---|---|---|---|---|---|",
        *lines,
        "",
        "By kind of held-out clip (mean probability, and the share of seconds at p ≥ 0.5):",
        "",
        "| kind | seconds | speech p | speech share | music p | music share |",
        "|---|---|---|---|---|---|",
        *by_kind,
        "",
        "Sources:",
        "",
        "| source | Debian package | licence | used as |",
        "|---|---|---|---|",
        *[f"| {name} | {package} | {licence} | {use} |" for name, package, licence, use in SOURCES],
    ])
    text = open(REPORT, encoding="utf-8").read()
    start, end = "<!-- train-classes: begin -->", "<!-- train-classes: end -->"
    text = text[:text.index(start) + len(start)] + "\n" + report + "\n" + text[text.index(end):]
    with open(REPORT, "w", encoding="utf-8") as out:
        out.write(text)
    print(report)


if __name__ == "__main__":
    main()
