#!/bin/bash
# `test-log.sh run LOG ARGS...` runs `swift test --skip-build ARGS...`, its output shown as it comes
# and kept in LOG. `test-log.sh failures LOG...` repeats every failure line of those logs: `make
# test` prints them last, so a CI log that keeps only the last lines of a long run still says which
# test failed and why.
set -o pipefail
cd "$(dirname "$0")/.."
case "$1" in
run)
    log=$2; shift 2
    mkdir -p "$(dirname "$log")"
    swift test --skip-build "$@" 2>&1 | tee "$log"
    ;;
failures)
    shift
    echo
    echo "==== failures (whole output: $*) ===="
    # Swift Testing marks a failed expectation with "recorded an issue", XCTest with "error:"; a
    # crash names its signal. The failed tests' names come last, where the shortest tail has them.
    for log in "$@"; do
        grep -a -E "recorded an issue|error:|Fatal error|signal [0-9]+" "$log" | cut -c1-400 | head -n 40
    done
    echo "---- failed tests ----"
    for log in "$@"; do
        grep -a -E "^✘ (Test|Suite) .* failed after|' failed \(" "$log" | grep -a -v "^✘ Test run with" | cut -c1-200 | head -n 20
    done
    ;;
*)
    echo "usage: $0 run LOG SWIFT-TEST-ARGUMENTS... | $0 failures LOG..." >&2
    exit 2
    ;;
esac
