#!/usr/bin/env python3
"""Draw JMH results as one SVG chart: Latchkey beside its peers and the raw baseline.

Reads the JSON JMH writes with ``-rf json -rff FILE.json`` and writes a self-contained SVG (no fonts, no
scripts, no external references, so GitHub renders it inside a README). Standard library only: python3 is
all it needs.

    python3 jmh/scripts/chart.py -o jmh/results/redis.svg jmh/results/redis.json \\
        --title "..." --note "measured ... on ..."
    python3 jmh/scripts/chart.py --redraw jmh/results/*.svg   # after changing this script
    python3 jmh/scripts/chart.py --self-test        # checks the script and every committed chart

One panel per benchmark class, scenario and JMH mode (a panel never mixes units), one horizontal bar per
benchmark, grouped by its parameters and thread count; bar = JMH's score, whisker = JMH's score error (its
99.9 % confidence interval), value printed at the end of the bar (SampleTime: mean, p50 and p99). One colour
per library, the same in every chart, named in the legend.

The chart records how it was drawn (inputs relative to the SVG, title, notes, filter) in its <metadata>, so
``--self-test`` can redraw every ``jmh/results/*.svg`` from its JSON and fail if the two drifted apart.
"""

import argparse
import json
import math
import os
import re
import sys
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

# ---------------------------------------------------------------------------------------------- libraries

# Fixed order (legend, bars within a group) and fixed colours: Okabe-Ito hues, safe for colour-blind readers,
# plus a neutral grey for the raw-protocol baseline, which is not a library but the floor.
LIBRARIES = [
    ("Latchkey", "#0072B2"),
    ("Redisson", "#D55E00"),
    ("Curator", "#009E73"),
    ("jetcd Lock", "#CC79A7"),
    ("ShedLock", "#E69F00"),
    ("Spring Integration", "#6A3D9A"),
    ("raw baseline", "#7F7F7F"),
]
COLOURS = dict(LIBRARIES)
ORDER = {name: i for i, (name, _) in enumerate(LIBRARIES)}

# Benchmark method name -> (library, what the bar shows). First match wins. Method names come from the
# classes in jmh/src/main/java; --self-test checks that every @Benchmark method there is covered.
METHOD_RULES = [
    (r"^latchkeyTryAcquire", "Latchkey", "Latchkey tryAcquire()"),
    (r"^latchkeyAcquire", "Latchkey", "Latchkey acquire(wait)"),
    (r"^core_defaults", "Latchkey", "Latchkey, full API"),
    (r"^core_noRenew", "Latchkey", "Latchkey, full API, auto-renew off"),
    (r"^spi_", "Latchkey", "Latchkey backend via SPI (no core)"),
    (r"^latchkeyRead", "Latchkey", "Latchkey read lock"),
    (r"^latchkeySessionRead", "Latchkey", "Latchkey read lock, session mode"),
    (r"^latchkeySemaphore", "Latchkey", "Latchkey semaphore"),
    (r"^latchkey", "Latchkey", "Latchkey"),
    (r"^redissonRead", "Redisson", "Redisson RReadWriteLock read lock"),
    (r"^redisson", "Redisson", "Redisson RLock"),
    (r"^curatorRead", "Curator", "Curator InterProcessReadWriteLock read lock"),
    (r"^curatorSemaphoreV2", "Curator", "Curator InterProcessSemaphoreV2"),
    (r"^curator", "Curator", "Curator InterProcessMutex"),
    (r"^jetcdLock", "jetcd Lock", "jetcd Lock service"),
    (r"^shedlock", "ShedLock", "ShedLock (JdbcTemplate)"),
    (r"^spring", "Spring Integration", "Spring JdbcLockRegistry"),
    (r"^rawSpi", "raw baseline", "raw SPI calls (mem: store)"),
    (r"^rawJedisPolling", "raw baseline", "raw Jedis, SET NX polled every 100 µs"),
    (r"^rawJedis", "raw baseline", "raw Jedis SET NX + EVALSHA"),
    (r"^rawTxnDelete", "raw baseline", "raw etcd txn + delete"),
    (r"^rawCreateEphemeralDelete", "raw baseline", "raw ZooKeeper create + delete"),
    (r"^raw", "raw baseline", "raw SQL, same statements"),
    (r"^handSqlRead", "raw baseline", "hand-written SQL: shared advisory lock"),
    (r"^handSqlSemaphore", "raw baseline", "hand-written SQL: SKIP LOCKED slot table"),
]

