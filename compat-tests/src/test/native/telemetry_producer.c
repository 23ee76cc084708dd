/*
 * krill-telemetry-producer: a librdkafka producer that pushes its client metrics (KIP-714), for Krill's
 * compat tests (LibrdkafkaTelemetryTest). Built by build-share-consumer.sh, next to it, against the same
 * librdkafka 2.15.1 (Debian's 2.0.2 has no client telemetry).
 *
 *   krill-telemetry-producer BOOTSTRAP TOPIC CLIENT_ID SECONDS [KEY=VALUE ...]
 *
 * Produces one record to TOPIC every 200 ms for SECONDS, then flushes and closes (its last push is the
 * terminating one) and exits 0. The trailing KEY=VALUE pairs are extra librdkafka properties. librdkafka's
 * telemetry debug log goes to stderr; the client instance id the broker assigned, which librdkafka has no
 * API for and logs only, is printed to stdout once as "client-instance-id ID" (standard base64, as logged). Any
 * error: a message on stderr and exit code 1 (usage: 2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdkafka.h"

static const char INSTANCE_MARK[] = "client instance id ";

static double now_seconds(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* librdkafka's log, to stderr; the first line naming the client instance id also to stdout. */
static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf) {
        static int printed = 0;
        const char *mark   = strstr(buf, INSTANCE_MARK);
        (void)rk;
        fprintf(stderr, "%d %s %s\n", level, fac, buf);
        if (mark != NULL && !printed) {
                char id[64];
                if (sscanf(mark + sizeof(INSTANCE_MARK) - 1, "%63s", id) == 1) {
                        printed = 1;
                        printf("client-instance-id %s\n", id);
                        fflush(stdout);
                }
        }
}

static int set(rd_kafka_conf_t *conf, const char *key, const char *value) {
        char err[512];
        if (rd_kafka_conf_set(conf, key, value, err, sizeof(err)) != RD_KAFKA_CONF_OK) {
                fprintf(stderr, "%s=%s: %s\n", key, value, err);
                return 0;
        }
        return 1;
}

int main(int argc, char **argv) {
        char err[512];
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;
        double seconds, deadline;
        int i, sent = 0;

        if (argc < 5 || (seconds = atof(argv[4])) <= 0) {
                fprintf(stderr, "usage: %s BOOTSTRAP TOPIC CLIENT_ID SECONDS [KEY=VALUE ...]\n", argv[0]);
                return 2;
        }
        conf = rd_kafka_conf_new();
        rd_kafka_conf_set_log_cb(conf, on_log);
        if (!set(conf, "bootstrap.servers", argv[1]) || !set(conf, "client.id", argv[3])
            || !set(conf, "debug", "telemetry") || !set(conf, "enable.metrics.push", "true"))
                return 1;
        for (i = 5; i < argc; i++) {
                char *eq = strchr(argv[i], '=');
                if (eq == NULL) {
                        fprintf(stderr, "not KEY=VALUE: %s\n", argv[i]);
                        return 2;
                }
                *eq = '\0';
                if (!set(conf, argv[i], eq + 1))
                        return 1;
        }
        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
        if (rk == NULL) {
                fprintf(stderr, "rd_kafka_new: %s\n", err);
                return 1;
        }
        deadline = now_seconds() + seconds;
        while (now_seconds() < deadline) {
                char value[32];
                rd_kafka_resp_err_t e;
                snprintf(value, sizeof(value), "v%d", sent);
                e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(argv[2]), RD_KAFKA_V_VALUE(value, strlen(value)),
                                      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
                if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
                        fprintf(stderr, "produce: %s\n", rd_kafka_err2str(e));
                        rd_kafka_destroy(rk);
                        return 1;
                }
                sent++;
                rd_kafka_poll(rk, 200);
        }
        if (rd_kafka_flush(rk, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
                fprintf(stderr, "flush: %d records left\n", rd_kafka_outq_len(rk));
                rd_kafka_destroy(rk);
                return 1;
        }
        rd_kafka_destroy(rk);
        fprintf(stderr, "produced %d records\n", sent);
        return 0;
}
