/* ring.c -- the Varal shared-memory ring: create, attach (with OFD locks), publish, consume. */
#define _GNU_SOURCE
#include "varal_ring.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

_Static_assert(offsetof(vr_header, layout_version) == 8, "layout");
_Static_assert(offsetof(vr_header, capacity) == 16, "layout");
_Static_assert(offsetof(vr_header, creator_starttime) == 48, "layout");
_Static_assert(offsetof(vr_header, name) == 64, "layout");
_Static_assert(offsetof(vr_header, tail) == 128, "layout");
_Static_assert(offsetof(vr_header, producer_starttime) == 176, "layout");
_Static_assert(offsetof(vr_header, head) == 256, "layout");
_Static_assert(offsetof(vr_header, consumer_starttime) == 312, "layout");
_Static_assert(offsetof(vr_header, reserved) == 384, "layout");
_Static_assert(offsetof(vr_header, latency_histogram) == 512, "layout");
_Static_assert(sizeof(vr_header) == VR_HEADER_SIZE, "layout");
_Static_assert(sizeof(vr_record) == 16, "layout");

static int failErrno(char *err, const char *call) {
    if (err) snprintf(err, VR_ERR_LEN, "%s: %s", call, strerror(errno));
    return VR_ERR;
}

static int failMessage(char *err, const char *message) {
    if (err) snprintf(err, VR_ERR_LEN, "%s", message);
    return VR_ERR;
}

static uint64_t monotonicNs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
/*
 * Every record carries its publish time, so the clock is read once per record on each side;
 * clock_gettime costs about 20 ns, more than the rest of a publish. Where the kernel itself
 * keeps time with the TSC (invariant and synchronised across CPUs), the TSC is read directly
 * (about 9 ns) and scaled to CLOCK_MONOTONIC: the rate from the first anchor (a baseline that
 * only grows), the offset from an anchor taken again every millisecond, so the error stays
 * within a millisecond's drift. Values never go back within a thread.
 */
#include <x86intrin.h>

#define TSC_REANCHOR_NS 1000000.0

static _Thread_local struct {
    int state; /* 0: not decided; 1: calibrating; 2: in use; -1: clock_gettime only */
    uint64_t first_tsc, first_ns, anchor_tsc, anchor_ns, window_ticks, last;
    double ns_per_tick;
} tsc;

static int kernelUsesTsc(void) {
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    char name[32] = "";
    if (f) {
        if (!fgets(name, sizeof(name), f)) name[0] = '\0';
        fclose(f);
    }
    return strncmp(name, "tsc", 3) == 0;
}

static uint64_t reanchor(void) {
    if (tsc.state == 0) tsc.state = kernelUsesTsc() ? 1 : -1;
    uint64_t ns = monotonicNs();
    if (tsc.state < 0) return ns;
    uint64_t ticks = __rdtsc();
    if (tsc.first_tsc == 0) {
        tsc.first_tsc = ticks;
        tsc.first_ns = ns;
    } else if (ns - tsc.first_ns >= (uint64_t)TSC_REANCHOR_NS && ticks > tsc.first_tsc) {
        tsc.ns_per_tick = (double)(ns - tsc.first_ns) / (double)(ticks - tsc.first_tsc);
        tsc.window_ticks = (uint64_t)(TSC_REANCHOR_NS / tsc.ns_per_tick);
        tsc.state = 2;
    }
    tsc.anchor_tsc = ticks;
    tsc.anchor_ns = ns;
    if (ns < tsc.last) ns = tsc.last;
    tsc.last = ns;
    return ns;
}

uint64_t vrNow(void) {
    if (tsc.state == 2) {
        uint64_t ticks = __rdtsc() - tsc.anchor_tsc;
        if (ticks < tsc.window_ticks) {
            uint64_t ns = tsc.anchor_ns + (uint64_t)((double)ticks * tsc.ns_per_tick);
            if (ns < tsc.last) ns = tsc.last;
            tsc.last = ns;
            return ns;
        }
    }
    return reanchor();
}
#else
uint64_t vrNow(void) { return monotonicNs(); }
#endif

