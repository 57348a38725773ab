#!/usr/bin/env python3
"""Times commands in alternating rounds: every round runs each command once, the order
rotated round by round, so a shared machine's drifting load falls on all of them alike
(hyperfine runs one command's runs, then the next's). Takes the part of hyperfine's
options the benchmark scripts use and writes the same JSON, so their reports read either:

    alternate.py [-N] [-i] [--warmup N] [--min-runs N | --runs N] [--prepare CMD]
                 [--export-json FILE] -n NAME COMMAND [-n NAME COMMAND ...]

A command is split into words as a shell would, and run without one (hyperfine's -N);
CMD (the preparation before every timed run) runs in `sh -c`. Exit codes are ignored
(hyperfine's -i: `mbank check` exits 1 on findings). Prints each command's median wall
time and CPU time (user + system, `wait4`), and the median of each round's ratio to the
first command: two commands timed in the same round share that round's load.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def parse(argv):
    options = {"warmup": 1, "runs": 10, "prepare": None, "export": None, "commands": []}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-N", "-i", "--ignore-failure", "--shell=none"):
            i += 1
        elif arg == "--warmup":
            options["warmup"] = int(argv[i + 1])
            i += 2
        elif arg in ("--min-runs", "--runs", "-m", "-r"):
            options["runs"] = int(argv[i + 1])
            i += 2
        elif arg in ("--prepare", "-p"):
            options["prepare"] = argv[i + 1]
            i += 2
        elif arg == "--export-json":
            options["export"] = argv[i + 1]
            i += 2
        elif arg in ("-n", "--command-name"):
            options["commands"].append((argv[i + 1], argv[i + 2]))
            i += 3
        else:
            options["commands"].append((arg, arg))
            i += 1
    if not options["commands"]:
        sys.exit("alternate.py: no command to time (-n NAME COMMAND)")
    return options


def run(command, prepare):
    """One timed run: wall seconds and CPU seconds of the command alone."""
    if prepare:
        subprocess.run(["sh", "-c", prepare], check=True)
    start = time.perf_counter()
    child = subprocess.Popen(
        shlex.split(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, _, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime


def main():
    options = parse(sys.argv[1:])
    commands, prepare = options["commands"], options["prepare"]
    for _ in range(options["warmup"]):
        for _, command in commands:
            run(command, prepare)
    walls = [[] for _ in commands]
    cpus = [[] for _ in commands]
    for round_index in range(options["runs"]):
        count = len(commands)
        for offset in range(count):
            at = (round_index + offset) % count
            wall, cpu = run(commands[at][1], prepare)
            walls[at].append(wall)
            cpus[at].append(cpu)
    first = walls[0]
    for (name, _), wall, cpu in zip(commands, walls, cpus):
        line = (
            f"{name}: median {statistics.median(wall) * 1000:.1f} ms, "
            f"CPU {statistics.median(cpu) * 1000:.1f} ms"
        )
        if wall is not first:
            per_round = statistics.median(w / f for w, f in zip(wall, first))
            line += f", {per_round:.3f}x {commands[0][0]} per round"
        print(line)
    if options["export"]:
        results = [
            {
                "command": name,
                "median": statistics.median(wall),
                "mean": statistics.mean(wall),
                "times": wall,
                "cpu_times": cpu,
            }
            for (name, _), wall, cpu in zip(commands, walls, cpus)
        ]
        with open(options["export"], "w") as out:
            json.dump({"results": results}, out)


if __name__ == "__main__":
    main()
