#!/usr/bin/env python3
"""Where a running server's time goes between two moments, per upload (docs/profiling.md, Ingest,
step 34): each thread's time on a core and waiting for one (/proc/PID/task/*/schedstat), summed by
thread name; the machine's busy, idle and I/O-wait time (/proc/stat); the bytes the server read and
wrote (/proc/PID/io).

Usage:
  scripts/server-threads.py snapshot PID > BEFORE.json
  (the uploads)
  scripts/server-threads.py snapshot PID > AFTER.json
  scripts/server-threads.py diff BEFORE.json AFTER.json UPLOADS

and what its threads waited for off a core, from the scheduler's switches with their stacks:
  perf record -e sched:sched_switch --call-graph dwarf,8192 -p PID -o SWITCHES -- sleep 1.5
  scripts/server-threads.py waits SWITCHES
"""
import collections
import json
import os
import re
import subprocess
import sys

# /proc/stat's first columns, in clock ticks.
MACHINE = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]


def snapshot(pid):
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            name = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
            on_cpu, waiting, _ = open(f"/proc/{pid}/task/{tid}/schedstat").read().split()
        except OSError:  # the thread ended meanwhile
            continue
        threads[tid] = {"name": name, "on_cpu_ns": int(on_cpu), "waiting_ns": int(waiting)}
    machine = dict(zip(MACHINE, map(int, open("/proc/stat").readline().split()[1:])))
    io = {key: int(value) for key, value in (line.split(": ") for line in open(f"/proc/{pid}/io").read().splitlines())}
    return {"threads": threads, "machine": machine, "io": io, "ticks_per_second": os.sysconf("SC_CLK_TCK")}


def diff(before, after, uploads):
    groups = collections.defaultdict(lambda: [0, 0])
    for tid, thread in after["threads"].items():
        earlier = before["threads"].get(tid, {"on_cpu_ns": 0, "waiting_ns": 0})
        # Worker threads are named after their pool, not their job: GCD's carry the writer, the
        # readers and the checkpoints alike.
        groups[thread["name"]][0] += thread["on_cpu_ns"] - earlier["on_cpu_ns"]
        groups[thread["name"]][1] += thread["waiting_ns"] - earlier["waiting_ns"]
    print(f"per upload, over {uploads} uploads (ms):")
    for name, (on_cpu, waiting) in sorted(groups.items(), key=lambda item: -item[1][0]):
        if on_cpu:
            print(f"  threads {name:<20} on a core {on_cpu / 1e6 / uploads:.3f}  waiting for one {waiting / 1e6 / uploads:.3f}")
    total = sum(on_cpu for on_cpu, _ in groups.values())
    print(f"  the server on a core {total / 1e6 / uploads:.3f}")
    tick_ms = 1000 / after["ticks_per_second"]
    print("  the machine " + "  ".join(
        f"{key} {(after['machine'][key] - before['machine'][key]) * tick_ms / uploads:.3f}" for key in MACHINE))
    print("  bytes (KB): " + "  ".join(
        f"{key} {(after['io'][key] - before['io'][key]) / 1024 / uploads:.1f}" for key in ("rchar", "wchar", "read_bytes", "write_bytes")))


def waits(switches):
    """Off-core time by what a thread switched out in: syncing a file (the checkpoints' thread, or
    a checkpoint elsewhere: the writer's own), a WAL write that blocked, SQLite's global mutex
    (its memory statistics)."""
    switch = re.compile(r"\s*\d+\s+([\d.]+): sched:sched_switch: .*prev_pid=(\d+) .*prev_state=(\S+) ==> .*next_pid=(\d+)")
    script = subprocess.run(
        ["perf", "script", "-i", switches, "-F", "tid,time,event,trace,ip,sym"], capture_output=True, text=True, check=True).stdout
    events, current = [], None
    for line in script.splitlines():
        match = switch.match(line)
        if match:
            current = (float(match[1]), int(match[2]), match[3], int(match[4]), [])
            events.append(current)
        elif current and line.strip():
            current[4].append(line.split(None, 1)[-1].strip())
    waiting, total, count = {}, collections.defaultdict(float), collections.Counter()
    for time, thread, state, following, stack in events:
        if following in waiting:
            began, reason = waiting.pop(following)
            total[reason] += time - began
            count[reason] += 1
        frames = " ".join(stack)
        if state.startswith("D") and "sqlite3WalFrames" in frames:
            # Before the syncs: a write can wait for the writeback of the page it overwrites.
            reason = "writing to the WAL, blocked"
        elif "lll_lock_wait" in frames and "sqlite3" in frames:
            reason = "SQLite's mutex, in " + next(frame for frame in stack if frame.startswith("sqlite3"))
        elif any(name in frames for name in ("fdatasync", "folio_wait_writeback", "blkdev_issue_flush", "__sync_dirty_buffer")):
            reason = "syncing a file: " + ("the checkpoints' thread" if "WALCheckpointer" in frames else
                                           "a checkpoint (the writer's)" if "sqlite3WalCheckpoint" in frames else "elsewhere")
        else:
            continue
        waiting[thread] = (time, reason)
    span = events[-1][0] - events[0][0] if events else 0
    print(f"over {span:.2f} s:")
    for reason, seconds in sorted(total.items(), key=lambda item: -item[1]):
        print(f"  {seconds * 1000:8.1f} ms in {count[reason]:5d} waits  {reason}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "snapshot":
        json.dump(snapshot(sys.argv[2]), sys.stdout)
    elif len(sys.argv) == 5 and sys.argv[1] == "diff":
        diff(json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), int(sys.argv[4]))
    elif len(sys.argv) == 3 and sys.argv[1] == "waits":
        waits(sys.argv[2])
    else:
        sys.exit(__doc__)
