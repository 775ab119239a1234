/* bench_ring.c -- 64-byte messages between two processes through the ring, a pipe and a
 * Unix stream socket, side by side: throughput (as fast as the receiver takes them) and
 * latency percentiles (paced, so that the figure is the transport's, not a queue's).
 * Prints a table and writes RESULTS_DIR/agent-ring.json (default bench-results). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results.h"
#include "varal_ring.h"

#define MESSAGE 64
#define THROUGHPUT_MESSAGES 2000000
#define LATENCY_MESSAGES 200000
#define LATENCY_RATE 100000.0
#define ROUNDS 3

typedef struct result {
    double per_second;
    double p50_us, p99_us, p999_us;
} result;

/* Shared with the receiving child: its figures come back through this page. */
typedef struct shared {
    double seconds;
    uint64_t latencies_ns[LATENCY_MESSAGES];
} shared;

/* Sender on one CPU, receiver on another, for every transport alike: a spinning ring
 * consumer that shares a CPU with its producer measures the scheduler, not the ring. */
static void pin(int cpu) {
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
}

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double quantileUs(uint64_t *sorted, size_t n, double q) { return (double)sorted[(size_t)(q * (double)(n - 1))] / 1000.0; }

static void pace(uint64_t started, uint64_t i, double rate) {
    if (rate <= 0) return;
    uint64_t due = started + (uint64_t)((double)i / rate * 1e9);
    while (vrNow() < due) {
    }
}

/* Latency phase: the sender paces itself and stamps each message with its send time. */
static void stamp(uint64_t started, uint64_t i, char *buf) {
    pace(started, i, LATENCY_RATE);
    uint64_t now = vrNow();
    memcpy(buf, &now, 8);
}

/* The receiver's side of a message: when the run started, and in the latency phase, how late. */
static void received(shared *out, int phase, uint64_t i, const char *buf, uint64_t *started) {
    if (i == 0) *started = vrNow();
    if (phase == 1) {
        uint64_t sent;
        memcpy(&sent, buf, 8);
        out->latencies_ns[i] = vrNow() - sent;
    }
}

static void percentiles(shared *out, result *r) {
    qsort(out->latencies_ns, LATENCY_MESSAGES, sizeof(uint64_t), compare);
    r->p50_us = quantileUs(out->latencies_ns, LATENCY_MESSAGES, 0.5);
    r->p99_us = quantileUs(out->latencies_ns, LATENCY_MESSAGES, 0.99);
    r->p999_us = quantileUs(out->latencies_ns, LATENCY_MESSAGES, 0.999);
}

/* --- fd transports (pipe, socket) --- */

static int readFull(int fd, void *buf, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t got = read(fd, (char *)buf + done, n - done);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) continue;
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

static int writeFull(int fd, const void *buf, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t put = write(fd, (const char *)buf + done, n - done);
        if (put <= 0) {
            if (put < 0 && errno == EINTR) continue;
            return -1;
        }
        done += (size_t)put;
    }
    return 0;
}

static result runFd(int socket_pair, shared *out) {
    result r = {0};
    for (int phase = 0; phase < 2; phase++) {
        uint64_t count = phase == 0 ? THROUGHPUT_MESSAGES : LATENCY_MESSAGES;
        int fds[2];
        if (socket_pair ? socketpair(AF_UNIX, SOCK_STREAM, 0, fds) : pipe(fds)) return r;
        int rd = fds[0], wr = fds[1];
        pid_t child = fork();
        if (child == 0) {
            pin(1);
            close(wr);
            char buf[MESSAGE];
            uint64_t started = 0;
            for (uint64_t i = 0; i < count; i++) {
                if (readFull(rd, buf, MESSAGE)) _exit(1);
                received(out, phase, i, buf, &started);
            }
            out->seconds = (double)(vrNow() - started) / 1e9;
            _exit(0);
        }
        close(rd);
        char buf[MESSAGE] = {0};
        uint64_t started = vrNow();
        for (uint64_t i = 0; i < count; i++) {
            if (phase == 1) stamp(started, i, buf);
            if (writeFull(wr, buf, MESSAGE)) break;
        }
        close(wr);
        waitpid(child, NULL, 0);
        if (phase == 0) r.per_second = (double)count / out->seconds;
    }
    percentiles(out, &r);
    return r;
}