# Panel order: the suites as the README lists them, uncontended before contended; unknown classes after.
CLASS_ORDER = ["MemCoreOverheadBenchmark", "RedisUncontendedBenchmark", "RedisContendedBenchmark",
               "RedisRenewalAtScaleBenchmark", "JdbcLockBenchmark",
               "JdbcPeersBenchmark", "ZooKeeperUncontendedBenchmark", "ZooKeeperHandoffBenchmark",
               "EtcdUncontendedBenchmark", "EtcdHandoffBenchmark"]

# Panel titles per benchmark class (falls back to the class name split into words).
CLASS_TITLES = {
    "MemCoreOverheadBenchmark": "Core overhead on mem: (acquire + release, no network)",
    "RedisUncontendedBenchmark": "Redis, uncontended: acquire + release, each thread on its own name",
    "RedisContendedBenchmark": "Redis, contended hand-off: 8 threads over 2 clients on one name",
    "RedisRenewalAtScaleBenchmark": "Redis: acquire + release while the same client holds N renewed locks",
    "JdbcLockBenchmark": "JDBC: Latchkey against the same SQL sent raw",
    "JdbcPeersBenchmark": "JDBC lease mode against ShedLock and Spring Integration",
    "ZooKeeperUncontendedBenchmark": "ZooKeeper, uncontended: acquire + release, each thread on its own name",
    "ZooKeeperHandoffBenchmark": "ZooKeeper, contended hand-off: 8 threads on one name",
    "EtcdUncontendedBenchmark": "etcd, uncontended: acquire + release, each thread on its own name",
    "EtcdHandoffBenchmark": "etcd, contended hand-off: 8 threads (8 clients) on one name",
}
SCENARIOS = {"uncontended": "uncontended, each thread on its own name", "handoff": "hand-off, 8 threads on one name"}
SCENARIO_ORDER = ["", "uncontended", "handoff"]
PARAM_VALUES = {
    ("target", "single"): "1 Redis node",
    ("target", "redlock3"): "Redlock, 3 nodes",
    ("dialect", "POSTGRESQL"): "PostgreSQL",
    ("dialect", "MARIADB"): "MariaDB",
    ("dialect", "H2"): "H2",
    ("mode", "LEASE"): "lease mode",
    ("mode", "SESSION"): "session mode",
}
MODES = {
    # JMH mode -> (what the score is, which way is better)
    "thrpt": ("throughput", "higher is better"),
    "avgt": ("average time per operation", "lower is better"),
    "sample": ("sampled time per operation, mean", "lower is better"),
    "ss": ("single-shot time", "lower is better"),
}
MODE_TITLES = {"thrpt": "rate", "avgt": "time per cycle", "sample": "time per cycle, waiting included",
               "ss": "single shot"}
UNITS = {
    "ops/ms": "operations per millisecond",
    "ops/s": "operations per second",
    "ops/us": "operations per microsecond",
    "ms/op": "milliseconds per operation",
    "us/op": "microseconds per operation",
    "ns/op": "nanoseconds per operation",
    "s/op": "seconds per operation",
}

# ---------------------------------------------------------------------------------------------- model


def classify(method):
    """(library, label) of a benchmark method name; ValueError if no rule knows it."""
    for pattern, library, label in METHOD_RULES:
        if re.match(pattern, method):
            return library, label
    raise ValueError("no library rule matches benchmark method '%s'; add one to METHOD_RULES in %s"
                     % (method, os.path.basename(__file__)))


def split_words(camel):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", camel).strip()


