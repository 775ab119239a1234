/* ring-tool.h -- what the producer and consumer tools share: options, pacing, a stall switch. */
#ifndef VARAL_RING_TOOL_H
#define VARAL_RING_TOOL_H

#include <stdint.h>

#include "varal_ring.h"

typedef struct tool_options {
    const char *path;
    int create;
    uint64_t capacity;
    const char *name;
    uint64_t heartbeat_ms;
    double rate;    /* records per second; 0 = as fast as the ring allows */
    uint32_t size;  /* payload bytes */
    uint64_t count; /* stop after this many; 0 = run until signalled */
    int stall;      /* hold the role but neither beat nor move (SIGUSR1 toggles) */
} tool_options;

/* Parses the options shared by both tools; exits with a usage message on bad input. */
void toolParse(int argc, char **argv, tool_options *options, const char *usage);

/* Moves one record; returns 1, or 0 when it cannot now (the ring is full, or empty). */
typedef int (*tool_step)(vr_ring *ring, uint64_t done, void *state);

/*
 * Says "ready <pid>" (and whom the role was taken over from), then calls `step` at the
 * options' rate, beating, until --count records, SIGINT or SIGTERM; SIGUSR1 toggles the
 * stall. Closes the ring.
 */
void toolRun(const char *tool, vr_ring *ring, const tool_options *options, tool_step step, void *state);

#endif
