#!/bin/sh
# Speech and music on packages the model's corpus never used (docs/sound-classes.md, "Checked
# before shipping"): the music of two games, three festival voices over the corpus's −60 dBFS floor,
# and one of them about 10 dB (by peaks) over two of the games' pieces. Looked at, never trained or
# tuned on. Prints each file's speech_share and music_share, then the music's means.
#   apt-get install frozen-bubble-data supertux-data festvox-us-slt-hts festvox-italp16k festvox-czech-krb
#   scripts/unseen-sources.sh [HEARCLEAR]     (default .build/release/hearclear)
set -e
BIN=$(realpath "${1:-.build/release/hearclear}")
WORK=$(mktemp -d /tmp/hearclear-unseen.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
shares() {
    "$BIN" analyze "$1" --json | awk -F': ' '/"speech_share"/ {s=$2} /"music_share"/ {m=$2} END {gsub(",", "", s); gsub(",", "", m); print s, m}'
}
MUSIC="$(ls /usr/share/games/frozen-bubble/snd/frozen-mainzik-1p.ogg /usr/share/games/frozen-bubble/snd/frozen-mainzik-2p.ogg \
    /usr/share/games/frozen-bubble/snd/introzik.ogg) $(dpkg -L supertux-data | grep '/music/.*\.ogg$' | head -12)"
for file in $MUSIC; do echo "music $(basename "$file") $(shares "$file")"; done | tee music.txt
awk '{s+=$3; m+=$4; n++} END {printf "music: %d pieces, speech %.3f, music %.3f on average\n", n, s/n, m/n}' music.txt
# A voice at −20 dBFS peak over pink noise at −60 dBFS, as the corpus's clips are made.
over_floor() {
    sox "$1" -r 48000 -c 1 level.wav norm -20
    sox -R -n -r 48000 -c 1 floor.wav synth "$(soxi -D level.wav)" pinknoise vol 0.001
    sox -m level.wav floor.wav "$2"
}
head -c 1500 /usr/share/common-licenses/Apache-2.0 | tr '\n' ' ' | text2wave -eval "(voice_cmu_us_slt_arctic_hts)" -o slt.raw.wav
echo "Buongiorno a tutti. Questa sera ci vediamo al ristorante vicino al fiume, dove si mangia bene e si parla tranquillamente fino a tardi. Prenotiamo un tavolo per le otto, prima che arrivi la musica dal vivo. Domani invece andiamo al mercato." \
    | text2wave -eval "(voice_lp_diphone)" -o it.raw.wav
echo "Dobrý den. Dnes večer se sejdeme v kavárně u řeky, kde je klid a dá se tam dobře mluvit. Zarezervujeme si stůl na osmou hodinu, než začne hrát kapela. Zítra půjdeme na trh a potom do parku." \
    | text2wave -eval "(voice_czech_krb)" -o cz.raw.wav
for voice in slt it cz; do
    over_floor $voice.raw.wav $voice.wav
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
