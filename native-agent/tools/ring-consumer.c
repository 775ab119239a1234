/* ring-consumer.c -- consumes records from a ring at a rate, for tests and the demo.
 *   varal-ring-consumer --path /dev/shm/orders [--rate N] [--count N] [--stall] [--heartbeat-ms MS]
 * Prints "ready <pid>" once attached. SIGUSR1 toggles the stall: the role stays held, but
 * nothing is consumed and no heartbeat is written. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ring-tool.h"
#include "varal_ring.h"

int main(int argc, char **argv) {
    tool_options o;
    toolParse(argc, argv, &o, "usage: varal-ring-consumer --path SEGMENT [--rate N] [--count N] [--stall]\n");
    toolSignals();
    vr_ring ring;
    char err[VR_ERR_LEN];
    if (vrAttach(&ring, o.path, VR_ROLE_CONSUMER, err) != VR_OK) {
        fprintf(stderr, "varal-ring-consumer: %s: %s\n", o.path, err);
        return 1;
    }
    if (ring.crashed_pid) fprintf(stderr, "varal-ring-consumer: took over from pid %llu, which did not detach (it crashed)\n", (unsigned long long)ring.crashed_pid);
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    static char buf[1 << 16];
    uint64_t started = vrNow(), received = 0, last_beat = 0;
    while (!toolStopping && (o.count == 0 || received < o.count)) {
        if (toolStalled) {
            toolSleepMs(10);
            continue;
        }
        uint64_t now = vrNow();
        if (now - last_beat > o.heartbeat_ms * 1000000ull) {
            vrHeartbeat(&ring);
            last_beat = now;
        }
        uint32_t type, length;
        if (vrConsume(&ring, &type, buf, sizeof(buf), &length) == VR_OK) {
            received++;
            toolPace(started, received, o.rate);
        } else {
            toolSleepMs(1);
        }
    }
    vrClose(&ring);
    return 0;
}
