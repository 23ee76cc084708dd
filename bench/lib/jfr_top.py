#!/usr/bin/env python3
"""Summarises a JFR recording for bench/profile.sh, from the text of `jfr print` (JDK 17 has no `jfr view`).

    jfr_top.py RECORDING.jfr [TOP]
    jfr_top.py --thread main RECORDING.jfr [TOP]     one thread's wall time: where it runs and waits

Prints, as markdown: CPU samples (jdk.ExecutionSample) by thread group, by top frame (self time), by the
innermost io.krill / kafka frame (where the broker's own code spends it, callees included) and by
whole-stack inclusion; allocation (jdk.ObjectAllocationSample, by sampled weight) by thread, class and
innermost broker frame; the longest JIT compilations; and the GC pauses.
"""
import re
import subprocess
import sys
from collections import Counter

OWN = ("io.krill.", "kafka.", "org.apache.kafka.")


def events(path, name, depth=64):
    """Yields (fields, frames) for each event NAME in the recording; frames innermost first."""
    proc = subprocess.Popen(["jfr", "print", "--events", name, "--stack-depth", str(depth), path],
                            stdout=subprocess.PIPE, text=True, bufsize=1 << 20)
    fields, frames, in_stack = {}, [], False
    for line in proc.stdout:
        s = line.strip()
        if s.endswith("{") and not in_stack and not fields and not frames:
            continue
        if s == "stackTrace = [":
            in_stack = True
            continue
        if in_stack:
            if s == "]":
                in_stack = False
            elif s and s != "...":
                frames.append(re.sub(r"\s+line: \d+.*$", "", s))
            continue
        if s == "}":
            yield fields, frames
            fields, frames = {}, []
            continue
        m = re.match(r"(\w+) = (.*)$", s)
        if m:
            fields[m.group(1)] = m.group(2)
    proc.wait()


def method(frame):
    """'io.krill.X.y(int, Foo)' -> 'io.krill.X.y'"""
    return frame.split("(", 1)[0]


def thread_group(field):
    name = field.split('"')[1] if '"' in field else field
    return re.sub(r"\d+", "N", name)


def table(title, counter, total, top, unit="samples"):
    print(f"### {title}\n")
    print(f"| % | {unit} | frame |\n|---|---|---|")
    for key, n in counter.most_common(top):
        print(f"| {100.0 * n / total:.1f} | {n:,.0f} | `{key}` |")
    print()


WAITS = ["jdk.ThreadPark", "jdk.JavaMonitorWait", "jdk.JavaMonitorEnter", "jdk.ThreadSleep", "jdk.SocketRead",
         "jdk.SocketWrite", "jdk.FileRead", "jdk.FileWrite", "jdk.FileForce"]


def millis(text):
    m = re.match(r"([\d.,]+)\s*(ns|us|ms|s|min)\b", text or "")
    if not m:
        return 0.0
    return float(m.group(1).replace(",", "")) * {"ns": 1e-6, "us": 1e-3, "ms": 1, "s": 1e3, "min": 6e4}[m.group(2)]


def thread_name(field):
    return field.split('"')[1] if '"' in field else field


def one_thread(path, name, top):
    """Where one thread's wall time goes: CPU samples and blocking events, by innermost broker frame."""
    cpu = Counter()
    n = 0
    for fields, frames in events(path, "jdk.ExecutionSample"):
        if frames and thread_name(fields.get("sampledThread", "")) == name:
            n += 1
            cpu[next((method(f) for f in frames if f.startswith(OWN)), "(no broker frame) " + method(frames[0]))] += 1
    print(f"## Thread `{name}`: {n} CPU samples (about {n * 10} ms at the profile's 10 ms period)\n")
    if n:
        table("CPU samples by innermost broker frame", cpu, n, top)
    waits, count = Counter(), Counter()
    total = 0.0
    for ev in WAITS:
        for fields, frames in events(path, ev):
            if thread_name(fields.get("eventThread", "")) != name:
                continue
            ms = millis(fields.get("duration"))
            own = next((method(f) for f in frames if f.startswith(OWN)), "(no broker frame)")
            key = f"{ev.split('.', 1)[1]} in {own}"
            waits[key] += ms
            count[key] += 1
            total += ms
    print(f"## Thread `{name}` waiting: {total:,.0f} ms in events of 1 ms or more\n")
    print("| ms | events | event in innermost broker frame |\n|---|---|---|")
    for key, ms in waits.most_common(top):
        print(f"| {ms:,.0f} | {count[key]} | `{key}` |")
    print()


