#!/bin/sh
# Two release builds' growth step over copies of one stored database, alternated, so that the
# machine's drift over minutes falls on both alike (docs/profiling.md, Ingest, steps 33 and 35):
#
#   scripts/growth-pairs.sh ROUNDS FILE_OR_DATABASE FOLDER_A FOLDER_B [hearclear-bench options...]
#
# FOLDER_A and FOLDER_B each hold a build's `hearclear-bench` with its resource bundles (a copy of
# .build/release); FILE_OR_DATABASE is what `--growth-from` takes (a SQLite file, or a PostgreSQL
# database with `--postgres URL --postgres-only` among the options). Prints, per run, the check-ins
# a second at the step and on the empty store beside it, and their ratio.
set -eu
if [ $# -lt 4 ]; then sed -n '2,10p' "$0" >&2; exit 2; fi
rounds=$1 from=$2 a=$3 b=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
round=1
while [ "$round" -le "$rounds" ]; do
    for build in "$a" "$b"; do
        "$build/hearclear-bench" --size full --only growth --growth-from "$from" --work "$work/run" "$@" > "$work/log" 2>&1 || {
            cat "$work/log" >&2
            exit 1
        }
        step=$(sed -n 's/.*check-ins\/s at \([0-9]*\) stored: \([0-9]*\) 1\/s.*/\2/p' "$work/log" | tail -1)
        beside=$(sed -n 's/.*check-ins\/s on an empty store beside the step at [0-9]* stored: \([0-9]*\) 1\/s.*/\1/p' "$work/log" | tail -1)
        ratio=$(sed -n 's/.*ingest at [0-9]* stored ÷ on an empty store: \([0-9.]*\).*/\1/p' "$work/log" | tail -1)
        echo "round $round  $build  $step check-ins/s at the step, $beside beside: $ratio"
        rm -rf "$work/run"
    done
    round=$((round + 1))
done