def number(value):
    """JMH writes NaN and infinities as strings."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return math.nan
    return v


class Bar:
    def __init__(self, run):
        fqcn, method = run["benchmark"].rsplit(".", 1)
        self.cls = fqcn.rsplit(".", 1)[-1]
        self.method = method
        self.library, self.label = classify(method)
        self.mode = run["mode"]
        self.threads = int(run.get("threads", 1))
        self.params = dict(run.get("params") or {})
        metric = run["primaryMetric"]
        self.score = number(metric["score"])
        self.error = number(metric.get("scoreError"))
        self.unit = metric["scoreUnit"]
        pct = metric.get("scorePercentiles") or {}
        self.p50 = number(pct.get("50.0"))
        self.p99 = number(pct.get("99.0"))
        self.scenario = next((s for s in SCENARIOS if "_" + s + "_" in "_" + method + "_"), None)

    def panel_key(self):
        return (self.cls, self.scenario or "", self.mode, self.unit)

    def group_key(self):
        return (tuple(sorted(self.params.items())), self.threads)

    def group_label(self):
        parts = [PARAM_VALUES.get((k, v), "%s=%s" % (k, v)) for k, v in sorted(self.params.items())]
        parts.append("%d thread%s" % (self.threads, "" if self.threads == 1 else "s"))
        return ", ".join(parts)

    def whisker(self):
        return self.error if math.isfinite(self.error) and self.error > 0 else None


def load(paths, only=None):
    bars = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            runs = json.load(f)
        if not isinstance(runs, list):
            raise ValueError("%s is not JMH's JSON result (a list of runs); write it with -rf json -rff FILE" % path)
        for run in runs:
            if only and not re.search(only, run["benchmark"]):
                continue
            bars.append(Bar(run))
    if not bars:
        raise ValueError("no benchmark results in %s%s" % (", ".join(paths), " matching " + only if only else ""))
    return bars


def panels_of(bars):
    """[(title, axis label, unit, mode, [(group label, [bars])])] in a stable order."""
    panels = {}
    seen = {}  # parameter value -> first appearance: JMH runs @Param values in their declared order
    for b in bars:
        panels.setdefault(b.panel_key(), []).append(b)
        for kv in b.params.items():
            seen.setdefault(kv, len(seen))
    mode_order = list(MODES)
    out = []
    def order(k):
        cls, scenario, mode, unit = k
        return (CLASS_ORDER.index(cls) if cls in CLASS_ORDER else len(CLASS_ORDER), cls,
                SCENARIO_ORDER.index(scenario), mode_order.index(mode) if mode in mode_order else 99, unit)
    for key in sorted(panels, key=order):
        cls, scenario, mode, unit = key
        members = panels[key]
        title = CLASS_TITLES.get(cls, split_words(cls.replace("Benchmark", "")))
        if scenario:
            title += " — " + SCENARIOS[scenario]
        if sum(1 for k in panels if k[:2] == key[:2]) > 1:  # the same benchmarks in several modes
            title += " — " + MODE_TITLES.get(mode, mode)
        what, better = MODES.get(mode, (mode, ""))
        axis = "%s, %s (%s)%s" % (what, UNITS.get(unit, unit), unit, " — " + better if better else "")
        groups = {}
        for b in members:
            groups.setdefault(b.group_key(), []).append(b)
        ordered = []
        for gk in sorted(groups, key=lambda g: (tuple(seen[kv] for kv in g[0]), g[1])):
            gbars = sorted(groups[gk], key=lambda b: (ORDER[b.library], b.label))
            ordered.append((gbars[0].group_label(), gbars))
        out.append((title, axis, unit, mode, ordered))
    return out


# ---------------------------------------------------------------------------------------------- drawing

WIDTH = 1040
LEFT_GROUP = 16          # x of the group labels
LEFT_PLOT = 430          # x where bars start (value 0)
RIGHT_PAD = 250          # room for the value text after the longest bar
ROW = 19                 # one bar
BAR = 13
GROUP_GAP = 10
CLIP = 2.0               # the axis ends at most at this multiple of the tallest bar (see render)
FONT = "font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\""


def fmt(v):
    if not math.isfinite(v):
        return "n/a"
    a = abs(v)
    if a >= 100:
        return "%.0f" % v
    if a >= 1:
        return "%.2f" % v
    return "%.3g" % v


def fmt_like(err, score):
    """The error with as many decimals as the score shows."""
    s = fmt(score)
    if "e" in s:
        return fmt(err)
    decimals = len(s.split(".")[1]) if "." in s else 0
    return "%.*f" % (decimals, err)


def nice_ticks(top):
    """0 .. a round number >= top in 4-8 steps of 1, 2 or 5 x 10^k."""
    if not math.isfinite(top) or top <= 0:
        top = 1.0
    raw = top / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    n = int(math.ceil(top / step - 1e-9))
    return [i * step for i in range(n + 1)]


def tick_label(v):
    return ("%.6f" % v).rstrip("0").rstrip(".") if v != int(v) else "%d" % v


def text_width(s, size):
    """Rough width of s in a sans-serif font (for layout only; DejaVu Sans averages about 0.6 em)."""
    return len(s) * size * 0.6


def text(x, y, s, size=12, anchor="start", weight=None, fill="#222", cls=None, extra=""):
    attrs = ' x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" fill="%s"' % (x, y, size, anchor, fill)
    if weight:
        attrs += ' font-weight="%s"' % weight
    if cls:
        attrs += ' class="%s"' % cls
    return "<text%s%s>%s</text>" % (attrs, extra, escape(s))


def render(bars, title, notes, meta):
    panels = panels_of(bars)
    present = sorted({b.library for b in bars}, key=ORDER.get)
    plot_w = WIDTH - LEFT_PLOT - RIGHT_PAD
    out = []
    y = 34
    out.append(text(WIDTH / 2, y, title, size=17, anchor="middle", weight="bold", cls="chart-title"))
    y += 26
    # legend: one entry per library present, then (wrapping if needed) what the whisker means
    x = LEFT_GROUP
    legend = []
    for lib in present:
        legend.append('<g class="legend-entry" data-library="%s"><rect x="%.1f" y="%.1f" width="14" height="14" '
                      'fill="%s"/>%s</g>' % (escape(lib), x, y - 11, COLOURS[lib], text(x + 19, y, lib, size=13)))
        x += 19 + text_width(lib, 13) + 22
    whisker_text = "error bar: JMH score error (99.9 % confidence interval); an arrow: cut at the axis end"
    if x + 28 + text_width(whisker_text, 12) > WIDTH - 10:
        x = LEFT_GROUP
        y += 20
    legend.append('<g class="legend-whisker"><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" '
                  'stroke-width="1.3"/><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000"/>'
                  '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000"/>%s</g>'
                  % (x, y - 4, x + 22, y - 4, x, y - 9, x, y + 1, x + 22, y - 9, x + 22, y + 1,
                     text(x + 28, y, whisker_text, size=12)))
    out.append('<g class="legend">%s</g>' % "".join(legend))
    y += 14

    for ptitle, axis, unit, mode, groups in panels:
        y += 26
        out.append(text(LEFT_GROUP, y, ptitle, size=14, weight="bold", cls="panel-title"))
        # the y axis is categorical: its two label columns get a header each
        y += 18
        out.append(text(LEFT_GROUP, y, "parameters, threads", size=11, fill="#555", cls="axis-label y-axis-groups"))
        out.append(text(LEFT_PLOT - 6, y, "benchmark", size=11, anchor="end", fill="#555", cls="axis-label y-axis"))
        y += 4
        # The axis covers every bar and, where it can, every whisker; but a whisker longer than the tallest
        # bar (a noisy run with few iterations) would squash every bar into the left edge, so the axis stops
        # at CLIP x the tallest bar and such a whisker is cut there and drawn open (an arrow), its value printed.
        tallest = max(b.score for _, gb in groups for b in gb if math.isfinite(b.score))
        top = min(max(b.score + (b.whisker() or 0) for _, gb in groups for b in gb), CLIP * tallest)
        ticks = nice_ticks(top)
        scale = plot_w / ticks[-1]
        rows = sum(len(gb) for _, gb in groups)
        height = rows * ROW + (len(groups) - 1) * GROUP_GAP + 12
        plot_top = y
        plot_bottom = y + height
        # grid and x ticks
        for t in ticks:
            tx = LEFT_PLOT + t * scale
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1"/>'
                       % (tx, plot_top, tx, plot_bottom, "#444" if t == 0 else "#e3e3e3"))
            out.append(text(tx, plot_bottom + 15, tick_label(t), size=11, anchor="middle", fill="#444"))
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#444"/>'
                   % (LEFT_PLOT, plot_bottom, LEFT_PLOT + plot_w, plot_bottom))
        # bars
        by = plot_top + 6
        for gi, (glabel, gbars) in enumerate(groups):
            if gi:
                out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#bbb" stroke-dasharray="3,3"/>'
                           % (LEFT_GROUP, by - GROUP_GAP / 2, LEFT_PLOT + plot_w, by - GROUP_GAP / 2))
            gheight = len(gbars) * ROW
            out.append(text(LEFT_GROUP, by + gheight / 2 + 4, glabel, size=12, weight="bold", cls="group-label"))
            for b in gbars:
                w = max(0.0, b.score) * scale if math.isfinite(b.score) else 0
                cy = by + ROW / 2
                out.append(text(LEFT_PLOT - 6, cy + 4, b.label, size=12, anchor="end", cls="bar-label"))
                out.append('<rect class="bar" data-library="%s" data-benchmark="%s" x="%.1f" y="%.1f" width="%.1f" '
                           'height="%d" fill="%s"><title>%s</title></rect>'
                           % (escape(b.library), escape(b.cls + "." + b.method), LEFT_PLOT, cy - BAR / 2, w, BAR,
                              COLOURS[b.library], escape("%s: %s %s" % (b.label, fmt(b.score), unit))))
                end = LEFT_PLOT + w
                err = b.whisker()
                if err is not None:
                    lo = LEFT_PLOT + max(0.0, b.score - err) * scale
                    clipped = b.score + err > ticks[-1]
                    hi = LEFT_PLOT + min(b.score + err, ticks[-1]) * scale
                    cap = ('<path d="M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f" fill="none"/>' % (hi - 5, cy - 4, hi, cy, hi - 5, cy + 4)
                           if clipped else '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>' % (hi, cy - 4, hi, cy + 4))
                    out.append('<g class="error-bar%s" stroke="#000" stroke-width="1.3">'
                               '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>'
                               '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>%s</g>'
                               % (" clipped" if clipped else "", lo, cy, hi, cy, lo, cy - 4, lo, cy + 4, cap))
                    end = max(end, hi)
                value = fmt(b.score) + (" ± " + fmt_like(err, b.score) if err is not None else "")
                if mode == "sample" and math.isfinite(b.p99):
                    value += "  (p50 %s, p99 %s)" % (fmt(b.p50), fmt(b.p99))
                out.append(text(end + 6, cy + 4, value, size=11, fill="#333", cls="bar-value"))
                by += ROW
            by += GROUP_GAP
        # axis titles: x under the ticks, y rotated along the labels
        out.append(text(LEFT_PLOT + plot_w / 2, plot_bottom + 32, axis, size=12, anchor="middle",
                        cls="axis-label x-axis"))
        y = plot_bottom + 40
    y += 8
    for note in notes:
        y += 16
        out.append(text(LEFT_GROUP, y, note, size=11, fill="#444", cls="note"))
    y += 16
    out.append(text(LEFT_GROUP, y, "Drawn by jmh/scripts/chart.py from JMH's JSON results (%s)."
                    % ", ".join(meta["inputs"]), size=11, fill="#444", cls="note"))
    height = int(y + 14)
    head = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" %s>\n'
            '<title>%s</title>\n<metadata id="chart-args">%s</metadata>\n'
            '<rect width="100%%" height="100%%" fill="#ffffff"/>\n'
            % (WIDTH, height, WIDTH, height, FONT, escape(title), escape(json.dumps(meta, sort_keys=True))))
    return head + "\n".join(out) + "\n</svg>\n"


def draw(inputs, output, title, notes, only):
    bars = load(inputs, only)
    base = os.path.dirname(os.path.abspath(output))
    meta = {"inputs": [os.path.relpath(os.path.abspath(p), base) for p in inputs], "title": title,
            "notes": notes, "only": only}
    svg = render(bars, title, notes, meta)
    with open(output, "w", encoding="utf-8", newline="\n") as f:
        f.write(svg)
    return svg


def redraw(svg_path):
    """The SVG a committed chart's own metadata says it was drawn from, drawn again (not written)."""
    root = ET.parse(svg_path).getroot()
    meta_el = root.find("{http://www.w3.org/2000/svg}metadata")
    if meta_el is None:
        raise AssertionError("%s has no <metadata> saying how it was drawn" % svg_path)
    meta = json.loads(meta_el.text)
    base = os.path.dirname(os.path.abspath(svg_path))
    bars = load([os.path.join(base, p) for p in meta["inputs"]], meta.get("only"))
    return render(bars, meta["title"], meta["notes"], meta)


