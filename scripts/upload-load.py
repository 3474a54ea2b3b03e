#!/usr/bin/env python3
"""Uploads COUNT new API v2 check-ins of 300 seconds (every series and the classes) to a running
hearclear-server over 16 kept-alive connections, to venues v0..v(VENUES-1), and prints the rate.
For profiling a server over an existing store, e.g. a copy of the growth case's file
(docs/profiling.md): the bench's own load needs a store it filled itself.

    scripts/upload-load.py PORT COUNT VENUES [SEED]
    scripts/upload-load.py --write FILE COUNT VENUES [SEED]

The server needs HEARCLEAR_RATE_LIMIT=0; the venues must exist. Bodies are made before the clock
starts; check-ins are dated from 2022-06-01, a minute apart.

This Python takes a large share of two cores near 1,000 uploads a second (38 % of the samples in
one system-wide profile): for a profile of the server, `--write` writes the bodies to FILE, one a
line, and wrk uploads them (`scripts/upload-load.lua`)."""
import datetime
import http.client
import json
import random
import sys
import threading
import time
import uuid

writing = sys.argv[1] == "--write"
arguments = sys.argv[2:] if writing else sys.argv[1:]
count, venues = int(arguments[1]), int(arguments[2])
connections = 16
draw = random.Random(int(arguments[3]) if len(arguments) > 3 else 1)

BANDS = ["oct_500", "oct_1000", "oct_2000", "oct_4000"]
first_start = datetime.datetime(2022, 6, 1, tzinfo=datetime.timezone.utc)


def time_ordered_id(started):
    """A version 7 UUID (RFC 9562) at `started`, as HearClear's clients make a check-in's id."""
    milliseconds = int(started.timestamp() * 1000)
    return str(uuid.UUID(int=milliseconds << 80 | 0x7 << 76 | draw.getrandbits(12) << 64 | 0b10 << 62 | draw.getrandbits(62)))


def check_in(number):
    """A check-in of 300 s as the client sends it: levels in tenths of a dB, a random walk with
    independent noise on each series, as the bench's check-ins."""
    level, speech, music = -480 + draw.randint(-60, 60), draw.randint(0, 100), draw.randint(0, 100)
    levels = {name: [] for name in ["avg", "peak", "fast_max", "c_avg"] + BANDS}
    classes = {"speech": [], "music": []}
    for _ in range(300):
        level = max(-700, min(-200, level + draw.randint(-8, 8)))
        speech = max(0, min(100, speech + draw.randint(-8, 8)))
        music = max(0, min(100, music + draw.randint(-5, 5)))
        levels["avg"].append(level)
        levels["peak"].append(min(0, level + draw.randint(80, 160)))
        levels["fast_max"].append(level + draw.randint(5, 40))
        levels["c_avg"].append(level + draw.randint(20, 90))
        for band in BANDS:
            levels[band].append(level - draw.randint(20, 100))
        classes["speech"].append(speech)
        classes["music"].append(music)
    started = first_start + datetime.timedelta(minutes=number)
    return json.dumps({
        "id": time_ordered_id(started), "venue_id": "v%d" % draw.randrange(venues),
        "started_at": started.isoformat().replace("+00:00", "Z"), "interval_s": 1, "weighting": "A",
        "calibration_db": 110.0, "levels": levels, "classes": classes, "events": []}).encode()


bodies = [check_in(number) for number in range(count)]
if writing:
    with open(arguments[0], "wb") as file:
        file.writelines(body + b"\n" for body in bodies)
    sys.exit(0)

port = int(arguments[0])
registration = http.client.HTTPConnection("127.0.0.1", port)
registration.request("POST", "/api/v1/devices", json.dumps({"model": "load", "platform": "linux"}), {"Content-Type": "application/json"})
token = json.loads(registration.getresponse().read())["token"]
statuses = {}
lock = threading.Lock()


def upload(part):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    for body in part:
        connection.request("POST", "/api/v2/checkins", body, {"Content-Type": "application/json", "Authorization": "Bearer " + token})
        response = connection.getresponse()
        response.read()
        with lock:
            statuses[response.status] = statuses.get(response.status, 0) + 1


threads = [threading.Thread(target=upload, args=(bodies[k::connections],)) for k in range(connections)]
began = time.time()
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
elapsed = time.time() - began
print("%d check-ins in %.1f s: %.1f/s %s" % (count, elapsed, count / elapsed, statuses))