static uint64_t realtimeNow(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Field 22 of /proc/<pid>/stat: with the pid, it names one process even after pid reuse. */
uint64_t vrProcessStartTime(const char *proc_root, uint64_t pid) {
    char path[512], buf[1024];
    snprintf(path, sizeof(path), "%s/%llu/stat", proc_root, (unsigned long long)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (!p) return 0;
    int field = 2;
    for (p++; *p && field < 22; p++)
        if (*p == ' ') field++;
    return field == 22 ? strtoull(p, NULL, 10) : 0;
}

static uint64_t align8(uint64_t n) { return (n + 7) & ~7ull; }

static int lockByte(int fd, off_t offset, short type) {
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = offset, .l_len = 1, .l_pid = 0};
    return fcntl(fd, F_OFD_SETLK, &fl);
}

static off_t lockBase(const vr_ring *ring) { return (off_t)(ring->header->header_size + ring->header->capacity); }

int vrCheckHeader(const vr_header *h, size_t size, char *err) {
    if (size < VR_HEADER_SIZE) return failMessage(err, "segment smaller than a ring header (truncated?)");
    if (memcmp(h->magic, VR_MAGIC, 8) != 0) return failMessage(err, "bad magic: not a Varal ring, or still initialising");
    if ((h->layout_version >> 16) != VR_LAYOUT_MAJOR) return failMessage(err, "unsupported layout major version");
    if (h->header_size < VR_HEADER_SIZE || h->header_size % 8 != 0) return failMessage(err, "bad header_size");
    uint64_t capacity = h->capacity;
    if (capacity < 64 || (capacity & (capacity - 1)) != 0 || capacity > (1ull << 40))
        return failMessage(err, "absurd capacity: not a power of two between 64 bytes and 1 TiB");
    if (h->header_size + capacity > size) return failMessage(err, "segment shorter than header_size + capacity (truncated)");
    uint64_t head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
    uint64_t tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
    if (tail < head) return failMessage(err, "corrupt: tail is behind head");
    if (tail - head > capacity) return failMessage(err, "corrupt: occupancy above capacity");
    return VR_OK;
}

static int mapSegment(vr_ring *ring, char *err) {
    struct stat st;
    if (fstat(ring->fd, &st) == -1) return failErrno(err, "fstat");
    if (st.st_nlink == 0) return failMessage(err, "the segment was just removed: open it again");
    if ((size_t)st.st_size < VR_HEADER_SIZE) return failMessage(err, "segment smaller than a ring header (truncated?)");
    void *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, ring->fd, 0);
    if (base == MAP_FAILED) return failErrno(err, "mmap");
    ring->header = base;
    ring->mapped = (size_t)st.st_size;
    ring->data = (uint8_t *)base + ring->header->header_size;
    return VR_OK;
}

static int takeRole(vr_ring *ring, vr_role role, char *err) {
    vr_header *h = ring->header;
    ring->role = VR_ROLE_OBSERVER; /* a role only once its lock is held */
    pid_t pid = getpid();
    if (role == VR_ROLE_PRODUCER) {
        if (lockByte(ring->fd, lockBase(ring) + VR_LOCK_PRODUCER, F_WRLCK) == -1)
            return errno == EAGAIN || errno == EACCES ? failMessage(err, "the ring already has a producer") : failErrno(err, "fcntl(F_OFD_SETLK producer)");
        if (h->producer_pid != 0 && h->producer_pid != (uint64_t)pid) ring->crashed_pid = h->producer_pid;
        h->producer_pid = (uint64_t)pid;
        h->producer_starttime = vrProcessStartTime("/proc", (uint64_t)pid);
        ring->cached_other = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
    } else if (role == VR_ROLE_CONSUMER) {
        if (lockByte(ring->fd, lockBase(ring) + VR_LOCK_CONSUMER, F_WRLCK) == -1)
            return errno == EAGAIN || errno == EACCES ? failMessage(err, "the ring already has a consumer") : failErrno(err, "fcntl(F_OFD_SETLK consumer)");
        if (h->consumer_pid != 0 && h->consumer_pid != (uint64_t)pid) ring->crashed_pid = h->consumer_pid;
        h->consumer_pid = (uint64_t)pid;
        h->consumer_starttime = vrProcessStartTime("/proc", (uint64_t)pid);
        ring->cached_other = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
    }
    ring->role = role;
    vrHeartbeat(ring);
    return VR_OK;
}

