#!/bin/sh
# A private PostgreSQL cluster for the test run, in a temporary folder on a free loopback port.
#   scripts/test-postgres.sh start [PORT]   prints the folder and the URL: postgres://hearclear@127.0.0.1:PORT/postgres
#       (PORT: one the caller keeps for it, as a test does whose cluster is crashed and resumed;
#       without one, a port free now)
#   scripts/test-postgres.sh stop FOLDER
#   scripts/test-postgres.sh crash FOLDER    stops it as a crash would (pg_ctl -m immediate), keeping its data
#   scripts/test-postgres.sh resume FOLDER   starts it again on the same port
# As root, initdb and pg_ctl run as the postgres OS user (PostgreSQL refuses to run as root).
set -eu
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$BIN/initdb" ] || { echo "PostgreSQL's server is not installed (apt-get install postgresql)" >&2; exit 1; }
as_postgres() {
    if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi
}
case "${1:-}" in
start)
    DIR=$(mktemp -d /tmp/hearclear-pg.XXXXXX)
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$DIR"
    PORT=${2:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
    as_postgres "$BIN/initdb -D $DIR/data -A trust -U hearclear >$DIR/initdb.log 2>&1"
    echo "$PORT" >"$DIR/port"
    "$0" resume "$DIR"
    echo "$DIR postgres://hearclear@127.0.0.1:$PORT/postgres"
    ;;
resume)
    DIR=${2:?folder}
    as_postgres "$BIN/pg_ctl -D $DIR/data -o '-p $(cat "$DIR/port") -k $DIR -c listen_addresses=127.0.0.1 -c max_connections=1000 -c fsync=off' -l $DIR/log -w start >/dev/null"
    ;;
crash)
    as_postgres "$BIN/pg_ctl -D ${2:?folder}/data -m immediate stop >/dev/null"
    ;;
stop)
    as_postgres "$BIN/pg_ctl -D ${2:?folder}/data -m fast stop >/dev/null 2>&1" || true
    rm -rf "$2"
    ;;
*) echo "usage: $0 start [PORT] | stop FOLDER | crash FOLDER | resume FOLDER" >&2; exit 2 ;;
esac
