/*
 * krill-share-consumer: a share-group (KIP-932) consumer on librdkafka's preview share consumer API, for
 * Krill's compat tests (LibrdkafkaShareConsumerTest). Built by build-share-consumer.sh, next to it.
 *
 *   krill-share-consumer BOOTSTRAP GROUP TOPIC COUNT MODE MAX_SECONDS [KEY=VALUE ...]
 *
 * MODE decides each record's acknowledgement (explicit acknowledgement mode):
 *   accept         accept every record
 *   release-first  release a record delivered for the first time (delivery count 1), accept it later
 *   reject-odd     reject records with odd offsets, accept the others
 * The trailing KEY=VALUE pairs are extra librdkafka properties (e.g. debug=cgrp,fetch).
 *
 * After each poll's batch is acknowledged the acknowledgements are committed (commit_sync); then one JSON
 * line per record of the batch goes to stdout:
 *   {"partition":0,"offset":7,"deliveryCount":1,"key":"k7","value":"v7","ack":"accept"}
 * The consumer stops once COUNT records were accepted or rejected, after MAX_SECONDS, or on SIGTERM/SIGINT
 * (then at the end of the batch in hand), closes (leaving the share group) and exits 0. Records of the last
 * batch beyond COUNT are released, for other members. Any error: a message on stderr and exit code 1
 * (usage: 2).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdkafka.h"

enum mode { MODE_ACCEPT, MODE_RELEASE_FIRST, MODE_REJECT_ODD };

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig) {
        (void)sig;
        stop_requested = 1;
}

static double now_seconds(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(const char *prog) {
        fprintf(stderr,
                "usage: %s BOOTSTRAP GROUP TOPIC COUNT accept|release-first|reject-odd MAX_SECONDS "
                "[KEY=VALUE ...]\n",
                prog);
}

/* Parses a positive decimal integer; 0 when it is not one. */
static long parse_positive(const char *s) {
        char *end;
        long v;
        errno = 0;
        v     = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v <= 0)
                return 0;
        return v;
}

/* Writes bytes as a JSON string (or null), escaping quotes, backslashes and control characters; bytes
 * from 0x80 up are written as they are (UTF-8 in, UTF-8 out). */
static void json_string(FILE *out, const void *data, size_t len) {
        const unsigned char *p = data;
        size_t i;
        if (!data) {
                fputs("null", out);
                return;
        }
        fputc('"', out);
        for (i = 0; i < len; i++) {
                unsigned char c = p[i];
                if (c == '"' || c == '\\') {
                        fputc('\\', out);
                        fputc(c, out);
                } else if (c == '\n') {
                        fputs("\\n", out);
                } else if (c == '\r') {
                        fputs("\\r", out);
                } else if (c == '\t') {
                        fputs("\\t", out);
                } else if (c < 0x20 || c == 0x7f) {
                        fprintf(out, "\\u%04x", c);
                } else {
                        fputc(c, out);
                }
        }
        fputc('"', out);
}

static const char *ack_name(rd_kafka_share_AcknowledgeType_t type) {
        switch (type) {
        case RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT:
                return "accept";
        case RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_RELEASE:
                return "release";
        case RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_REJECT:
                return "reject";
        }
        return "?";
}

static rd_kafka_share_AcknowledgeType_t decide(enum mode mode, const rd_kafka_message_t *rkm) {
        switch (mode) {
        case MODE_RELEASE_FIRST:
                return rd_kafka_message_delivery_count(rkm) <= 1 ? RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_RELEASE
                                                                 : RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT;
        case MODE_REJECT_ODD:
                return (rkm->offset % 2) != 0 ? RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_REJECT
                                              : RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT;
        case MODE_ACCEPT:
        default:
                return RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT;
        }
}

static void print_record(const rd_kafka_message_t *rkm, rd_kafka_share_AcknowledgeType_t type) {
        fprintf(stdout, "{\"partition\":%" PRId32 ",\"offset\":%" PRId64 ",\"deliveryCount\":%d,\"key\":",
                rkm->partition, rkm->offset, (int)rd_kafka_message_delivery_count(rkm));
        json_string(stdout, rkm->key, rkm->key_len);
        fputs(",\"value\":", stdout);
        json_string(stdout, rkm->payload, rkm->len);
        fprintf(stdout, ",\"ack\":\"%s\"}\n", ack_name(type));
}

