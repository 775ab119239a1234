/* ring-consumer.c -- consumes records from a ring at a rate, for tests and the demo.
 *   varal-ring-consumer --path /dev/shm/orders [--rate N] [--count N] [--stall] [--heartbeat-ms MS]
 * Prints "ready <pid>" once attached. SIGUSR1 toggles the stall: the role stays held, but
 * nothing is consumed and no heartbeat is written. */
#include <stdio.h>
#include <stdlib.h>

#include "ring-tool.h"
#include "varal_ring.h"

static int consumeOne(vr_ring *ring, uint64_t done, void *state) {
    (void)done;
    (void)state;
    static char buf[1 << 16];
    uint32_t type, length;
    return vrConsume(ring, &type, buf, sizeof(buf), &length) == VR_OK;
}

int main(int argc, char **argv) {
    tool_options o;
    toolParse(argc, argv, &o, "usage: varal-ring-consumer --path SEGMENT [--rate N] [--count N] [--stall]\n");
    vr_ring ring;
    char err[VR_ERR_LEN];
    if (vrAttach(&ring, o.path, VR_ROLE_CONSUMER, err) != VR_OK) {
        fprintf(stderr, "varal-ring-consumer: %s: %s\n", o.path, err);
        return 1;
    }
    toolRun("varal-ring-consumer", &ring, &o, consumeOne, NULL);
    return 0;
}
