"""confluent-kafka-python (librdkafka) client driven by PythonClientTest.

usage: confluent_client.py produce BOOTSTRAP TOPIC PARTITION COUNT CODEC
       confluent_client.py consume BOOTSTRAP TOPIC PARTITION COUNT [START_OFFSET RESET_POLICY]

produce prints "acked OFFSET" per delivery report (in send order), consume prints "OFFSET KEY VALUE"
per record then "end HIGH_WATERMARK"; with a start offset it is assigned there (past the end: the broker
answers OFFSET_OUT_OF_RANGE and auto.offset.reset decides). Errors go to stderr with exit status 1.
"""
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition, OFFSET_BEGINNING


def produce(bootstrap, topic, partition, count, codec):
    producer = Producer({
        "bootstrap.servers": bootstrap,
        "compression.codec": codec,
        "acks": "all",
        "linger.ms": 10,
        "message.timeout.ms": 30000,
    })
    acked = {}
    errors = []

    def on_delivery(err, msg):
        if err is not None:
            errors.append(str(err))
        else:
            acked[msg.key().decode()] = msg.offset()

    for i in range(count):
        while True:
            try:
                producer.produce(topic, key="k-%d" % i, value="%s-value-%d" % (codec, i), partition=partition,
                                 on_delivery=on_delivery)
                break
            except BufferError:
                producer.poll(0.1)
        producer.poll(0)
    remaining = producer.flush(30)
    if errors or remaining:
        sys.stderr.write("delivery errors: %s, undelivered: %d\n" % (errors[:5], remaining))
        sys.exit(1)
    for i in range(count):
        print("acked %d" % acked["k-%d" % i])


def consume(bootstrap, topic, partition, count, start=OFFSET_BEGINNING, reset="earliest"):
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": "unused-assign-only",
        "enable.auto.commit": False,
        "enable.partition.eof": True,
        "auto.offset.reset": reset,
    })
    consumer.assign([TopicPartition(topic, partition, start)])
    out = []
    deadline = time.time() + 30
    while len(out) < count and time.time() < deadline:
        msg = consumer.poll(0.5)
        if msg is None:
            continue
        if msg.error():
            if msg.error().code() == -191:  # _PARTITION_EOF
                continue
            raise KafkaException(msg.error())
        out.append("%d %s %s" % (msg.offset(), msg.key().decode(), msg.value().decode()))
    low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
    consumer.close()
    for line in out:
        print(line)
    print("end %d" % high)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "produce":
        produce(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    elif len(sys.argv) > 7:
        consume(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7])
    else:
        consume(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