/* Commits the pending acknowledgements; 0 when every partition's acknowledgement succeeded. */
static int commit(rd_kafka_share_t *rkshare, int timeout_ms) {
        rd_kafka_topic_partition_list_t *results = NULL;
        rd_kafka_error_t *error = rd_kafka_share_commit_sync(rkshare, timeout_ms, &results);
        int failed              = 0;
        int i;
        if (error) {
                fprintf(stderr, "krill-share-consumer: commit_sync: %s\n", rd_kafka_error_string(error));
                rd_kafka_error_destroy(error);
                failed = 1;
        }
        if (results) {
                for (i = 0; i < results->cnt; i++) {
                        const rd_kafka_topic_partition_t *p = &results->elems[i];
                        if (p->err) {
                                fprintf(stderr,
                                        "krill-share-consumer: acknowledgement of %s [%" PRId32 "] failed: %s\n",
                                        p->topic ? p->topic : "?", p->partition, rd_kafka_err2str(p->err));
                                failed = 1;
                        }
                }
                rd_kafka_topic_partition_list_destroy(results);
        }
        return failed;
}

static int set_conf(rd_kafka_conf_t *conf, const char *name, const char *value) {
        char errstr[512];
        if (rd_kafka_conf_set(conf, name, value, errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                fprintf(stderr, "krill-share-consumer: %s=%s: %s\n", name, value, errstr);
                return 1;
        }
        return 0;
}

int main(int argc, char **argv) {
        const char *bootstrap, *group, *topic;
        long count, max_seconds;
        enum mode mode;
        rd_kafka_conf_t *conf;
        rd_kafka_share_t *rkshare;
        rd_kafka_topic_partition_list_t *topics;
        rd_kafka_resp_err_t err;
        rd_kafka_error_t *error;
        struct sigaction sa;
        char errstr[512];
        double deadline;
        long done = 0; /* records accepted or rejected */
        int failed = 0;
        int i;

        if (argc < 7) {
                usage(argv[0]);
                return 2;
        }
        bootstrap   = argv[1];
        group       = argv[2];
        topic       = argv[3];
        count       = parse_positive(argv[4]);
        max_seconds = parse_positive(argv[6]);
        if (strcmp(argv[5], "accept") == 0)
                mode = MODE_ACCEPT;
        else if (strcmp(argv[5], "release-first") == 0)
                mode = MODE_RELEASE_FIRST;
        else if (strcmp(argv[5], "reject-odd") == 0)
                mode = MODE_REJECT_ODD;
        else {
                usage(argv[0]);
                return 2;
        }
        if (count == 0 || max_seconds == 0) {
                usage(argv[0]);
                return 2;
        }

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0) {
                perror("krill-share-consumer: sigaction");
                return 1;
        }

        conf = rd_kafka_conf_new();
        if (set_conf(conf, "bootstrap.servers", bootstrap) || set_conf(conf, "group.id", group) ||
            set_conf(conf, "client.id", "krill-share-consumer") ||
            set_conf(conf, "share.acknowledgement.mode", "explicit") ||
            set_conf(conf, "max.poll.records", "200")) {
                rd_kafka_conf_destroy(conf);
                return 1;
        }
        for (i = 7; i < argc; i++) {
                char *eq = strchr(argv[i], '=');
                int bad;
                if (!eq || eq == argv[i]) {
                        fprintf(stderr, "krill-share-consumer: not KEY=VALUE: %s\n", argv[i]);
                        rd_kafka_conf_destroy(conf);
                        return 2;
                }
                *eq = '\0';
                bad = set_conf(conf, argv[i], eq + 1);
                *eq = '=';
                if (bad) {
                        rd_kafka_conf_destroy(conf);
                        return 1;
                }
        }

        rkshare = rd_kafka_share_consumer_new(conf, errstr, sizeof(errstr));
        if (!rkshare) {
                fprintf(stderr, "krill-share-consumer: cannot create the share consumer: %s\n", errstr);
                rd_kafka_conf_destroy(conf);
                return 1;
        }
        /* conf is owned by rkshare from here on. */

        topics = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(topics, topic, RD_KAFKA_PARTITION_UA);
        err = rd_kafka_share_subscribe(rkshare, topics);
        rd_kafka_topic_partition_list_destroy(topics);
        if (err) {
                fprintf(stderr, "krill-share-consumer: subscribe to %s: %s\n", topic, rd_kafka_err2str(err));
                failed = 1;
        }

        deadline = now_seconds() + (double)max_seconds;
        while (!failed && !stop_requested && done < count) {
                rd_kafka_messages_t *batch = NULL;
                rd_kafka_share_AcknowledgeType_t *acks;
                size_t n, j;
                double left = deadline - now_seconds();
                if (left <= 0) {
                        fprintf(stderr, "krill-share-consumer: time limit (%ld s) reached after %ld of %ld records\n",
                                max_seconds, done, count);
                        break;
                }

                error = rd_kafka_share_poll(rkshare, left < 0.5 ? (int)(left * 1000) + 1 : 500, &batch);
                if (error) {
                        fprintf(stderr, "krill-share-consumer: poll: %s%s\n", rd_kafka_error_string(error),
                                rd_kafka_error_is_fatal(error) ? " (fatal)" : "");
                        /* Retriable errors (a leader moving, a session being re-established) are
                         * reported and polled again; everything else ends the run. */
                        if (!rd_kafka_error_is_retriable(error)) {
                                failed = 1;
                        } else {
                                struct timespec pause = {0, 100 * 1000 * 1000};
                                nanosleep(&pause, NULL);
                        }
                        rd_kafka_error_destroy(error);
                        continue;
                }
                n = rd_kafka_messages_count(batch);
                if (n == 0) {
                        rd_kafka_messages_destroy(batch);
                        continue;
                }

                acks = calloc(n, sizeof(*acks));
                if (!acks) {
                        fprintf(stderr, "krill-share-consumer: out of memory\n");
                        rd_kafka_messages_destroy(batch);
                        failed = 1;
                        break;
                }
                for (j = 0; j < n; j++) {
                        const rd_kafka_message_t *rkm = rd_kafka_messages_get(batch, j);
                        if (rkm->err) {
                                /* A record-level error: librdkafka acknowledges such records itself. */
                                fprintf(stderr,
                                        "krill-share-consumer: record error at %s [%" PRId32 "] offset %" PRId64
                                        ": %s\n",
                                        rkm->rkt ? rd_kafka_topic_name(rkm->rkt) : "?", rkm->partition,
                                        rkm->offset, rd_kafka_message_errstr(rkm));
                                continue;
                        }
                        acks[j] = done < count ? decide(mode, rkm) : RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_RELEASE;
                        if (acks[j] != RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_RELEASE)
                                done++;
                        err = rd_kafka_share_acknowledge_type(rkshare, rkm, acks[j]);
                        if (err) {
                                fprintf(stderr,
                                        "krill-share-consumer: acknowledge offset %" PRId64 " (%s): %s\n",
                                        rkm->offset, ack_name(acks[j]), rd_kafka_err2str(err));
                                failed = 1;
                                acks[j] = 0;
                        }
                }

                if (commit(rkshare, 30000))
                        failed = 1;
                for (j = 0; j < n; j++) {
                        const rd_kafka_message_t *rkm = rd_kafka_messages_get(batch, j);
                        if (!rkm->err && acks[j] != 0)
                                print_record(rkm, acks[j]);
                }
                if (fflush(stdout) != 0) {
                        perror("krill-share-consumer: stdout");
                        failed = 1;
                }
                free(acks);
                rd_kafka_messages_destroy(batch);
        }

        /* Close: sends any acknowledgement still pending and leaves the share group. */
        error = rd_kafka_share_consumer_close(rkshare);
        if (error) {
                fprintf(stderr, "krill-share-consumer: close: %s\n", rd_kafka_error_string(error));
                rd_kafka_error_destroy(error);
                failed = 1;
        }
        error = rd_kafka_share_destroy(rkshare);
        if (error) {
                fprintf(stderr, "krill-share-consumer: destroy: %s\n", rd_kafka_error_string(error));
                rd_kafka_error_destroy(error);
                failed = 1;
        }
        return failed ? 1 : 0;
}
