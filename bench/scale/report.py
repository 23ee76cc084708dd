#!/usr/bin/env python3
"""bench/scale.sh's report: results.tsv (n, shape, broker, metric, value) and digest.tsv -> markdown on
stdout, OUT.csv, and OUT.png (matplotlib if /usr/bin/python3 has it, else gnuplot if installed).

    report.py RESULTS_TSV DIGEST_TSV OUT_PREFIX
"""
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

results_path, digest_path, out_prefix = sys.argv[1:4]
TIMEOUT = float(os.environ.get("SCALE_TIMEOUT", "300"))
KINDS = ("kafka", "krill")
NAMES = {"kafka": "Kafka " + os.environ.get("SCALE_KAFKA_VERSION", "4.4.0")[:3], "krill": "Krill"}
SHAPES = {"twenty": "topics of 20 partitions", "one": "one topic"}
STEPS = (("create_s", "create"), ("kill_s", "kill -9"), ("restart_s", "restart"), ("term_s", "SIGTERM"))

R = defaultdict(dict)  # (n, shape, kind) -> metric -> value
order = []
with open(results_path) as f:
    for line in f:
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 5:
            continue
        n, shape, kind, metric, value = parts
        key = (int(n), shape)
        if key not in order:
            order.append(key)
        R[(int(n), shape, kind)][metric] = value
