/* ring-tool.h -- what the producer and consumer tools share: options, pacing, a stall switch. */
#ifndef VARAL_RING_TOOL_H
#define VARAL_RING_TOOL_H

#include <signal.h>
#include <stdint.h>

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

extern volatile sig_atomic_t toolStopping;
extern volatile sig_atomic_t toolStalled;

/* Parses the options shared by both tools; exits with a usage message on bad input. */
void toolParse(int argc, char **argv, tool_options *options, const char *usage);
/* Installs SIGINT/SIGTERM (stop) and SIGUSR1 (toggle the stall). */
void toolSignals(void);
/* Sleeps until the n-th record is due at `rate` since `started_ns`. */
void toolPace(uint64_t started_ns, uint64_t n, double rate);
void toolSleepMs(unsigned ms);

#endif
