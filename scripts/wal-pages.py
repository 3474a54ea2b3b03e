#!/usr/bin/env python3
"""Which tables and indexes the pages a SQLite server writes belong to, per upload: reads an
strace of its writes and names each page with the sqlite3 shell's dbstat, for profiling what an
upload dirties in a large file (docs/profiling.md, Ingest, step 24).

    strace -f -y -e trace=pwrite64 -s 24 -xx -p PID -o WRITES    # while UPLOADS check-ins go up
    scripts/wal-pages.py WRITES DATABASE UPLOADS                  # after the server has stopped

Each WAL frame starts with a 24-byte header written on its own, whose first four bytes are the
page's number and the next four non-zero on a transaction's last frame; a checkpoint writes a page
into the file at (number - 1) × page size. Pages the file gained since are named as they are now."""
import collections
import os
import re
import subprocess
import sys

writes, database, uploads = sys.argv[1], sys.argv[2], int(sys.argv[3])
shell = ["sqlite3", "-readonly", database]
page_size = int(subprocess.run(shell + ["PRAGMA page_size"], capture_output=True, text=True, check=True).stdout)
names = {}
for line in subprocess.run(shell + ["SELECT pageno, name FROM dbstat"], capture_output=True, text=True, check=True).stdout.splitlines():
    number, _, name = line.partition("|")
    names[int(number)] = name

call = re.compile(r'pwrite64\(\d+<([^>]*)>, "([^"]*)"(?:\.\.\.)?, (\d+), (\d+)\)')


def unescaped(text):
    return bytes(int(byte, 16) for byte in text.split("\\x")[1:])


frames, copied, commits = collections.Counter(), collections.Counter(), 0
for line in open(writes):
    found = call.search(line)
    if not found:
        continue
    path, size, offset = unescaped(found.group(1)).decode(), int(found.group(3)), int(found.group(4))
    if path.endswith("-wal") and size == 24:
        header = unescaped(found.group(2))
        frames[names.get(int.from_bytes(header[0:4], "big"), "(unknown)")] += 1
        commits += int.from_bytes(header[4:8], "big") != 0
    elif path == os.path.realpath(database) and size == page_size:
        copied[names.get(offset // page_size + 1, "(unknown)")] += 1

print(f"{uploads} uploads, {commits} transactions, {page_size // 1024} KB pages")
print(f"{'pages of':32} {'to the WAL':>12} {'checkpointed':>14}   (per upload)")
for name, count in frames.most_common():
    print(f"{name:32} {count / uploads:12.2f} {copied[name] / uploads:14.2f}")
print(f"{'all':32} {sum(frames.values()) / uploads:12.2f} {sum(copied.values()) / uploads:14.2f}")
