#!/usr/bin/env python3
"""Turns bench/run.sh's raw results (TSV: scenario, metric, broker, run, value) into the markdown report:
one table per scenario with Kafka's median, Krill's median, the ratio Krill/Kafka and the issue's
target. Parameters and the machine line come from BENCH_* environment variables set by run.sh."""
import os
import statistics
import sys
from collections import defaultdict

E = os.environ.get

# (scenario key, title, description, [(metric, label, better, target)])
# better: "higher" or "lower" is better; target: None, (">=", ratio), ("<=", ratio) or ("abs<=", value)
SCENARIOS = [
    ("produce", "1. Produce throughput",
     lambda: f"{int(E('BENCH_PRODUCE_RECORDS')):,} records of {E('BENCH_RECORD_SIZE')} B "
             f"({E('BENCH_TOPIC_MB')} MiB), 6 partitions, RF 1, unthrottled, "
             f"ProducerPerformance `{E('BENCH_PRODUCE_PROPS')}`",
     [("mbps", "throughput (MB/s)", "higher", (">=", 1.5)),
      ("rps", "records/s", "higher", None),
      ("p99", "p99 latency at saturation (ms)", "lower", None),
      ("client_cores", "producer client's CPU (cores busy)", None, None)]),
    ("latency", "2. Produce latency at a fixed rate",
     lambda: f"{int(E('BENCH_LAT_RECORDS')):,} records of {E('BENCH_RECORD_SIZE')} B at "
             f"{int(E('BENCH_LAT_RATE')):,} records/s, 6 partitions, RF 1, ProducerPerformance "
             f"`{E('BENCH_LAT_PROPS')}`; percentiles of the tool's steady state (after the first "
             f"{int(E('BENCH_LAT_WARMUP', '0')):,} records), in whole milliseconds",
     [("p50", "p50 (ms)", "lower", None),
      ("p99", "p99 (ms)", "lower", ("<=", 0.1)),
      ("p999", "p99.9 (ms)", "lower", None),
      ("rate", "achieved records/s (steady state)", "higher", None)]),
    ("consume", "3. Consume throughput from the start of the topic",
     lambda: f"ConsumerPerformance reads the {E('BENCH_TOPIC_MB')} MiB topic of scenario 1 from offset 0 "
             f"(in the page cache, as right after it was written), default consumer settings, a new group "
             f"(after a warm-up group on another topic, so `__consumer_offsets` exists)",
     [("fetch_mbps", "throughput, fetch time (MB/s)", "higher", (">=", 1.5)),
      ("mbps", "throughput incl. group join (MB/s)", "higher", None),
      ("join_ms", "group join (ms)", "lower", None),
      ("client_cores", "consumer client's CPU (cores busy)", None, None)]),
    ("e2e", "4. End-to-end latency",
     lambda: f"EndToEndLatency, {int(E('BENCH_E2E_RECORDS')):,} records of {E('BENCH_RECORD_SIZE')} B, "
             f"acks=all, one in flight (produce, then poll until it arrives), 1 partition, while a "
             f"background ProducerPerformance adds {int(E('BENCH_E2E_LOAD_RATE')):,} records/s to another topic "
             f"(whole milliseconds, truncated: 0 means under 1 ms, except the average)",
     [("avg", "average (ms)", "lower", None),
      ("p50", "p50 (ms)", "lower", None),
      ("p99", "p99 (ms)", "lower", None),
      ("p999", "p99.9 (ms)", "lower", None)]),
    ("wide", "4b. A consumer of many partitions, few of them written",
     lambda: f"one ConsumerPerformance (`--include 'wide-.*'`, default consumer settings) reads "
             f"{int(E('BENCH_WIDE_PARTITIONS')):,} partitions of two topics, RF 1, while ProducerPerformance "
             f"writes {int(E('BENCH_WIDE_RECORDS')):,} records of {E('BENCH_RECORD_SIZE')} B at "
             f"{int(E('BENCH_WIDE_RATE')):,} records/s to {E('BENCH_WIDE_BUSY')} of them (`{E('BENCH_LAT_PROPS')}`), "
             f"after {int(E('BENCH_WIDE_WARMUP', '0')):,} written and read the same way, not measured; "
             f"the broker's CPU from the first measured write until the consumer has read the last record",
     [("cpu_per_gb", "broker CPU s per GB written and read", "lower", ("<=", 0.3)),
      ("consumer_cores", "consumer client's CPU (cores busy, incl. its join)", "lower", None),
      ("fetches_per_1000", "fetch responses per 1,000 records (the consumer's fetch-total)", None, None)]),
    ("share", "4c. Share groups (KIP-932): a topic read by a share group",
     lambda: f"{int(E('BENCH_SHARE_RECORDS', '0')):,} records of {E('BENCH_RECORD_SIZE')} B in "
             f"{E('BENCH_SHARE_PARTITIONS')} partitions (RF 1, written by ProducerPerformance "
             f"`{E('BENCH_PRODUCE_PROPS')}` just before), read from the start by a new share group "
             f"(`share.auto.offset.reset=earliest` set as a group config with kafka-configs first) of "
             f"{' and of '.join(E('BENCH_SHARE_CONSUMERS', '').split())} consumers: ShareConsumerPerformance "
             f"`--threads N` (one KafkaShareConsumer per thread, one JVM, implicit acknowledgement, default "
             f"settings), after a share group read the warm-up topic (not measured). Records/s and MB/s "
             f"(MiB/s) are the tool's: from the consumers' creation to the last record, so the join and "
             f"the share sessions are included; broker CPU = utime+stime of the broker process over the "
             f"read, per 10^9 bytes read. \"From the first record\": the same count over the time after the first "
             f"record reached any consumer (the tool's progress lines, every 200 ms, so within 0.2 s)",
     lambda: share_metrics()),
    ("cluster", "5. Three brokers on this machine, RF 3, min.insync.replicas=2, acks=all",
     lambda: f"Kafka: 3 combined KRaft nodes; Krill: 3 brokers + 1 ZooKeeper (its RSS and CPU included). "
             f"6 partitions; {int(E('BENCH_CLUSTER_RECORDS')):,} records unthrottled "
             f"(`{E('BENCH_PRODUCE_PROPS')}`), then {int(E('BENCH_CLUSTER_LAT_RECORDS')):,} at "
             f"{int(E('BENCH_CLUSTER_RATE')):,} records/s (`{E('BENCH_LAT_PROPS')}`, steady state after "
             f"{int(E('BENCH_LAT_WARMUP', '0')):,} records), then everything read from the start by one "
             f"ConsumerPerformance",
     [("mbps", "throughput (MB/s)", "higher", (">=", 1.5)),
      ("p99_saturated", "p99 at saturation (ms)", "lower", None),
      ("client_cores", "producer client's CPU (cores busy)", None, None),
      ("p50_fixed", "p50 at the fixed rate (ms)", "lower", None),
      ("p99_fixed", "p99 at the fixed rate (ms)", "lower", ("<=", 0.5)),
      ("p999_fixed", "p99.9 at the fixed rate (ms)", "lower", None),
      ("rss_mb", "RSS of all processes, peak (MiB)", "lower", None),
      ("cpu_per_gb", "CPU s per GB produced, all processes", "lower", ("<=", 0.5)),
      ("consume_mbps", "consume from the start, new group (MB/s, incl. its join)", "higher", None),
      ("cpu_per_gb_consumed", "CPU s per GB consumed, all processes (incl. the group join)", "lower", ("<=", 0.4)),
      ("ready_s", "start to RF 3 topic in sync + first produce (s)", "lower", None)]),
    ("ready", "6. Ready to produce",
     lambda: "wall time from the broker process's start to the first acknowledged produce (acks=all, "
             "topic auto-created); the probe client is started beforehand so its JVM start is not "
             "counted; Kafka's `kafka-storage format` step runs before and is not counted",
     [("ready_s", "start to first produce (s)", "lower", ("abs<=", 1.0))]),
    ("resources", "7. Resources under load (the broker process, /proc)",
     lambda: "RSS sampled every 0.5 s during scenarios 1 and 3; CPU = utime+stime of the broker process "
             f"over the scenario, per 10^9 bytes of records; heap `{E('BENCH_HEAP_USED')}` for both",
     [("rss_produce_mb", "RSS peak while producing (MiB)", "lower", ("<=", 0.5)),
      ("rss_consume_mb", "RSS peak while consuming (MiB)", "lower", None),
      ("cpu_per_gb_produced", "CPU s per GB produced", "lower", ("<=", 0.5)),
      ("cpu_per_gb_produced_sys", "… of which in the kernel (stime)", "lower", None),
      ("cpu_per_gb_produced_jit", "… of which JIT compiler threads", "lower", None),
      ("cpu_per_gb_consumed", "CPU s per GB consumed (incl. the group join)", "lower", ("<=", 0.4)),
      ("cpu_per_gb_consumed_sys", "… of which in the kernel (stime)", "lower", None),
      ("cpu_per_gb_consumed_jit", "… of which JIT compiler threads", "lower", None)]),
]