# ---------------------------------------------------------------------------------------------- self-test

def _run(benchmark, mode, threads, score, error, unit, params=None, p50=None, p99=None):
    metric = {"score": score, "scoreError": error, "scoreConfidence": [0, 0], "scoreUnit": unit,
              "scorePercentiles": {"0.0": score, "50.0": p50 if p50 is not None else score,
                                   "99.0": p99 if p99 is not None else score, "100.0": score}}
    return {"jmhVersion": "1.37", "benchmark": "io.latchkey.jmh." + benchmark, "mode": mode, "threads": threads,
            "forks": 1, "jdkVersion": "17.0.15", "params": params or {}, "primaryMetric": metric,
            "secondaryMetrics": {}}


def sample_results():
    """A small JMH JSON document with every library, every mode the suites use, and a NaN error."""
    single = {"target": "single"}
    return [
        _run("redis.RedisUncontendedBenchmark.latchkey_1thread", "thrpt", 1, 6.2, 0.3, "ops/ms", single),
        _run("redis.RedisUncontendedBenchmark.redisson_1thread", "thrpt", 1, 6.7, "NaN", "ops/ms", single),
        _run("redis.RedisUncontendedBenchmark.rawJedis_1thread", "thrpt", 1, 7.9, 0.5, "ops/ms", single),
        _run("redis.RedisContendedBenchmark.latchkey", "thrpt", 8, 11.8, 0.9, "ops/ms", single),
        _run("redis.RedisContendedBenchmark.latchkey", "sample", 8, 0.85, 0.05, "ms/op", single, 0.66, 4.06),
        _run("redis.RedisContendedBenchmark.redisson", "sample", 8, 2.6, 0.4, "ms/op", single, 0.73, 16.2),
        _run("zookeeper.ZooKeeperUncontendedBenchmark.latchkeyAcquire", "avgt", 1, 747.0, 75.0, "us/op"),
        _run("zookeeper.ZooKeeperUncontendedBenchmark.latchkeyTryAcquire", "avgt", 1, 872.0, 59.0, "us/op"),
        _run("zookeeper.ZooKeeperUncontendedBenchmark.curatorInterProcessMutex", "avgt", 1, 530.0, 74.9, "us/op"),
        _run("zookeeper.ZooKeeperUncontendedBenchmark.rawCreateEphemeralDelete", "avgt", 1, 561.0, 121.0, "us/op"),
        _run("etcd.EtcdUncontendedBenchmark.jetcdLock_1thread", "avgt", 1, 1222.0, 798.0, "us/op"),
        _run("etcd.EtcdUncontendedBenchmark.latchkey_1thread", "avgt", 1, 1331.0, 4000.0, "us/op"),
        _run("jdbc.JdbcPeersBenchmark.latchkey_handoff_8threads", "thrpt", 8, 0.9, 0.1, "ops/ms",
             {"dialect": "POSTGRESQL"}),
        _run("jdbc.JdbcPeersBenchmark.shedlock_handoff_8threads", "thrpt", 8, 0.4, 0.1, "ops/ms",
             {"dialect": "POSTGRESQL"}),
        _run("jdbc.JdbcPeersBenchmark.spring_handoff_8threads", "thrpt", 8, 0.05, 0.01, "ops/ms",
             {"dialect": "POSTGRESQL"}),
        _run("jdbc.JdbcPeersBenchmark.latchkey_uncontended_1thread", "thrpt", 1, 4.4, 0.2, "ops/ms",
             {"dialect": "POSTGRESQL"}),
    ]


