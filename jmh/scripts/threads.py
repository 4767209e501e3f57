#!/usr/bin/env python3
"""CPU by thread from async-profiler's collapsed stacks, as JMH's `async` profiler writes them with threads=true.

    java -jar jmh/target/benchmarks.jar 'JdbcLockBenchmark.latchkey_uncontended_8threads$' ... \
        -prof "async:libPath=$LIB;event=cpu;interval=1000000;threads=true;output=collapsed;dir=/tmp/ap"
    python3 jmh/scripts/threads.py --seconds 10 /tmp/ap/*/collapsed-cpu.csv

Each line of a collapsed file is a stack, its frames joined by ';', then a space and its count of samples; with
threads=true the first frame is the thread, '[name tid=N]'. Threads that differ only in a trailing number (a pool's
workers, the C2 compiler threads) are counted as one. With --seconds (the measured time: iterations x time) and the
sampling interval (--interval-ms, 1 by default) the counts become milliseconds of CPU per second measured.

The use it was written for: whether a benchmark's warm-up was long enough. If the C2 compiler threads still take a
few per cent of the JVM's CPU during the measurement, the score measures compilation (jmh/README.md, "Warm-up").
"""
import argparse
import collections
import re
import sys

THREAD = re.compile(r'^\[(.*?)(?: tid=\d+)?\]$')


def by_thread(lines):
    """Samples per thread (trailing digits folded into '#'); stacks without a thread frame count as '(no thread)'."""
    counts = collections.Counter()
    for line in lines:
        line = line.rstrip('\n')
        if not line.strip():
            continue
        stack, _, n = line.rpartition(' ')
        if not stack or not n.isdigit():
            raise ValueError(f"not a collapsed stack (frames, a space, a count): {line[:80]!r}")
        match = THREAD.match(stack.split(';', 1)[0])
        name = re.sub(r'\d+$', '#', match.group(1)) if match else '(no thread)'
        counts[name] += int(n)
    return counts


def report(counts, seconds, interval_ms, top):
    total = sum(counts.values())
    out = [f"{total} samples" + (f", {total * interval_ms / seconds:.0f} ms of CPU per second measured" if seconds else "")]
    for name, n in counts.most_common(top):
        rate = f"{n * interval_ms / seconds:8.1f} ms/s  " if seconds else ""
        out.append(f"{100 * n / total:6.1f} %  {rate}{name}")
    return out


def self_test():
    lines = [
        "[C2 CompilerThread0 tid=11];Compile::Compile;PhaseIdealLoop 30\n",
        "[C2 CompilerThread1 tid=12];Compile::Compile 10\n",
        "[bench-jmh-worker-1 tid=40];io/latchkey/core/CoreLock.acquire 50\n",
        "[bench-jmh-worker-2 tid=41];io/latchkey/core/CoreLock.acquire;x 10\n",
        "\n",
    ]
    counts = by_thread(lines)
    assert counts == {"C2 CompilerThread#": 40, "bench-jmh-worker-#": 60}, counts
    lines_out = report(counts, seconds=10, interval_ms=1, top=5)
    assert lines_out[0] == "100 samples, 10 ms of CPU per second measured", lines_out
    assert lines_out[1].startswith("  60.0 %") and lines_out[1].endswith("bench-jmh-worker-#"), lines_out
    assert "4.0 ms/s" in lines_out[2], lines_out
    try:
        by_thread(["[t tid=1];frame\n"])
    except ValueError as e:
        assert "not a collapsed stack" in str(e)
    else:
        raise AssertionError("a line without a count was accepted")
    print("threads.py self-test passed")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", help="collapsed-cpu.csv files (summed)")
    p.add_argument("--seconds", type=float, help="the measured time, to print ms of CPU per second")
    p.add_argument("--interval-ms", type=float, default=1.0, help="the profiler's sampling interval (default 1 ms)")
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--self-test", action="store_true")
    args = p.parse_args()
    if args.self_test:
        self_test()
        return
    if not args.files:
        p.error("give one or more collapsed files")
    lines = []
    for path in args.files:
        with open(path) as f:
            lines.extend(f)
    print("\n".join(report(by_thread(lines), args.seconds, args.interval_ms, args.top)))


if __name__ == "__main__":
    sys.exit(main())
