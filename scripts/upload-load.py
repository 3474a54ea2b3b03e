#!/usr/bin/env python3
"""Uploads COUNT new API v2 check-ins of 300 seconds (every series and the classes) to a running
hearclear-server over 16 kept-alive connections, to venues v0..v(VENUES-1), and prints the rate.
For profiling a server over an existing store, e.g. a copy of the growth case's file
(docs/profiling.md): the bench's own load needs a store it filled itself.

    scripts/upload-load.py PORT COUNT VENUES [SEED]

The server needs HEARCLEAR_RATE_LIMIT=0; the venues must exist. Bodies are made before the clock
starts; check-ins are dated from 2022-06-01, a minute apart."""
import json, uuid, datetime, random, sys, threading, time, http.client
port, count, venues, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), 16
rnd = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
c = http.client.HTTPConnection("127.0.0.1", port)
c.request("POST", "/api/v1/devices", json.dumps({"model": "load", "platform": "linux"}), {"Content-Type": "application/json"})
token = json.loads(c.getresponse().read())["token"]
start = datetime.datetime(2022, 6, 1, tzinfo=datetime.timezone.utc)
bodies = []
for i in range(count):
    level = -480 + rnd.randint(-60, 60); s = rnd.randint(0, 100); m = rnd.randint(0, 100)
    cols = {k: [] for k in ["avg", "peak", "fast_max", "c_avg", "oct_500", "oct_1000", "oct_2000", "oct_4000"]}
    sp, mu = [], []
    for t in range(300):
        level = max(-700, min(-200, level + rnd.randint(-8, 8)))
        s = max(0, min(100, s + rnd.randint(-8, 8))); m = max(0, min(100, m + rnd.randint(-5, 5)))
        cols["avg"].append(level); cols["peak"].append(min(0, level + rnd.randint(80, 160)))
        cols["fast_max"].append(level + rnd.randint(5, 40)); cols["c_avg"].append(level + rnd.randint(20, 90))
        for o in ["oct_500", "oct_1000", "oct_2000", "oct_4000"]: cols[o].append(level - rnd.randint(20, 100))
        sp.append(s); mu.append(m)
    bodies.append(json.dumps({"id": str(uuid.UUID(int=rnd.getrandbits(128))), "venue_id": "v%d" % rnd.randrange(venues),
        "started_at": (start + datetime.timedelta(minutes=i)).isoformat().replace("+00:00", "Z"), "interval_s": 1, "weighting": "A",
        "calibration_db": 110.0, "levels": cols, "classes": {"speech": sp, "music": mu}, "events": []}).encode())
codes = {}
lock = threading.Lock()
def work(part):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    for body in part:
        conn.request("POST", "/api/v2/checkins", body, {"Content-Type": "application/json", "Authorization": "Bearer " + token})
        r = conn.getresponse(); r.read()
        with lock: codes[r.status] = codes.get(r.status, 0) + 1
ts = [threading.Thread(target=work, args=(bodies[k::threads],)) for k in range(threads)]
t0 = time.time()
for t in ts: t.start()
for t in ts: t.join()
dt = time.time() - t0
print("%d check-ins in %.1f s: %.1f/s %s" % (count, dt, count / dt, codes))