def main():
    if sys.argv[1] == "--thread":
        one_thread(sys.argv[3], sys.argv[2], int(sys.argv[4]) if len(sys.argv) > 4 else 25)
        return
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    by_thread, self_t, own_t, incl = Counter(), Counter(), Counter(), Counter()
    total = 0
    for fields, frames in events(path, "jdk.ExecutionSample"):
        if not frames:
            continue
        total += 1
        by_thread[thread_group(fields.get("sampledThread", "?"))] += 1
        self_t[method(frames[0])] += 1
        own = next((method(f) for f in frames if f.startswith(OWN)), "(no broker frame)")
        own_t[own] += 1
        for m in {method(f) for f in frames}:
            incl[m] += 1
    print(f"## CPU: {total:,} execution samples (jdk.ExecutionSample, Java code only)\n")
    if total:
        table("By thread (digits folded)", by_thread, total, top, "samples")
        table("Top frames, self time", self_t, total, top)
        table("Innermost broker frame (io.krill.*, kafka.*, org.apache.kafka.*), callees included",
              own_t, total, top)
        table("Whole-stack inclusion (a method anywhere on the stack)", incl, total, top)

    by_class, by_site, by_athread = Counter(), Counter(), Counter()
    weight_total = 0.0
    for fields, frames in events(path, "jdk.ObjectAllocationSample"):
        w = fields.get("weight", "0")
        m = re.match(r"([\d.,]+)\s*(bytes|kB|MB|GB)?", w)
        if not m:
            continue
        v = float(m.group(1).replace(",", "")) * {"bytes": 1, None: 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}[m.group(2)]
        weight_total += v
        by_class[fields.get("objectClass", "?").split(" ")[0]] += v / 1e6
        by_athread[thread_group(fields.get("eventThread", "?"))] += v / 1e6
        own = next((method(f) for f in frames if f.startswith(OWN)), None)
        if own is None:  # a library's thread (ZooKeeper, Helix, Netty): its first non-JDK frame
            own = "(no broker frame) " + next((method(f) for f in frames
                                               if not f.startswith(("java.", "jdk.", "sun."))), "JDK only")
        by_site[own] += v / 1e6
    if weight_total:
        print(f"## Allocation: {weight_total / 1e6:,.0f} MB sampled (jdk.ObjectAllocationSample weight)\n")
        table("By thread (digits folded)", by_athread, weight_total / 1e6, top, "MB")
        table("By class", by_class, weight_total / 1e6, top, "MB")
        table("By innermost broker frame", by_site, weight_total / 1e6, top, "MB")

    comp = []
    for fields, _ in events(path, "jdk.Compilation", depth=1):
        comp.append((millis(fields.get("duration")), fields.get("method", "?"), fields.get("compileLevel", "?")))
    if comp:
        comp.sort(reverse=True)
        print(f"## JIT: {len(comp)} compilations of 100 ms or more (jdk.Compilation), "
              f"{sum(c[0] for c in comp):,.0f} ms in total\n")
        print("| ms | level | method |\n|---|---|---|")
        for ms, m, level in comp[:top]:
            print(f"| {ms:,.0f} | {level} | `{m}` |")
        print()

    pauses, n = 0.0, 0
    for fields, _ in events(path, "jdk.GarbageCollection", depth=1):
        n += 1
        m = re.match(r"([\d.,]+)\s*(ms|s|us|ns)", fields.get("sumOfPauses", "0 ms"))
        if m:
            pauses += float(m.group(1).replace(",", "")) * {"ms": 1, "s": 1000, "us": 1e-3, "ns": 1e-6}[m.group(2)]
    print(f"## GC: {n} collections, {pauses:,.0f} ms of pauses in total\n")


if __name__ == "__main__":
    main()