def benchmark_methods(src):
    """Every @Benchmark method name in the Java sources under src."""
    found = []
    for dirpath, _, files in os.walk(src):
        for name in files:
            if name.endswith(".java"):
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    code = f.read()
                for m in re.finditer(r"@Benchmark\b(?:\s*@\w+(?:\([^)]*\))?)*\s*public\s+[\w.<>\[\]]+\s+(\w+)\s*\(", code):
                    found.append((name, m.group(1)))
    return found


def self_test():
    import tempfile
    checks = 0

    def check(cond, what):
        nonlocal checks
        checks += 1
        if not cond:
            raise AssertionError(what)

    ns = {"s": "http://www.w3.org/2000/svg"}
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "sample.json")
        with open(src, "w", encoding="utf-8") as f:
            json.dump(sample_results(), f)
        out = os.path.join(tmp, "sample.svg")
        svg = draw([src], out, "Self-test chart", ["a note with the run's settings"], None)
        root = ET.fromstring(svg)  # well-formed XML, or this raises
        check(root.tag == "{http://www.w3.org/2000/svg}svg", "the root element is <svg>")
        check(root.find("s:title", ns) is not None, "the chart has a <title>")

        # one legend entry per library, each in its own colour, and every library in the sample present
        entries = root.findall(".//s:g[@class='legend-entry']", ns)
        names = [e.get("data-library") for e in entries]
        check(names == [n for n, _ in LIBRARIES], "one legend entry per library, in order: %s" % names)
        check(len({c for _, c in LIBRARIES}) == len(LIBRARIES), "every library has its own colour")
        for e in entries:
            rect = e.find("s:rect", ns)
            check(rect.get("fill") == COLOURS[e.get("data-library")], "legend colour of " + e.get("data-library"))
            check(e.find("s:text", ns).text == e.get("data-library"), "legend text of " + e.get("data-library"))

        # every bar in its library's colour, one per result
        bars = root.findall(".//s:rect[@class='bar']", ns)
        check(len(bars) == len(sample_results()), "one bar per result: %d" % len(bars))
        for b in bars:
            check(b.get("fill") == COLOURS[b.get("data-library")], "bar colour of " + b.get("data-benchmark"))
            check(float(b.get("width")) > 0, "bar %s has a width" % b.get("data-benchmark"))

        # error bars: one per finite error, none for NaN
        whiskers = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if "error-bar" in (g.get("class") or "").split()]
        check(len(whiskers) == len(sample_results()) - 1, "one error bar per finite score error: %d" % len(whiskers))
        clipped = [g for g in whiskers if "clipped" in g.get("class").split()]
        check(len(clipped) == 1, "a whisker longer than %s x the tallest bar is cut and marked: %d" % (CLIP, len(clipped)))

        # axis labels with units, one pair per panel; panels never mix units
        texts = lambda cls: [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")
                             if cls in (t.get("class") or "").split()]
        x_axes = texts("x-axis")
        panels = texts("panel-title")
        check(len(panels) == 7, "one panel per class, scenario and mode: %s" % panels)
        check(len(set(panels)) == len(panels), "panel titles are distinct: %s" % panels)
        check(len(x_axes) == len(panels), "an x-axis label per panel")
        check(len(texts("y-axis")) == len(panels) and len(texts("y-axis-groups")) == len(panels),
              "y-axis labels per panel")
        for unit, phrase in (("ops/ms", "operations per millisecond"), ("us/op", "microseconds per operation"),
                             ("ms/op", "milliseconds per operation")):
            check(any("(" + unit + ")" in a and phrase in a for a in x_axes), "an axis labelled in " + unit)
        check(any("higher is better" in a for a in x_axes) and any("lower is better" in a for a in x_axes),
              "axes say which way is better")
        check(any("p99 16.2" in t for t in texts("bar-value")), "sample-time bars show p50 and p99")
        check(any("± 0.3" in t for t in texts("bar-value")), "values show the score error")
        check(any("1331 ± 4000" in t for t in texts("bar-value")), "a cut whisker's value is printed in full")
        check(any("ShedLock" in t for t in texts("bar-label")), "bars are labelled")
        check(any("a note" in t for t in texts("note")), "notes are printed")

        # the chart records how to draw it again, and drawing again gives the same bytes
        check(redraw(out) == svg, "a chart redrawn from its own metadata is identical")

        # no external references: GitHub shows the SVG through <img>, which loads nothing
        check("href" not in svg and "<script" not in svg and "@import" not in svg, "self-contained SVG")

    # unit helpers
    check(nice_ticks(7.9)[-1] >= 7.9 and len(nice_ticks(7.9)) <= 9, "ticks cover the data")
    check(nice_ticks(0.049)[-1] >= 0.049, "ticks cover small data")
    check(number("NaN") != number("NaN"), "JMH's NaN string reads as NaN")
    try:
        classify("somethingElse")
        check(False, "an unknown benchmark method is refused")
    except ValueError as e:
        check("METHOD_RULES" in str(e), "the refusal says where to add a rule")

    # every benchmark method in the sources has a library (a new benchmark must not fall into the wrong colour)
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "..", "src", "main", "java")
    methods = benchmark_methods(src) if os.path.isdir(src) else []
    check(len(methods) >= 40 or not os.path.isdir(src), "found the @Benchmark methods (%d)" % len(methods))
    for cls, m in methods:
        classify(m)
        checks += 1

    # every committed chart is what its JSON draws
    results = os.path.join(here, "..", "results")
    committed = sorted(f for f in os.listdir(results) if f.endswith(".svg")) if os.path.isdir(results) else []
    for name in committed:
        path = os.path.join(results, name)
        with open(path, encoding="utf-8") as f:
            check(f.read() == redraw(path), "%s is out of date: draw it again from its JSON (see jmh/README.md)"
                  % os.path.relpath(path))

    print("chart.py self-test: %d checks passed (%d benchmark methods classified, %d committed chart(s) up to date)"
          % (checks, len(methods), len(committed)))