static result runRing(const char *path, shared *out) {
    result r = {0};
    for (int phase = 0; phase < 2; phase++) {
        uint64_t count = phase == 0 ? THROUGHPUT_MESSAGES : LATENCY_MESSAGES;
        unlink(path);
        vr_ring producer;
        char err[VR_ERR_LEN];
        if (vrCreate(&producer, path, 1 << 20, "bench", 100000000, VR_ROLE_PRODUCER, err) != VR_OK) {
            fprintf(stderr, "bench: %s\n", err);
            return r;
        }
        pid_t child = fork();
        if (child == 0) {
            pin(1);
            vr_ring consumer;
            if (vrAttach(&consumer, path, VR_ROLE_CONSUMER, err) != VR_OK) _exit(1);
            char buf[MESSAGE];
            uint32_t type, length;
            uint64_t started = 0;
            for (uint64_t i = 0; i < count;) {
                if (vrConsume(&consumer, &type, buf, sizeof(buf), &length) != VR_OK) continue; /* spin, as ring consumers do */
                received(out, phase, i++, buf, &started);
            }
            out->seconds = (double)(vrNow() - started) / 1e9;
            vrClose(&consumer);
            _exit(0);
        }
        char buf[MESSAGE] = {0};
        uint64_t started = vrNow();
        for (uint64_t i = 0; i < count;) {
            if (phase == 1) stamp(started, i, buf);
            if (vrPublish(&producer, VR_RECORD_FIRST_USER_TYPE, buf, MESSAGE) == VR_OK) i++;
        }
        waitpid(child, NULL, 0);
        vrClose(&producer);
        unlink(path);
        if (phase == 0) r.per_second = (double)count / out->seconds;
    }
    percentiles(out, &r);
    return r;
}

static int byThroughput(const void *a, const void *b) {
    double x = ((const result *)a)->per_second, y = ((const result *)b)->per_second;
    return x < y ? -1 : x > y;
}

static result medianRun(result *runs) {
    qsort(runs, ROUNDS, sizeof(result), byThroughput);
    return runs[ROUNDS / 2];
}

int main(void) {
    pin(0);
    shared *out = mmap(NULL, sizeof(shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (out == MAP_FAILED) return 1;
    char path[128];
    snprintf(path, sizeof(path), "/dev/shm/varal-bench-ring-%d", (int)getpid());
    printf("ring vs pipe vs Unix socket: %d-byte messages between two processes; throughput over %d messages, latency over %d at %.0f/s; median of %d rounds\n\n",
           MESSAGE, THROUGHPUT_MESSAGES, LATENCY_MESSAGES, LATENCY_RATE, ROUNDS);
    /* The machines are shared and noisy: each transport runs ROUNDS times, interleaved, and
     * the run with the median throughput stands for it. */
    result rounds[3][ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        rounds[0][round] = runRing(path, out);
        rounds[1][round] = runFd(0, out);
        rounds[2][round] = runFd(1, out);
    }
    result ring = medianRun(rounds[0]);
    result pipe_result = medianRun(rounds[1]);
    result socket_result = medianRun(rounds[2]);
    const char *names[] = {"varal ring", "pipe", "unix socket"};
    result all[] = {ring, pipe_result, socket_result};
    printf("%-12s %14s %10s %10s %10s %12s\n", "transport", "messages/s", "p50 us", "p99 us", "p99.9 us", "ring/this");
    for (int i = 0; i < 3; i++)
        printf("%-12s %14.0f %10.2f %10.2f %10.2f %12.1f\n", names[i], all[i].per_second, all[i].p50_us, all[i].p99_us, all[i].p999_us, ring.per_second / all[i].per_second);
    char file[512];
    FILE *f = openResults("agent-ring", file, sizeof(file));
    if (f) {
        fprintf(f, "{\"benchmark\":\"agent-ring\",\"messageBytes\":%d,\"rounds\":%d,\"results\":{", MESSAGE, ROUNDS);
        for (int i = 0; i < 3; i++)
            fprintf(f, "%s\"%s\":{\"perSecond\":%.0f,\"p50Us\":%.3f,\"p99Us\":%.3f,\"p999Us\":%.3f}", i ? "," : "", names[i], all[i].per_second, all[i].p50_us, all[i].p99_us, all[i].p999_us);
        fprintf(f, "},\"ringOverPipe\":%.2f,\"ringOverSocket\":%.2f}\n", ring.per_second / pipe_result.per_second, ring.per_second / socket_result.per_second);
        fclose(f);
        printf("\nresults: %s\n", file);
    }
    return 0;
}
