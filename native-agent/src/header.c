/* header.c -- the agent's ring header parser: bytes in, a checked copy out. It works on a
 * copy so that a writer changing the segment meanwhile cannot change what was checked. */
#include <stdio.h>
#include <string.h>

#include "varal_agent.h"

static int fail(char *err, const char *message) {
    if (err) snprintf(err, VR_ERR_LEN, "%s", message);
    return VR_ERR;
}

int vaParseHeader(const void *bytes, size_t len, uint64_t segment_size, va_header_view *view, char *err) {
    memset(view, 0, sizeof(*view));
    if (len < 8 || memcmp(bytes, VR_MAGIC, 8) != 0) return fail(err, "bad magic: not a Varal ring, or still initialising");
    if (len < VR_HEADER_SIZE || segment_size < VR_HEADER_SIZE) return fail(err, "segment smaller than a ring header (truncated)");
    vr_header h;
    memcpy(&h, bytes, sizeof(h));
    if ((h.layout_version >> 16) != VR_LAYOUT_MAJOR) return fail(err, "unsupported layout major version");
    if (h.header_size < VR_HEADER_SIZE || h.header_size % 8 != 0 || h.header_size > (1u << 20)) return fail(err, "bad header_size");
    if (h.capacity < 64 || (h.capacity & (h.capacity - 1)) != 0 || h.capacity > (1ull << 40))
        return fail(err, "absurd capacity: not a power of two between 64 bytes and 1 TiB");
    if ((uint64_t)h.header_size + h.capacity > segment_size) return fail(err, "segment shorter than header_size + capacity (truncated)");

    for (size_t i = 0; i < sizeof(h.name) - 1 && h.name[i]; i++) view->name[i] = (h.name[i] >= 0x20 && h.name[i] < 0x7f && h.name[i] != '"' && h.name[i] != '\\') ? h.name[i] : '?';
    view->layout_version = h.layout_version;
    view->capacity = h.capacity;
    view->head = h.head;
    view->tail = h.tail;
    view->corrupt = h.tail < h.head || h.tail - h.head > h.capacity;
    view->occupancy = view->corrupt ? 0 : h.tail - h.head;
    view->published = h.published;
    view->consumed = h.consumed;
    view->full_events = h.full_events;
    view->heartbeat_interval_ns = h.heartbeat_interval_ns;
    view->producer_heartbeat_ns = h.producer_heartbeat_ns;
    view->consumer_heartbeat_ns = h.consumer_heartbeat_ns;
    view->creator_pid = h.creator_pid;
    view->creator_starttime = h.creator_starttime;
    view->producer_pid = h.producer_pid;
    view->producer_starttime = h.producer_starttime;
    view->consumer_pid = h.consumer_pid;
    view->consumer_starttime = h.consumer_starttime;
    view->latency_last_ns = h.latency_last_ns;
    view->latency_max_ns = h.latency_max_ns;
    view->latency_p50_ns = vrLatencyQuantile(&h, 0.5);
    view->latency_p99_ns = vrLatencyQuantile(&h, 0.99);
    view->clock_id = h.clock_id;
    return VR_OK;
}

const char *vaRoleStateName(va_role_state state) {
    switch (state) {
    case VA_ROLE_ALIVE: return "alive";
    case VA_ROLE_STALLED: return "stalled";
    case VA_ROLE_DEAD: return "dead";
    case VA_ROLE_UNKNOWN: return "unknown";
    default: return "none";
    }
}

va_role_state vaJudgeRole(int lock_held, uint64_t pid, int process_alive, uint64_t heartbeat_age_ns, uint64_t stale_after_ns, int stuck_with_work) {
    if (lock_held) return heartbeat_age_ns > stale_after_ns || stuck_with_work ? VA_ROLE_STALLED : VA_ROLE_ALIVE;
    if (pid == 0) return VA_ROLE_NONE;
    return process_alive ? VA_ROLE_UNKNOWN : VA_ROLE_DEAD;
}
