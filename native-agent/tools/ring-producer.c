/* ring-producer.c -- publishes records into a ring at a rate, for tests and the demo.
 *   varal-ring-producer --path /dev/shm/orders [--create --capacity BYTES --name NAME]
 *                       [--rate N] [--size BYTES] [--count N] [--stall] [--heartbeat-ms MS]
 * Prints "ready <pid>" once attached. SIGUSR1 toggles the stall: the role stays held, but
 * nothing is published and no heartbeat is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ring-tool.h"
#include "varal_ring.h"

int main(int argc, char **argv) {
    tool_options o;
    toolParse(argc, argv, &o, "usage: varal-ring-producer --path SEGMENT [--create --capacity BYTES --name NAME] [--rate N] [--size BYTES] [--count N] [--stall]\n");
    toolSignals();
    vr_ring ring;
    char err[VR_ERR_LEN];
    int rc = o.create ? vrCreate(&ring, o.path, o.capacity, o.name, o.heartbeat_ms * 1000000ull, VR_ROLE_PRODUCER, err) : vrAttach(&ring, o.path, VR_ROLE_PRODUCER, err);
    if (rc != VR_OK) {
        fprintf(stderr, "varal-ring-producer: %s: %s\n", o.path, err);
        return 1;
    }
    if (ring.crashed_pid) fprintf(stderr, "varal-ring-producer: took over from pid %llu, which did not detach (it crashed)\n", (unsigned long long)ring.crashed_pid);
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    char *payload = calloc(1, o.size ? o.size : 1);
    uint64_t started = vrNow(), sent = 0, last_beat = 0;
    while (!toolStopping && (o.count == 0 || sent < o.count)) {
        if (toolStalled) {
            toolSleepMs(10);
            continue;
        }
        uint64_t now = vrNow();
        if (now - last_beat > o.heartbeat_ms * 1000000ull) {
            vrHeartbeat(&ring);
            last_beat = now;
        }
        snprintf(payload, o.size ? o.size : 1, "%llu", (unsigned long long)sent);
        if (vrPublish(&ring, VR_RECORD_FIRST_USER_TYPE, payload, o.size) == VR_OK) {
            sent++;
            toolPace(started, sent, o.rate);
        } else {
            toolSleepMs(1); /* full: the consumer is behind */
        }
    }
    free(payload);
    vrClose(&ring);
    return 0;
}
