/* ring-producer.c -- publishes records into a ring at a rate, for tests and the demo.
 *   varal-ring-producer --path /dev/shm/orders [--create --capacity BYTES --name NAME]
 *                       [--rate N] [--size BYTES] [--count N] [--stall] [--heartbeat-ms MS]
 * Prints "ready <pid>" once attached. SIGUSR1 toggles the stall: the role stays held, but
 * nothing is published and no heartbeat is written. */
#include <stdio.h>
#include <stdlib.h>

#include "ring-tool.h"
#include "varal_ring.h"

typedef struct producer {
    char *payload;
    uint32_t size;
} producer;

static int publishOne(vr_ring *ring, uint64_t done, void *state) {
    producer *p = state;
    snprintf(p->payload, p->size ? p->size : 1, "%llu", (unsigned long long)done);
    return vrPublish(ring, VR_RECORD_FIRST_USER_TYPE, p->payload, p->size) == VR_OK;
}

int main(int argc, char **argv) {
    tool_options o;
    toolParse(argc, argv, &o, "usage: varal-ring-producer --path SEGMENT [--create --capacity BYTES --name NAME] [--rate N] [--size BYTES] [--count N] [--stall]\n");
    vr_ring ring;
    char err[VR_ERR_LEN];
    int rc = o.create ? vrCreate(&ring, o.path, o.capacity, o.name, o.heartbeat_ms * 1000000ull, VR_ROLE_PRODUCER, err) : vrAttach(&ring, o.path, VR_ROLE_PRODUCER, err);
    if (rc != VR_OK) {
        fprintf(stderr, "varal-ring-producer: %s: %s\n", o.path, err);
        return 1;
    }
    producer state = {calloc(1, o.size ? o.size : 1), o.size};
    toolRun("varal-ring-producer", &ring, &o, publishOne, &state);
    free(state.payload);
    return 0;
}
