#!/bin/sh
# Recordings through the shipped speech and music model, each made as SoundClassEndToEndTests makes
# its recordings: at −20 dBFS peak over pink noise at −60 dBFS, a room's floor (docs/sound-classes.md).
#
#   scripts/sound-examples.sh examples [HEARCLEAR]
#       music, festival's voice, that voice over pink noise 9 and 3 dB below it by their Leq, white
#       noise and a 200 Hz tone: each one's mean steadiness over its frames (past the first), then
#       its speech_share and music_share ("Features", "A voice over steady noise").
#   scripts/sound-examples.sh unseen [HEARCLEAR]
#       packages the model's corpus never used, looked at, never trained or tuned on ("Checked
#       before shipping"): two games' music, three festival voices, one of them about 10 dB (by
#       peaks) over two of the pieces. First: apt-get install frozen-bubble-data supertux-data
#       festvox-us-slt-hts festvox-italp16k festvox-czech-krb
#   scripts/sound-examples.sh hums [HEARCLEAR]
#       32 hums, as a fridge, a transformer or lights make one: 50, 60, 100 and 120 Hz, each with
#       harmonics 1-2, 1-3, 1, 3 and 5, or 1-6, 30 s at -30 dBFS peak over the floor alone and over pink
#       noise 17 dB under the hum by RMS: the speech_share and music_share of each ("Version 20's trial").
#
# HEARCLEAR defaults to .build/release/hearclear.
set -e
# Repeatable: sox dithers at random unless told not to.
export SOX_OPTS=-R
case "${1:-}" in examples | unseen | hums) ;; *) sed -n '2,19p' "$0" >&2; exit 2 ;; esac
BIN=$(realpath "${2:-.build/release/hearclear}")
WORK=$(mktemp -d /tmp/hearclear-sounds.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
recording() {
    sox "$1" -r 48000 -c 1 level.wav norm -20
    sox -n -r 48000 -c 1 floor.wav synth "$(soxi -D level.wav)" pinknoise vol 0.001
    sox -m level.wav floor.wav "$2"
}
steadiness() {
    "$BIN" analyze "$1" --features 2>/dev/null | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "steadiness") c = i; next}
        NR > 2 && c {s += $c; n++} END {if (n) printf "%.2f\n", s / n; else print "-"}'
}
shares() {
    "$BIN" analyze "$1" --json 2>/dev/null | awk -F': ' '/"speech_share"/ {s=$2} /"music_share"/ {m=$2} END {gsub(",", "", s); gsub(",", "", m); print s, m}'
}

if [ "$1" = examples ]; then
    sox /usr/share/planetblupi/music/music003.ogg music.raw.wav trim 20 30
    TEXT="Shall we meet at the corner cafe on Friday evening? I heard the new place by the river gets very busy after eight, so let us book a table early and talk before the band starts."
    echo "$TEXT $TEXT" | text2wave -o festival.wav
    sox festival.wav -r 48000 -c 1 voice.raw.wav norm -20 trim 0 20
    for pair in "0.02 9" "0.04 3"; do
        set -- $pair
        sox -n -r 48000 -c 1 pink$2.wav synth 20 pinknoise vol $1
        sox -m -v 1 voice.raw.wav -v 1 pink$2.wav noisy$2.raw.wav
    done
    sox -n -r 48000 -c 1 white.raw.wav synth 10 whitenoise
    sox -n -r 48000 -c 1 tone.raw.wav synth 10 sine 200
    for name in music voice noisy9 noisy3 white tone; do
        recording $name.raw.wav $name.wav
        echo "$name $(steadiness $name.wav) $(shares $name.wav)"
    done
    exit 0
fi

if [ "$1" = hums ]; then
    sox -n -r 48000 -c 1 floor.wav synth 30 pinknoise vol 0.001
    sox -n -r 48000 -c 1 room.wav synth 30 pinknoise vol 0.01
    for hz in 50 60 100 120; do
        for harmonics in "1 2" "1 2 3" "1 3 5" "1 2 3 4 5 6"; do
            partials=""
            for k in $harmonics; do partials="$partials sine $((hz * k))"; done
            sox -r 48000 -c $(echo $harmonics | wc -w) -n hum.wav synth 30 $partials remix - norm -30
            sox -m hum.wav floor.wav alone.wav
            sox -m hum.wav room.wav over.wav
            echo "hum $hz Hz, harmonics $harmonics: over the floor $(shares alone.wav); over the room $(shares over.wav)"
        done
    done
    exit 0
fi

MUSIC="$(ls /usr/share/games/frozen-bubble/snd/frozen-mainzik-1p.ogg /usr/share/games/frozen-bubble/snd/frozen-mainzik-2p.ogg \
    /usr/share/games/frozen-bubble/snd/introzik.ogg) $(dpkg -L supertux-data | grep '/music/.*\.ogg$' | head -12)"
for file in $MUSIC; do echo "music $(basename "$file") $(shares "$file")"; done | tee music.txt
awk '{s+=$3; m+=$4; n++} END {printf "music: %d pieces, speech %.3f, music %.3f on average\n", n, s/n, m/n}' music.txt
head -c 1500 /usr/share/common-licenses/Apache-2.0 | tr '\n' ' ' | text2wave -eval "(voice_cmu_us_slt_arctic_hts)" -o slt.raw.wav
echo "Buongiorno a tutti. Questa sera ci vediamo al ristorante vicino al fiume, dove si mangia bene e si parla tranquillamente fino a tardi. Prenotiamo un tavolo per le otto, prima che arrivi la musica dal vivo. Domani invece andiamo al mercato." \
    | text2wave -eval "(voice_lp_diphone)" -o it.raw.wav
echo "Dobrý den. Dnes večer se sejdeme v kavárně u řeky, kde je klid a dá se tam dobře mluvit. Zarezervujeme si stůl na osmou hodinu, než začne hrát kapela. Zítra půjdeme na trh a potom do parku." \
    | text2wave -eval "(voice_czech_krb)" -o cz.raw.wav
for voice in slt it cz; do
    recording $voice.raw.wav $voice.wav
    sox $voice.raw.wav -r 48000 -c 1 $voice-alone.wav norm -20
    echo "voice $voice over the floor $(shares $voice.wav); alone $(shares $voice-alone.wav)"
done
# The American voice's first 40 s, its peaks 10 dB above the music's.
sox slt.raw.wav -r 48000 -c 1 slt40.wav norm -20 trim 0 40
for piece in /usr/share/games/frozen-bubble/snd/introzik.ogg /usr/share/games/supertux2/music/antarctic/salcon.ogg; do
    sox "$piece" -r 48000 -c 1 piece.wav trim 0 40 norm -30
    sox -m slt40.wav piece.wav mixed.wav
    echo "voice slt over $(basename "$piece") $(shares mixed.wav)"
done