int vrCreate(vr_ring *ring, const char *path, uint64_t capacity, const char *name, uint64_t heartbeat_interval_ns, vr_role role, char *err) {
    memset(ring, 0, sizeof(*ring));
    ring->fd = -1;
    ring->role = VR_ROLE_OBSERVER;
    if (capacity < 64 || (capacity & (capacity - 1)) != 0) return failMessage(err, "capacity must be a power of two of at least 64 bytes");
    ring->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (ring->fd == -1) return failErrno(err, "open");
    /* A participant holds the gate (shared) for its lifetime; cleanup needs it exclusively. */
    if (lockByte(ring->fd, VR_HEADER_SIZE + (off_t)capacity + VR_LOCK_GATE, F_RDLCK) == -1) goto error;
    if (ftruncate(ring->fd, (off_t)(VR_HEADER_SIZE + capacity)) == -1) goto error;
    if (mapSegment(ring, err) != VR_OK) {
        close(ring->fd);
        unlink(path);
        ring->fd = -1;
        return VR_ERR;
    }
    vr_header *h = ring->header;
    h->layout_version = (VR_LAYOUT_MAJOR << 16) | VR_LAYOUT_MINOR;
    h->header_size = VR_HEADER_SIZE;
    h->capacity = capacity;
    h->slot_size = 0;
    h->flags = VR_FLAG_SPSC | VR_FLAG_TIMESTAMPS;
    h->created_realtime_ns = realtimeNow();
    h->creator_pid = (uint32_t)getpid();
    h->clock_id = CLOCK_MONOTONIC;
    h->creator_starttime = vrProcessStartTime("/proc", (uint64_t)getpid());
    h->heartbeat_interval_ns = heartbeat_interval_ns;
    snprintf(h->name, sizeof(h->name), "%s", name ? name : "");
    ring->data = (uint8_t *)h + VR_HEADER_SIZE;
    /* The magic goes last, with a release store: a reader that sees it sees the rest. */
    uint64_t magic;
    memcpy(&magic, VR_MAGIC, 8);
    __atomic_store_n((uint64_t *)h->magic, magic, __ATOMIC_RELEASE);
    if (takeRole(ring, role, err) != VR_OK) {
        vrClose(ring);
        return VR_ERR;
    }
    return VR_OK;

error:
    failErrno(err, "create");
    close(ring->fd);
    unlink(path);
    ring->fd = -1;
    return VR_ERR;
}

int vrAttach(vr_ring *ring, const char *path, vr_role role, char *err) {
    memset(ring, 0, sizeof(*ring));
    ring->role = VR_ROLE_OBSERVER;
    ring->fd = open(path, O_RDWR | O_CLOEXEC);
    if (ring->fd == -1) return failErrno(err, "open");
    if (mapSegment(ring, err) != VR_OK) goto error;
    if (vrCheckHeader(ring->header, ring->mapped, err) != VR_OK) goto error;
    if (lockByte(ring->fd, lockBase(ring) + VR_LOCK_GATE, F_RDLCK) == -1) {
        failMessage(err, errno == EAGAIN || errno == EACCES ? "a cleanup holds the ring: back off and try again" : strerror(errno));
        goto error;
    }
    if (takeRole(ring, role, err) != VR_OK) goto error;
    return VR_OK;

error:
    vrClose(ring);
    return VR_ERR;
}

void vrClose(vr_ring *ring) {
    if (ring->header && ring->role == VR_ROLE_PRODUCER && ring->header->producer_pid == (uint64_t)getpid()) __atomic_store_n(&ring->header->producer_pid, 0, __ATOMIC_RELEASE);
    if (ring->header && ring->role == VR_ROLE_CONSUMER && ring->header->consumer_pid == (uint64_t)getpid()) __atomic_store_n(&ring->header->consumer_pid, 0, __ATOMIC_RELEASE);
    if (ring->header) munmap(ring->header, ring->mapped);
    if (ring->fd >= 0) close(ring->fd); /* the OFD locks go with the last reference */
    ring->header = NULL;
    ring->data = NULL;
    ring->fd = -1;
}

void vrHeartbeat(vr_ring *ring) {
    if (ring->role == VR_ROLE_PRODUCER) __atomic_store_n(&ring->header->producer_heartbeat_ns, vrNow(), __ATOMIC_RELAXED);
    if (ring->role == VR_ROLE_CONSUMER) __atomic_store_n(&ring->header->consumer_heartbeat_ns, vrNow(), __ATOMIC_RELAXED);
}

