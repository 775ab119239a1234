/* varal_ring.h -- a single-producer single-consumer ring in shared memory (layout v1).
 *
 * The header is 4096 bytes; data starts at header_size. Positions only ever increase;
 * capacity is a power of two; creator-, producer- and consumer-written fields sit in
 * separate 128-byte blocks so they never share a cache line. See RING.md for the layout.
 */
#ifndef VARAL_RING_H
#define VARAL_RING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define VR_OK 0
#define VR_ERR -1
#define VR_FULL -2
#define VR_EMPTY -3

#define VR_MAGIC "VARALRNG"
#define VR_LAYOUT_MAJOR 1
#define VR_LAYOUT_MINOR 0
#define VR_HEADER_SIZE 4096
#define VR_HISTOGRAM_BUCKETS 64
#define VR_ERR_LEN 256

/* Lock offsets, counted from the end of the data so that a lock never covers it. */
#define VR_LOCK_GATE 0
#define VR_LOCK_PRODUCER (1 << 20)
#define VR_LOCK_CONSUMER ((1 << 20) + 1)

#define VR_FLAG_SPSC 0x1u
#define VR_FLAG_TIMESTAMPS 0x2u

/* Record types below 16 are the ring's own. */
#define VR_RECORD_PADDING 1
#define VR_RECORD_FIRST_USER_TYPE 16

typedef struct vr_header {
    /* creator block: 0..127 */
    char magic[8];                  /* 0: written last (release); zero while initialising */
    uint32_t layout_version;        /* 8: major << 16 | minor */
    uint32_t header_size;           /* 12 */
    uint64_t capacity;              /* 16: data bytes, a power of two */
    uint32_t slot_size;             /* 24: 0 = variable-length framed records */
    uint32_t flags;                 /* 28 */
    uint64_t created_realtime_ns;   /* 32 */
    uint32_t creator_pid;           /* 40 */
    uint32_t clock_id;              /* 44: the clock of every *_ns field below */
    uint64_t creator_starttime;     /* 48: /proc/<pid>/stat field 22 */
    uint64_t heartbeat_interval_ns; /* 56 */
    char name[64];                  /* 64 */
    /* producer block: 128..255 */
    uint64_t tail;                  /* 128: producer position, release store */
    uint64_t producer_heartbeat_ns; /* 136 */
    uint64_t last_publish_ns;       /* 144 */
    uint64_t published;             /* 152 */
    uint64_t full_events;           /* 160 */
    uint64_t producer_pid;          /* 168 */
    uint64_t producer_starttime;    /* 176 */
    uint8_t producer_pad[72];
    /* consumer block: 256..383 */
    uint64_t head;                      /* 256: consumer position, release store */
    uint64_t consumer_heartbeat_ns;     /* 264 */
    uint64_t last_consumed_publish_ns;  /* 272 */
    uint64_t consumed;                  /* 280 */
    uint64_t latency_last_ns;           /* 288 */
    uint64_t latency_max_ns;            /* 296 */
    uint64_t consumer_pid;              /* 304 */
    uint64_t consumer_starttime;        /* 312 */
    uint8_t consumer_pad[64];
    uint8_t reserved[128];                                /* 384: multi-producer words */
    uint64_t latency_histogram[VR_HISTOGRAM_BUCKETS];     /* 512: log2(ns) buckets */
    uint8_t header_pad[VR_HEADER_SIZE - 1024];
} vr_header;

/* A record in the data: header then payload, padded to 8 bytes. */
typedef struct vr_record {
    uint32_t length; /* payload bytes */
    uint32_t type;
    uint64_t publish_ns;
} vr_record;

typedef enum { VR_ROLE_PRODUCER, VR_ROLE_CONSUMER, VR_ROLE_OBSERVER } vr_role;

typedef struct vr_ring {
    int fd;
    vr_header *header;
    uint8_t *data;
    size_t mapped;
    vr_role role;
    /* Each side's cached copy of the other side's position, in its own memory. */
    uint64_t cached_other;
    /* Set by attach when the role's last holder did not detach (it crashed): its pid. */
    uint64_t crashed_pid;
} vr_ring;

/* Creates the segment at path (a file under the shm root) and attaches as `role`. */
int vrCreate(vr_ring *ring, const char *path, uint64_t capacity, const char *name, uint64_t heartbeat_interval_ns, vr_role role, char *err);
/* Attaches to an existing ring; fails when the role is taken or the ring is not valid.
 * A role left by a process that crashed (it never detached) is taken over, and its pid
 * is left in ring->crashed_pid for the caller to log. */
int vrAttach(vr_ring *ring, const char *path, vr_role role, char *err);
/* Detaches: a producer or consumer clears its pid, so that the next one knows it left cleanly. */
void vrClose(vr_ring *ring);

/* VR_OK, or VR_FULL when the record does not fit now (counted in full_events). */
int vrPublish(vr_ring *ring, uint32_t type, const void *payload, uint32_t length);
/* Copies the next record's payload into buf (at most cap bytes); VR_EMPTY when none. */
int vrConsume(vr_ring *ring, uint32_t *type, void *buf, uint32_t cap, uint32_t *length);
void vrHeartbeat(vr_ring *ring);

/* Field 22 of <proc_root>/<pid>/stat (the process's start time), or 0 when it is gone. */
uint64_t vrProcessStartTime(const char *proc_root, uint64_t pid);

/* Checks a header read from a segment of `size` bytes; fills err with what is wrong. */
int vrCheckHeader(const vr_header *header, size_t size, char *err);
/* CLOCK_MONOTONIC in nanoseconds (from the TSC where the kernel keeps time with it; within
 * about 100 ns of clock_gettime, and never going back within a thread). */
uint64_t vrNow(void);
/* The ns value below which the given share (0..1) of recorded latencies fall. */
uint64_t vrLatencyQuantile(const vr_header *header, double quantile);

#endif