def share_metrics():
    out = [("share_version", "share.version finalized (kafka-features describe)", "info", None)]
    for n in E("BENCH_SHARE_CONSUMERS", "1 3").split():
        c = f"{n} consumer{'s' if n != '1' else ''}"
        out += [(f"rps_{n}", f"{c}: records/s", "higher", None),
                (f"mbps_{n}", f"{c}: throughput (MB/s)", "higher", None),
                (f"seconds_{n}", f"{c}: time to read all (s)", "lower", None),
                (f"first_s_{n}", f"{c}: first record after (s; the join: heartbeats)", "lower", None),
                (f"fetch_rps_{n}", f"{c}: records/s from the first record", "higher", None),
                (f"fetch_mbps_{n}", f"{c}: throughput from the first record (MB/s)", "higher", None),
                (f"cpu_per_gb_{n}", f"{c}: broker CPU s per GB read", "lower", None),
                (f"cpu_per_gb_jit_{n}", f"{c}: … of which JIT compiler threads", "lower", None),
                (f"rss_mb_{n}", f"{c}: broker RSS peak (MiB)", "lower", None),
                (f"client_cores_{n}", f"{c}: client's CPU (cores busy)", None, None),
                (f"extra_pct_{n}", f"{c}: records read beyond the topic's (% of it)", None, None),
                (f"top_pct_{n}", f"{c}: the busiest consumer's part of the records (%)", None, None)]
    return out


