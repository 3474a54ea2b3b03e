#!/usr/bin/env python3
"""Reads what a SQLite server under upload load did, as docs/profiling.md (Ingest, step 33) counts it.

    scripts/sqlite-writer-profile.py pages TRACE DATABASE UPLOADS
        TRACE from `strace -f -y -e trace=pread64,pwrite64,fdatasync -o TRACE -p PID` while UPLOADS
        uploads landed: the pages read from DATABASE (the file the server had open, or a copy of it by the same name), by b-tree
        (their numbers looked up in its `dbstat`), and how many an upload.
    scripts/sqlite-writer-profile.py writer PERF_DATA UPLOADS
        PERF_DATA from `perf record --call-graph dwarf,16384 -F 499 -p PID` while UPLOADS uploads
        landed: the milliseconds of samples an upload in the one writer (stacks holding GRDB's
        write), by the first HearClear frame from the leaf, and in the WAL checkpointer beside it.

The database file's pages are read whole, so a read's offset names its page. strace splits a call
another thread interrupted into an unfinished line, with the file, and a resumed one, with the
offset; both are joined by thread."""
import collections
import re
import sqlite3
import subprocess
import sys


def pages(trace, database, uploads):
    name = database.rsplit("/", 1)[-1]
    size = sqlite3.connect(database).execute("PRAGMA page_size").fetchone()[0]
    waiting, read = {}, []
    for line in open(trace):
        call = re.match(r"(\d+)\s+pread64\(\d+<([^>]*)>,(.*)", line)
        if call:
            thread, path, rest = call.groups()
            if "unfinished" in rest:
                waiting[thread] = path
            elif path.endswith("/" + name):
                done = re.search(r", (\d+), (\d+)\) = \d+", rest)
                if done:
                    read.append(int(done.group(2)) // size + 1)
            continue
        resumed = re.match(r"(\d+)\s+<\.\.\. pread64 resumed>.*, (\d+), (\d+)\) = \d+", line)
        if resumed and waiting.pop(resumed.group(1), "").endswith("/" + name):
            read.append(int(resumed.group(3)) // size + 1)
    tree = dict(sqlite3.connect(database).execute("SELECT pageno, name FROM dbstat"))
    counts = collections.Counter(tree.get(page, "(a page added since)") for page in read)
    print(f"{len(read)} pages read, {len(read) / uploads:.2f} an upload")
    for name, count in counts.most_common():
        print(f"{name:40} {count:7} {count / uploads:.2f}")


def writer(data, uploads):
    script = subprocess.run(["perf", "script", "-i", data], capture_output=True, text=True, check=True).stdout
    header = subprocess.run(["perf", "evlist", "-F", "-i", data], capture_output=True, text=True, check=True).stdout
    frequency = int(re.search(r"sample_freq=(\d+)", header).group(1))
    parts, writing = collections.Counter(), 0
    for sample in script.split("\n\n"):
        frames = sample.strip().split("\n")[1:]
        stack = "\n".join(frames)
        if "WALCheckpointer" in stack:
            parts["(the checkpointer)"] += 1
            continue
        if "DatabaseWriterPAAE5write" not in stack:
            continue
        writing += 1
        if "sqlite3PagerCommitPhaseOne" in stack:
            parts["(the commit)"] += 1
            continue
        ours = [re.search(r"\$s\d+HearClear(?:Server|Analysis)\S*", frame) for frame in frames]
        parts[next((found.group(0)[:100] for found in ours if found), "(other)")] += 1
    milliseconds = 1000 / frequency / uploads
    print(f"the writer: {writing * milliseconds:.3f} ms an upload")
    for part, count in parts.most_common(25):
        print(f"{count * milliseconds:.4f}  {part}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "pages":
        pages(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == "writer":
        writer(sys.argv[2], float(sys.argv[3]))
    else:
        sys.exit(__doc__)