digest = defaultdict(list)  # (n, shape, kind, step, WARN|INFO) -> [(count, msg)]
if os.path.exists(digest_path):
    with open(digest_path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 7:
                digest[(int(parts[0]), parts[1], parts[2], parts[3], parts[4])].append((int(parts[5]), parts[6]))


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def get(n, shape, kind, metric):
    return R.get((n, shape, kind), {}).get(metric, "")


def fmt_s(v):
    x = num(v)
    if x is None:
        return v
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def time_cell(n, shape, kind, step):
    """A step's time: seconds, or '> T s' with what was left when the timeout was hit."""
    v = get(n, shape, kind, step + "_s")
    if v == "":
        return "—"
    if v != "timeout":
        return fmt_s(v)
    left = ""
    if step in ("create", "restart"):
        full = get(n, shape, kind, step + "_end_isr_full")
        if full:
            left = f" ({full}/{n} ISR full)"
    elif step in ("kill", "term"):
        byv = get(n, shape, kind, step + "_end_led_by_victim")
        led = get(n, shape, kind, step + "_end_led")
        bits = []
        if byv and byv != "0":
            bits.append(f"{byv} still led by it")
        if led and num(led) is not None and int(num(led)) < n:
            bits.append(f"{n - int(num(led))} leaderless")
        if bits:
            left = " (" + ", ".join(bits) + ")"
    return f"> {TIMEOUT:.0f} s{left}"


def step_value(n, shape, kind, metric):
    """Seconds for the chart and the ratio: the timeout when it was hit (a lower bound)."""
    v = get(n, shape, kind, metric)
    if v == "timeout":
        return TIMEOUT, True
    x = num(v)
    return (x, False) if x is not None else (None, False)


def ratio(n, shape, metric):
    a, a_to = step_value(n, shape, "kafka", metric)
    b, b_to = step_value(n, shape, "krill", metric)
    if a is None or b is None or a <= 0:
        return ""
    if a_to and b_to:
        return "both timed out"
    if a_to:
        return f"< {b / a:.2g}×"
    r = b / a
    s = f"{r:.2f}×" if r < 10 else f"{r:.0f}×"
    return ("> " + s) if b_to else s


def plain_ratio(a, b):
    a, b = num(a), num(b)
    if a is None or b is None or a == 0:
        return ""
    r = b / a
    return f"{r:.2f}×" if r < 10 else f"{r:.0f}×"


def pair(n, shape, kind, a, b, f=fmt_s):
    x, y = get(n, shape, kind, a), get(n, shape, kind, b)
    if not x and not y:
        return "—"
    return f"{f(x) if x else '—'} / {f(y) if y else '—'}"


out = []
p = out.append
p(f"# Control plane at scale: Krill against Apache Kafka {os.environ.get('SCALE_KAFKA_VERSION', '4.4.0')}")
p("")
p(f"{os.environ.get('SCALE_MACHINE', '')}. Took {int(os.environ.get('SCALE_TOOK', '0')) // 60} min.")
p("")
p(f"`bench/scale.sh`: per partition count, a fresh 3-broker cluster of each kind (Kafka: 3 combined KRaft "
  f"nodes; Krill: 3 brokers on one standalone ZooKeeper, `{os.environ.get('SCALE_KRILL', 'broker/target/krill')}`), "
  f"RF 3, min.insync.replicas=2, heap `{os.environ.get('SCALE_HEAP', '')}`, `{os.environ.get('SCALE_JVM', '')}`, "
  f"default settings otherwise (Kafka: broker.session.timeout.ms 9 s; Krill: zookeeper.session.timeout.ms 6 s). "
  f"Client: bench/scale/ScaleDriver.java on kafka-clients 4.4 (Admin, and one Metadata request for all "
  f"topics to every broker that must agree, every {os.environ.get('SCALE_POLL_MS', '250')} ms). "
  f"A step that did not finish within {TIMEOUT:.0f} s shows `> {TIMEOUT:.0f} s` with what was left; "
  f"the ratio is then a bound. The machine is shared (2 cores): the figures are indicative, compare within a run.")
p("")

for (n, shape) in order:
    K = {k: R.get((n, shape, k), {}) for k in KINDS}
    p(f"## {n} partitions, {SHAPES.get(shape, shape)}"
      + (f" ({get(n, shape, 'krill', 'create_topics') or get(n, shape, 'kafka', 'create_topics')} topics)" if shape == "twenty" else ""))
    p("")
    loads = ", ".join(f"{NAMES[k]} {get(n, shape, k, 'load1')}" for k in KINDS if get(n, shape, k, "load1"))
    victims = "; ".join(
        f"{NAMES[k]}: controller {get(n, shape, k, 'controller')}, kill -9 broker {get(n, shape, k, 'kill_victim')}, "
        f"SIGTERM broker {get(n, shape, k, 'term_victim')}" for k in KINDS if K[k])
    p(f"Load average at each cluster's start: {loads}. {victims}.")
    p("")
    p(f"| what | {NAMES['kafka']} | {NAMES['krill']} | Krill/Kafka |")
    p("|---|---|---|---|")

    def row(label, cells, r=""):
        p(f"| {label} | {cells[0]} | {cells[1]} | {r} |")

    row("cluster start to ready (3 brokers in Metadata, a probe topic with ISR 3), s",
        [fmt_s(get(n, shape, k, "ready_s")) or "—" for k in KINDS], plain_ratio(get(n, shape, "kafka", "ready_s"), get(n, shape, "krill", "ready_s")))
    row("1. create: CreateTopics answered, s", [fmt_s(get(n, shape, k, "create_ack_s")) or "—" for k in KINDS], ratio(n, shape, "create_ack_s"))
    row("1. create: every partition led with a full ISR, s", [time_cell(n, shape, k, "create") for k in KINDS], ratio(n, shape, "create_s"))
    row("2. kill -9 (not the controller): no partition led by it or leaderless, s", [time_cell(n, shape, k, "kill") for k in KINDS], ratio(n, shape, "kill_s"))
    row("3. restart of it: every ISR full again, s (from the fork)", [time_cell(n, shape, k, "restart") for k in KINDS], ratio(n, shape, "restart_s"))
    row("3. restart: of which the process start (fork to its 'started' log line, which may come after the ISRs are full), s",
        [fmt_s(get(n, shape, k, "restart_process_up_s")) or "—" for k in KINDS],
        plain_ratio(get(n, shape, "kafka", "restart_process_up_s"), get(n, shape, "krill", "restart_process_up_s")))
    if any(get(n, shape, k, "elect_s") for k in KINDS):
        row("3b. preferred election of every partition (ElectLeaders, all partitions): answered, s",
            [fmt_s(get(n, shape, k, "elect_ack_s")) or "—" for k in KINDS], ratio(n, shape, "elect_ack_s"))
        row("3b. preferred election: every partition led by its first replica on every broker, s",
            [time_cell(n, shape, k, "elect") for k in KINDS], ratio(n, shape, "elect_s"))
    row("4. SIGTERM (most leaderships, not the controller): none led by it, s", [time_cell(n, shape, k, "term") for k in KINDS], ratio(n, shape, "term_s"))

    def exit_cell(k):
        e, c = get(n, shape, k, "term_exit_s"), get(n, shape, k, "term_exit_code")
        if not e and not c:
            return "—"
        e = f"> {TIMEOUT:.0f} s" if e == "timeout" else (fmt_s(e) + " s" if e else "?")
        clean = {"0": "clean", "143": "clean (143)"}.get(c, "killed" if c == "killed" else f"exit {c}")
        return f"{e}, {clean}"
    row("4. SIGTERM: process exited after", [exit_cell(k) for k in KINDS], ratio(n, shape, "term_exit_s"))
    row("1-4. 50 % / 90 % done at, s: create", [pair(n, shape, k, "create_t50_s", "create_t90_s") for k in KINDS])
    row("… kill -9", [pair(n, shape, k, "kill_t50_s", "kill_t90_s") for k in KINDS])
    row("… restart", [pair(n, shape, k, "restart_t50_s", "restart_t90_s") for k in KINDS])
    row("… SIGTERM", [pair(n, shape, k, "term_t50_s", "term_t90_s") for k in KINDS])
    row("5. RSS after create: 3 brokers, MiB (largest)",
        [f"{get(n, shape, k, 'rss_brokers_mb')} ({get(n, shape, k, 'rss_max_broker_mb')})" if get(n, shape, k, "rss_brokers_mb") else "—" for k in KINDS],
        plain_ratio(get(n, shape, "kafka", "rss_brokers_mb"), get(n, shape, "krill", "rss_brokers_mb")))
    row("5. RSS after create: ZooKeeper, MiB", ["—", get(n, shape, "krill", "rss_zk_mb") or "—"])
    tot = [num(get(n, shape, k, "rss_brokers_mb")) for k in KINDS]
    zk = num(get(n, shape, "krill", "rss_zk_mb")) or 0
    if tot[0] is not None and tot[1] is not None:
        row("5. RSS after create: everything, MiB", [f"{tot[0]:.0f}", f"{tot[1] + zk:.0f}"], plain_ratio(tot[0], tot[1] + zk))
    row("6. metadata of all topics: Admin describeTopics, ms (median)",
        [get(n, shape, k, "describe_ms") or "—" for k in KINDS], plain_ratio(get(n, shape, "kafka", "describe_ms"), get(n, shape, "krill", "describe_ms")))

    def md_cell(k):
        ms, b, v = get(n, shape, k, "metadata_ms"), get(n, shape, k, "metadata_bytes"), get(n, shape, k, "metadata_version")
        if not ms:
            return "—"
        return f"{ms} ({int(num(b) or 0) // 1024} KiB, v{v})"
    row("6. metadata of all topics: one Metadata request, ms (median; response size)",
        [md_cell(k) for k in KINDS], plain_ratio(get(n, shape, "kafka", "metadata_ms"), get(n, shape, "krill", "metadata_ms")))
    for st, label in (("create", "create"), ("idle", f"idle ({get(n, shape, 'krill', 'idle_s') or ''} s)"), ("kill", "kill -9"),
                      ("restart", "restart"), ("term", "SIGTERM")):
        row(f"CPU of the cluster's processes during {label}, s (brokers{' + ZooKeeper' if True else ''})",
            [get(n, shape, k, f"cpu_{st}_s") or "—" for k in KINDS],
            plain_ratio(get(n, shape, "kafka", f"cpu_{st}_s"), get(n, shape, "krill", f"cpu_{st}_s")))

    def logs_total(k, m):
        xs = [num(get(n, shape, k, f"{m}_{st}")) for st in ("create", "metadata", "idle", "kill", "restart", "term")]
        xs = [x for x in xs if x is not None]
        return f"{sum(xs):.0f}" if xs else "—"
    row("broker log lines WARN / ERROR (all steps)", [f"{logs_total(k, 'log_warn')} / {logs_total(k, 'log_error')}" for k in KINDS])
    row("session expiries in broker logs, all steps (Krill: ZooKeeper client/Krill 'session expired/timed out'; "
        "Kafka: controller 'Fencing broker … session has timed out')", [logs_total(k, "log_session") for k in KINDS])
    p("")

    if K["krill"]:
        p(f"Krill's ZooKeeper per step (requests = `zk_packets_received` between `srst` and `mntr`; per partition: ÷ {n}, "
          f"every partition has a replica on each broker, so each step changes all of them):")
        p("")
        p("| step | wall s | ZK requests | per partition | per s | by broker 1:2:3 | avg / max latency ms | peak outstanding | znodes after | watches after | sessions expired (ZK log) | broker log lines on sessions | last op, sampled 1/s per connection |")
        p("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for st, label in (("create", "1. create"), ("metadata", "6. metadata"), ("idle", "idle"), ("kill", "2. kill -9"),
                          ("restart", "3. restart"), ("term", "4. SIGTERM")):
            g = lambda m: get(n, shape, "krill", f"{m}_{st}")
            pk, wall = num(g("zk_packets")), num(g("wall") if False else get(n, shape, "krill", f"wall_{st}_s"))
            per = f"{pk / n:.1f}" if pk is not None and st not in ("metadata", "idle") else ""
            rate = f"{pk / wall:.0f}" if pk is not None and wall else ""
            p(f"| {label} | {fmt_s(get(n, shape, 'krill', f'wall_{st}_s'))} | {g('zk_packets') and int(pk)} | {per} | {rate} | "
              f"{g('zk_per_broker')} | {g('zk_avg_latency_ms')} / {g('zk_max_latency_ms')} | {g('zk_outstanding_peak')} | {g('zk_znodes')} | {g('zk_watches')} | "
              f"{g('zk_expired')} | {g('log_session')} | {g('zk_lop')} |")
        p("")

    # the logs' most frequent WARN/ERROR messages per step (numbers masked as #)
    for level, kinds, title in (("WARN", KINDS, "Most frequent WARN/ERROR log lines per step (all brokers; digits masked as #)"),
                                ("INFO", ("krill",), "Krill's most frequent INFO log lines per step (all brokers)")):
        lines = []
        for k in kinds:
            for st in ("create", "metadata", "idle", "kill", "restart", "term"):
                for count, msg in digest.get((n, shape, k, st, level), [])[:3]:
                    msg = msg.replace("|", "\\|").replace("`", "'")
                    if len(msg) > 240:
                        msg = msg[:237] + "..."
                    lines.append(f"| {NAMES[k]} | {st} | {count} | `{msg}` |")
        if lines:
            p(title + ":")
            p("")
            p("| broker | step | lines | message |")
            p("|---|---|---|---|")
            out.extend(lines)
            p("")

# ---------------------------------------------------------------------------------------------------
# CSV: the raw results
csv_path = out_prefix + ".csv"
with open(csv_path, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["partitions", "shape", "broker", "metric", "value"])
    for (n, shape, kind), metrics in sorted(R.items()):
        for m, v in metrics.items():
            w.writerow([n, shape, kind, m, v])

# ---------------------------------------------------------------------------------------------------
# Chart: seconds against partitions, one line per broker and step (timeouts drawn at the timeout).
series = {}  # (kind, shape, step) -> [(n, s, timed_out)]
for (n, shape) in order:
    for k in KINDS:
        for metric, label in STEPS:
            v, to = step_value(n, shape, k, metric)
            if v is not None:
                series.setdefault((k, shape, label), []).append((n, max(v, 0.01), to))
for v in series.values():
    v.sort()

png = out_prefix + ".png"
made = False
if series:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(9, 5))
        for (k, shape, label), pts in sorted(series.items()):
            ax.plot([x for x, _, _ in pts], [y for _, y, _ in pts], marker="o" if k == "krill" else "s",
                    linestyle="-" if k == "krill" else "--", label=f"{NAMES[k]} {label}" + (f" ({shape})" if len(SHAPES) > 1 and shape != "twenty" else ""))
        ax.axhline(TIMEOUT, color="grey", linestyle=":", label=f"timeout {TIMEOUT:.0f} s")
        ax.set_xscale("log"); ax.set_yscale("log")
        ax.set_xlabel("partitions (RF 3, 3 brokers)"); ax.set_ylabel("seconds")
        ax.set_title("Control plane at scale: time per step")
        ax.legend(fontsize=8)
        fig.tight_layout(); fig.savefig(png, dpi=90)
        made = True
    except ImportError:
        pass
    if not made and shutil.which("gnuplot"):
        d = tempfile.mkdtemp()
        step_order = [label for _, label in STEPS]
        ns = sorted({n for (n, _) in order})
        if len(ns) == 1:
            # one partition count: bars per step, Kafka beside Krill
            fn = os.path.join(d, "bars.dat")
            rows = 0
            with open(fn, "w") as f:
                for shape in sorted({sh for (_, sh) in order}):
                    for metric, label in STEPS:
                        vals = []
                        for k in KINDS:
                            v, to = step_value(ns[0], shape, k, metric)
                            vals.append(f"{v:.3f}" if v is not None else "NaN")
                        name = label + (" (one topic)" if shape == "one" else "")
                        f.write('"%s" %s %s\n' % (name, vals[0], vals[1]))
                        rows += 1
            body = f"""set title 'Control plane at {ns[0]} partitions: seconds per step (3 brokers, RF 3); a bar at the dotted line timed out'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xrange [-0.6:{rows - 0.4}]
set logscale y
set yrange [0.05:{TIMEOUT * 3}]
set ylabel 'seconds'
set grid ytics
set key outside bottom center horizontal
plot '{fn}' using 2:xtic(1) title '{NAMES["kafka"]}' lc rgb '#4477aa', '' using 3 title 'Krill' lc rgb '#ee6677', {TIMEOUT} with lines lc rgb 'black' dt 3 title 'step timeout ({TIMEOUT:.0f} s)'
"""
        else:
            plots = []
            styles = {"create": 1, "kill -9": 2, "restart": 3, "SIGTERM": 4}
            keys = sorted(series, key=lambda key: (step_order.index(key[2]), key[1], key[0]))
            for i, key in enumerate(keys):
                k, shape, label = key
                fn = os.path.join(d, f"s{i}.dat")
                with open(fn, "w") as f:
                    for x, y, _ in series[key]:
                        f.write(f"{x} {y}\n")
                dash = "1" if k == "krill" else "2"
                title = f"{NAMES[k]} {label}" + (" (one topic)" if shape == "one" else "")
                plots.append(f"'{fn}' using 1:2 with linespoints lw 2 lc {styles[label]} dt {dash} pt {7 if k == 'krill' else 4} ps 1.3 title '{title}'")
            plots.append(f"{TIMEOUT} with lines lc rgb 'black' dt 3 title 'step timeout ({TIMEOUT:.0f} s)'")
            body = f"""set title 'Control plane at scale: seconds per step (3 brokers, RF 3); points on the dotted line timed out'
set logscale xy
set xrange [{ns[0] / 1.5}:{ns[-1] * 1.5}]
set xtics ({", ".join(str(x) for x in ns)})
set yrange [0.05:{TIMEOUT * 3}]
set xlabel 'partitions'
set ylabel 'seconds'
set key outside right
set grid
plot {', '.join(plots)}
"""
        script = f"set terminal pngcairo size 900,520 font 'sans,10'\nset output '{png}'\n" + body
        r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        made = r.returncode == 0 and os.path.exists(png)
        if not made:
            sys.stderr.write("gnuplot failed: " + r.stderr + "\n")
        shutil.rmtree(d, ignore_errors=True)

p("## Chart")
p("")
if made:
    p(f"![seconds per step against partitions]({os.path.basename(png)})")
    p("")
p("Seconds per step, log scale (`#` ≈ ×1.5; `>` = timed out):")
p("")
p("```")
for (n, shape) in order:
    for metric, label in STEPS:
        for k in KINDS:
            v, to = step_value(n, shape, k, metric)
            if v is None:
                continue
            bar = "#" * max(1, int(round(math.log(max(v, 0.1) / 0.1, 1.5))))
            p(f"{n:>6} {shape:<6} {label:<8} {NAMES[k]:<9} {bar}{'>' if to else ''} {'> ' if to else ''}{v:.1f} s")
p("```")
p("")
p(f"Raw results: `{os.path.basename(csv_path)}` (one row per broker and metric).")
print("\n".join(out))