def fmt(v):
    if v is None:
        return "–"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def cell(values):
    if not values:
        return "–", None
    m = statistics.median(values)
    if len(values) == 1:
        return fmt(m), m
    return f"{fmt(m)} ({fmt(min(values))}–{fmt(max(values))})", m


def main():
    data = defaultdict(list)
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 5:
                continue
            scen, metric, broker, _run, value = parts
            data[(scen, metric, broker)].append(float(value))
    present = {k[0] for k in data}
    took = int(E("BENCH_TOOK", "0"))
    out = []
    w = out.append
    w(f"# Krill vs Apache Kafka {E('BENCH_KAFKA_VERSION')} ({E('BENCH_MODE')})")
    w("")
    w(f"Machine: {E('BENCH_MACHINE')}.")
    w("")
    w(f"{E('BENCH_REPEATS')} run(s) per broker, alternating (ABBA); medians, with (min–max) over the runs. "
      f"Both brokers: heap `{E('BENCH_HEAP_USED')}`, `{E('BENCH_JVM_USED')}`, data on the same disk "
      f"(a fresh temp dir per run), loopback only; clients are Kafka {E('BENCH_KAFKA_VERSION')}'s own tools "
      f"on the same machine, so broker and client share the cores. Ratio = Krill / Kafka. "
      f"The machine is shared and noisy: compare the ratios within this run, not absolute numbers "
      f"across runs. The whole run took {took // 60} min {took % 60} s.")
    w("")
    loads = {b: data.get(("machine", "load1", b), []) for b in ("kafka", "krill")}
    if loads["kafka"] or loads["krill"]:
        cores = os.cpu_count() or 1
        w(f"Machine load (1-minute load average when each broker's runs started; {cores}.0 = all "
          f"{cores} cores busy): "
          + "; ".join(f"{'Kafka' if b == 'kafka' else 'Krill'} {', '.join(fmt(v) for v in vs)}"
                      for b, vs in loads.items() if vs) + ".")
        w("")
        peak = max(loads["kafka"] + loads["krill"])
        if peak > 4 * cores:
            w(f"**Warning: the load average reached {fmt(peak)} on {cores} cores during this run. Other work "
              f"took most of the CPU (see the clients' \"cores busy\"); these figures say more about that "
              f"than about either broker. Run again on a quieter machine.**")
            w("")
    w("\"Cores busy\" is a client's own CPU time over its wall time (`/usr/bin/time`): near 1.0 the "
      "client saturates a core, which bounds the figure for both brokers; far below 1.0 under load, "
      "the client was starved by other work.")
    w("")
    summary = []
    for key, title, desc, metrics in SCENARIOS:
        if key not in present:
            continue
        w(f"## {title}")
        w("")
        w(desc() + ".")
        w("")
        w("| metric | better | Kafka 4.4 | Krill | Krill/Kafka | target | met |")
        w("|---|---|---|---|---|---|---|")
        if callable(metrics):
            metrics = metrics()
        for metric, label, better, target in metrics:
            kc, km = cell(data.get((key, metric, "kafka"), []))
            rc, rm = cell(data.get((key, metric, "krill"), []))
            if km is None and rm is None:
                continue
            # "info": a setting, not a measure; no ratio
            ratio = rm / km if (km not in (None, 0) and rm is not None and better != "info") else None
            tcell, met = "", ""
            if target:
                op, t = target
                if op == ">=":
                    tcell = f"≥ {t}x"
                    met = "–" if ratio is None else ("yes" if ratio >= t else "no")
                elif op == "<=":
                    tcell = f"≤ {t}x"
                    met = "–" if ratio is None else ("yes" if ratio <= t else "no")
                else:
                    tcell = f"Krill ≤ {t:g} s"
                    met = "–" if rm is None else ("yes" if rm <= t else "no")
                summary.append((f"{title.split('. ', 1)[1]}: {label}", tcell,
                                "–" if ratio is None else f"{ratio:.2g}x" if ratio < 0.1 else f"{ratio:.2f}x",
                                fmt(rm), met))
            rcell = "–" if ratio is None else f"{ratio:.2g}x" if ratio < 0.1 else f"{ratio:.2f}x"
            w(f"| {label} | {'' if better == 'info' else better or ''} | {kc} | {rc} | {rcell} | {tcell} | {met} |")
        w("")
    if summary:
        w("## Targets (issue 10)")
        w("")
        w("| target | wanted | Krill/Kafka | Krill | met |")
        w("|---|---|---|---|---|")
        for name, wanted, ratio, krill, met in summary:
            w(f"| {name} | {wanted} | {ratio} | {krill} | {met} |")
        w("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