# ---------------------------------------------------------------------------------------------- main

def main(argv):
    p = argparse.ArgumentParser(description="Draw JMH JSON results as an SVG bar chart, one colour per library.")
    p.add_argument("inputs", nargs="*", help="JMH result files written with -rf json -rff FILE.json")
    p.add_argument("-o", "--output", help="SVG file to write")
    p.add_argument("--title", default="Latchkey and its peers, JMH", help="chart title")
    p.add_argument("--note", action="append", default=[], help="a line under the chart (date, machine, command); repeatable")
    p.add_argument("--only", help="regular expression: keep only benchmarks whose full name matches")
    p.add_argument("--self-test", action="store_true", help="check the script and every committed chart, then exit")
    p.add_argument("--redraw", action="store_true",
                   help="the inputs are charts: draw each again from the JSON, title and notes it records")
    a = p.parse_args(argv)
    if a.self_test:
        self_test()
        return 0
    if a.redraw:
        for svg in a.inputs:
            drawn = redraw(svg)
            with open(svg, "w", encoding="utf-8", newline="\n") as f:
                f.write(drawn)
            print("redrew " + svg)
        return 0
    if not a.inputs or not a.output:
        p.error("give one or more JMH JSON files and -o OUTPUT.svg (or --self-test)")
    try:
        draw(a.inputs, a.output, a.title, a.note, a.only)
    except (OSError, ValueError, KeyError) as e:
        print("chart.py: %s" % e, file=sys.stderr)
        return 1
    print("wrote " + a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
