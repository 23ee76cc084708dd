"""confluent-kafka-python (librdkafka) transactions, driven by PythonTransactionsTest.

usage: confluent_txn.py produce BOOTSTRAP TOPIC TRANSACTIONAL_ID
       confluent_txn.py read BOOTSTRAP TOPIC ISOLATION_LEVEL
       confluent_txn.py transform BOOTSTRAP SOURCE TARGET GROUP TRANSACTIONAL_ID COUNT

produce writes to partition 0 of TOPIC in three transactions: ten records "committed-a-I" (committed),
ten "aborted-I" (flushed to the broker, then aborted), ten "committed-b-I" (committed); it prints
"committed 10", "aborted 10", "committed 10" as each transaction ends.

read reads partition 0 from the beginning with isolation.level ISOLATION_LEVEL (read_committed or
read_uncommitted) up to the end of the partition as the broker reports it, and prints each value, then
"end".

transform consumes SOURCE in GROUP (read_committed) and writes each value upper-cased to the same
partition of TARGET, one transaction per batch that also commits the batch's consumed offsets for the
group (send_offsets_to_transaction); it prints "committed N" per transaction and stops after COUNT
records. Errors go to stderr with exit status 1.
"""
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, OFFSET_BEGINNING, Producer, TopicPartition


def produce(bootstrap, topic, transactional_id):
    producer = Producer({
        "bootstrap.servers": bootstrap,
        "transactional.id": transactional_id,
        "transaction.timeout.ms": 60000,
        "linger.ms": 5,
    })
    producer.init_transactions(30)

    def transaction(prefix, commit):
        producer.begin_transaction()
        for i in range(10):
            producer.produce(topic, key="k-%d" % i, value="%s-%d" % (prefix, i), partition=0)
        if commit:
            producer.commit_transaction(30)
            print("committed 10")
        else:
            if producer.flush(30) != 0:
                raise KafkaException("records of the transaction to abort were not delivered")
            producer.abort_transaction(30)
            print("aborted 10")
        sys.stdout.flush()

    transaction("committed-a", True)
    transaction("aborted", False)
    transaction("committed-b", True)


def read(bootstrap, topic, isolation_level):
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": "unused-assign-only",
        "enable.auto.commit": False,
        "enable.partition.eof": True,
        "isolation.level": isolation_level,
    })
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    values = []
    deadline = time.time() + 30
    while True:
        if time.time() > deadline:
            raise KafkaException("no end of partition within 30 s; read so far: %s" % values)
        msg = consumer.poll(0.5)
        if msg is None:
            continue
        if msg.error():
            if msg.error().code() == KafkaError._PARTITION_EOF:
                break
            raise KafkaException(msg.error())
        values.append(msg.value().decode())
    consumer.close()
    for value in values:
        print(value)
    print("end")


def transform(bootstrap, source, target, group, transactional_id, count):
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "isolation.level": "read_committed",
    })
    producer = Producer({
        "bootstrap.servers": bootstrap,
        "transactional.id": transactional_id,
        "transaction.timeout.ms": 60000,
    })
    producer.init_transactions(30)
    consumer.subscribe([source])
    done = 0
    deadline = time.time() + 60
    while done < count:
        if time.time() > deadline:
            raise KafkaException("transformed only %d of %d records within 60 s" % (done, count))
        batch = consumer.consume(num_messages=20, timeout=0.5)
        if not batch:
            continue
        producer.begin_transaction()
        for msg in batch:
            if msg.error():
                raise KafkaException(msg.error())
            producer.produce(target, key=msg.key(), value=msg.value().decode().upper(), partition=msg.partition())
        producer.send_offsets_to_transaction(consumer.position(consumer.assignment()),
                                             consumer.consumer_group_metadata(), 30)
        producer.commit_transaction(30)
        done += len(batch)
        print("committed %d" % len(batch))
        sys.stdout.flush()
    consumer.close()


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "produce":
        produce(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "read":
        read(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "transform":
        transform(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], int(sys.argv[7]))
    else:
        sys.exit("unknown mode " + mode)
