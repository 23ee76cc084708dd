"""confluent-kafka-python (librdkafka) consumer group member, driven by PythonGroupTest.

usage: confluent_group.py member BOOTSTRAP GROUP TOPIC
       confluent_group.py committed BOOTSTRAP GROUP TOPIC PARTITIONS

member subscribes to TOPIC in GROUP (classic protocol, range assignor, auto commit off) and prints,
one line each, flushed at once:
    assigned P,P,...        after each rebalance (the whole new assignment; "assigned -" for none)
    revoked P,P,...
    record P OFFSET VALUE   once the offset after the record is committed (synchronous commit)
It stops when its standard input ends: it closes the consumer (LeaveGroup), prints "closed" and exits 0.
Any consumer or commit error ends it with status 1 and the error on stderr.

committed prints "committed P OFFSET" for partitions 0..PARTITIONS-1 as the group committed them
(-1001 when nothing is committed), asked by a new consumer of the group that does not subscribe.
"""
import sys
import threading

from confluent_kafka import Consumer, KafkaException, TopicPartition


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def partitions(tps):
    return ",".join(str(tp.partition) for tp in sorted(tps, key=lambda tp: tp.partition)) or "-"


def member(bootstrap, group, topic):
    stop = threading.Event()

    def wait_for_end_of_input():
        sys.stdin.read()
        stop.set()

    threading.Thread(target=wait_for_end_of_input, daemon=True).start()
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "partition.assignment.strategy": "range",
        "session.timeout.ms": 10000,
        "heartbeat.interval.ms": 500,
        "topic.metadata.refresh.interval.ms": 1000,
    })
    consumer.subscribe([topic],
                       on_assign=lambda c, tps: say("assigned " + partitions(tps)),
                       on_revoke=lambda c, tps: say("revoked " + partitions(tps)))
    while not stop.is_set():
        msg = consumer.poll(0.2)
        if msg is None:
            continue
        if msg.error():
            raise KafkaException(msg.error())
        consumer.commit(message=msg, asynchronous=False)
        say("record %d %d %s" % (msg.partition(), msg.offset(), msg.value().decode()))
    consumer.close()
    say("closed")


def committed(bootstrap, group, topic, count):
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "enable.auto.commit": False,
    })
    offsets = consumer.committed([TopicPartition(topic, p) for p in range(count)], timeout=20)
    consumer.close()
    for tp in sorted(offsets, key=lambda tp: tp.partition):
        if tp.error:
            raise KafkaException(tp.error)
        say("committed %d %d" % (tp.partition, tp.offset))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "member":
        member(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "committed":
        committed(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        sys.exit("unknown mode " + mode)
