#!/bin/sh
# A few recordings through the shipped model (docs/sound-classes.md, "Features" and "A voice over
# steady noise"), each made as SoundClassEndToEndTests makes its recordings (at −20 dBFS peak over
# pink noise at −60 dBFS, a room's floor): music, festival's voice, that voice over pink noise 9 and
# 3 dB below it by their Leq, white noise, and a 200 Hz tone. Prints each one's mean steadiness
# over its frames (past the first), then its speech_share and music_share.
#   scripts/sound-examples.sh [HEARCLEAR]     (default .build/release/hearclear)
set -e
BIN=$(realpath "${1:-.build/release/hearclear}")
WORK=$(mktemp -d /tmp/hearclear-sounds.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
recording() {
    sox "$1" -r 48000 -c 1 level.wav norm -20
    sox -R -n -r 48000 -c 1 floor.wav synth "$(soxi -D level.wav)" pinknoise vol 0.001
    sox -m level.wav floor.wav "$2"
}
steadiness() {
    "$BIN" analyze "$1" --features | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "steadiness") c = i; next}
        NR > 2 && c {s += $c; n++} END {if (n) printf "%.2f\n", s / n; else print "-"}'
}
shares() {
    "$BIN" analyze "$1" --json | awk -F': ' '/"speech_share"/ {s=$2} /"music_share"/ {m=$2} END {gsub(",", "", s); gsub(",", "", m); print s, m}'
}
sox /usr/share/planetblupi/music/music003.ogg music.raw.wav trim 20 30
TEXT="Shall we meet at the corner cafe on Friday evening? I heard the new place by the river gets very busy after eight, so let us book a table early and talk before the band starts."
echo "$TEXT $TEXT" | text2wave -o festival.wav
sox festival.wav -r 48000 -c 1 voice.raw.wav norm -20 trim 0 20
for pair in "0.02 9" "0.04 3"; do
    set -- $pair
    sox -R -n -r 48000 -c 1 pink$2.wav synth 20 pinknoise vol $1
    sox -m -v 1 voice.raw.wav -v 1 pink$2.wav noisy$2.raw.wav
done
sox -R -n -r 48000 -c 1 white.raw.wav synth 10 whitenoise
sox -R -n -r 48000 -c 1 tone.raw.wav synth 10 sine 200
for name in music voice noisy9 noisy3 white tone; do
    recording $name.raw.wav $name.wav
    echo "$name $(steadiness $name.wav) $(shares $name.wav)"
done