int vrPublish(vr_ring *ring, uint32_t type, const void *payload, uint32_t length) {
    vr_header *h = ring->header;
    uint64_t capacity = h->capacity;
    uint64_t need = sizeof(vr_record) + align8(length);
    if (need > capacity) return VR_ERR;
    uint64_t tail = h->tail;
    uint64_t index = tail & (capacity - 1);
    uint64_t contiguous = capacity - index;
    /* A record never wraps: the rest of the lap is skipped (as a padding record when one fits). */
    uint64_t total = contiguous < need ? contiguous + need : need;
    if (tail + total - ring->cached_other > capacity) {
        ring->cached_other = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
        if (tail + total - ring->cached_other > capacity) {
            __atomic_store_n(&h->full_events, h->full_events + 1, __ATOMIC_RELAXED);
            return VR_FULL;
        }
    }
    if (contiguous < need) {
        if (contiguous >= sizeof(vr_record)) {
            vr_record pad = {.length = (uint32_t)(contiguous - sizeof(vr_record)), .type = VR_RECORD_PADDING, .publish_ns = 0};
            memcpy(ring->data + index, &pad, sizeof(pad));
        }
        index = 0;
    }
    uint64_t now = vrNow();
    vr_record record = {.length = length, .type = type, .publish_ns = now};
    memcpy(ring->data + index, &record, sizeof(record));
    if (length) memcpy(ring->data + index + sizeof(record), payload, length);
    __atomic_store_n(&h->tail, tail + total, __ATOMIC_RELEASE);
    __atomic_store_n(&h->published, h->published + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&h->last_publish_ns, now, __ATOMIC_RELAXED);
    return VR_OK;
}

static unsigned latencyBucket(uint64_t ns) {
    unsigned bucket = 63u - (unsigned)__builtin_clzll(ns | 1ull);
    return bucket < VR_HISTOGRAM_BUCKETS ? bucket : VR_HISTOGRAM_BUCKETS - 1;
}

int vrConsume(vr_ring *ring, uint32_t *type, void *buf, uint32_t cap, uint32_t *length) {
    vr_header *h = ring->header;
    uint64_t capacity = h->capacity;
    for (;;) {
        uint64_t head = h->head;
        if (head == ring->cached_other) {
            ring->cached_other = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
            if (head == ring->cached_other) return VR_EMPTY;
        }
        uint64_t index = head & (capacity - 1);
        uint64_t contiguous = capacity - index;
        vr_record record;
        if (contiguous < sizeof(vr_record)) {
            __atomic_store_n(&h->head, head + contiguous, __ATOMIC_RELEASE);
            continue;
        }
        memcpy(&record, ring->data + index, sizeof(record));
        if (record.type == VR_RECORD_PADDING) {
            __atomic_store_n(&h->head, head + contiguous, __ATOMIC_RELEASE);
            continue;
        }
        *length = record.length;
        if (record.length > cap) return VR_ERR; /* left in place: the caller needs a bigger buffer */
        *type = record.type;
        if (record.length) memcpy(buf, ring->data + index + sizeof(record), record.length);
        uint64_t now = vrNow();
        uint64_t latency = now > record.publish_ns ? now - record.publish_ns : 0;
        __atomic_store_n(&h->latency_last_ns, latency, __ATOMIC_RELAXED);
        if (latency > h->latency_max_ns) __atomic_store_n(&h->latency_max_ns, latency, __ATOMIC_RELAXED);
        unsigned bucket = latencyBucket(latency);
        __atomic_store_n(&h->latency_histogram[bucket], h->latency_histogram[bucket] + 1, __ATOMIC_RELAXED);
        __atomic_store_n(&h->last_consumed_publish_ns, record.publish_ns, __ATOMIC_RELAXED);
        __atomic_store_n(&h->consumed, h->consumed + 1, __ATOMIC_RELAXED);
        __atomic_store_n(&h->head, head + sizeof(record) + align8(record.length), __ATOMIC_RELEASE);
        return VR_OK;
    }
}

uint64_t vrLatencyQuantile(const vr_header *h, double quantile) {
    uint64_t total = 0;
    for (int i = 0; i < VR_HISTOGRAM_BUCKETS; i++) total += __atomic_load_n(&h->latency_histogram[i], __ATOMIC_RELAXED);
    if (total == 0) return 0;
    uint64_t wanted = (uint64_t)(quantile * (double)total + 0.5);
    if (wanted == 0) wanted = 1;
    uint64_t seen = 0;
    for (int i = 0; i < VR_HISTOGRAM_BUCKETS; i++) {
        seen += __atomic_load_n(&h->latency_histogram[i], __ATOMIC_RELAXED);
        if (seen >= wanted) return i >= 63 ? UINT64_MAX : (2ull << i) - 1; /* upper bound of the bucket */
    }
    return UINT64_MAX;
}
