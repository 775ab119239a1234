/* ring-tool.c -- option parsing and pacing for the producer and consumer tools. */
#define _GNU_SOURCE
#include "ring-tool.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "varal_ring.h"

static volatile sig_atomic_t toolStopping = 0;
static volatile sig_atomic_t toolStalled = 0;

static void onStop(int sig) {
    (void)sig;
    toolStopping = 1;
}

static void onToggle(int sig) {
    (void)sig;
    toolStalled = !toolStalled;
}

static void toolSignals(void) {
    signal(SIGINT, onStop);
    signal(SIGTERM, onStop);
    signal(SIGUSR1, onToggle);
}

static double number(const char *flag, const char *text, double min) {
    char *end = NULL;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || value < min) {
        fprintf(stderr, "%s wants a number of at least %g, not \"%s\"\n", flag, min, text);
        exit(2);
    }
    return value;
}

void toolParse(int argc, char **argv, tool_options *o, const char *usage) {
    memset(o, 0, sizeof(*o));
    o->capacity = 1 << 20;
    o->name = "ring";
    o->heartbeat_ms = 100;
    o->size = 64;
    static const struct option options[] = {
        {"path", required_argument, 0, 'p'},   {"create", no_argument, 0, 'c'},        {"capacity", required_argument, 0, 'C'},
        {"name", required_argument, 0, 'n'},   {"heartbeat-ms", required_argument, 0, 'h'}, {"rate", required_argument, 0, 'r'},
        {"size", required_argument, 0, 's'},   {"count", required_argument, 0, 'N'},  {"stall", no_argument, 0, 'S'},
        {0, 0, 0, 0},
    };
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (option) {
        case 'p': o->path = optarg; break;
        case 'c': o->create = 1; break;
        case 'C': o->capacity = (uint64_t)number("--capacity", optarg, 64); break;
        case 'n': o->name = optarg; break;
        case 'h': o->heartbeat_ms = (uint64_t)number("--heartbeat-ms", optarg, 1); break;
        case 'r': o->rate = number("--rate", optarg, 0); break;
        case 's': o->size = (uint32_t)number("--size", optarg, 0); break;
        case 'N': o->count = (uint64_t)number("--count", optarg, 0); break;
        case 'S': o->stall = 1; break;
        default: fprintf(stderr, "%s", usage); exit(2);
        }
    }
    if (!o->path) {
        fprintf(stderr, "%s", usage);
        exit(2);
    }
    toolStalled = o->stall;
}

static void toolSleepMs(unsigned ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Sleeps until the n-th record is due at `rate` since `started_ns`. */
static void toolPace(uint64_t started_ns, uint64_t n, double rate) {
    if (rate <= 0) return;
    uint64_t due = started_ns + (uint64_t)((double)n / rate * 1e9);
    uint64_t now = vrNow();
    if (due > now) {
        uint64_t left = due - now;
        struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
        nanosleep(&ts, NULL);
    }
}

void toolRun(const char *tool, vr_ring *ring, const tool_options *o, tool_step step, void *state) {
    toolSignals();
    if (ring->crashed_pid) fprintf(stderr, "%s: took over from pid %llu, which did not detach (it crashed)\n", tool, (unsigned long long)ring->crashed_pid);
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    uint64_t started = vrNow(), done = 0, last_beat = 0;
    while (!toolStopping && (o->count == 0 || done < o->count)) {
        if (toolStalled) {
            toolSleepMs(10);
            continue;
        }
        uint64_t now = vrNow();
        if (now - last_beat > o->heartbeat_ms * 1000000ull) {
            vrHeartbeat(ring);
            last_beat = now;
        }
        if (step(ring, done, state)) {
            done++;
            toolPace(started, done, o->rate);
        } else {
            toolSleepMs(1); /* full, or empty: the other side is behind */
        }
    }
    vrClose(ring);
}
