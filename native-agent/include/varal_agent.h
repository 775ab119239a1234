/* varal_agent.h -- what varal-agent knows about the segments of a shm root: the header
 * parser (pure, fuzzed), the /proc and lock probes, the scan, the safe cleanup and the
 * report. See RING.md: the agent maps headers read-only and never writes to a ring.
 */
#ifndef VARAL_AGENT_H
#define VARAL_AGENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "varal_ring.h"

#define VARAL_AGENT_VERSION "0.1.0"
#define VA_PATH_LEN 512
#define VA_NAME_LEN 256
#define VA_MAX_MAPPERS 16

/* A ring header as the agent understood it, copied out of the segment. */
typedef struct va_header_view {
    char name[65]; /* printable ASCII only; anything else becomes '?' */
    uint32_t layout_version;
    uint64_t capacity;
    uint64_t head, tail, occupancy;
    uint64_t published, consumed, full_events;
    uint64_t heartbeat_interval_ns;
    uint64_t producer_heartbeat_ns, consumer_heartbeat_ns;
    uint64_t creator_pid, creator_starttime;
    uint64_t producer_pid, producer_starttime;
    uint64_t consumer_pid, consumer_starttime;
    uint64_t latency_last_ns, latency_max_ns, latency_p50_ns, latency_p99_ns;
    uint32_t clock_id;
    int corrupt; /* tail < head, or occupancy > capacity: the positions cannot be trusted */
} va_header_view;

/*
 * Parses `len` bytes read from the start of a segment whose size is `segment_size`.
 * VR_OK for a ring (corrupt positions are reported in view->corrupt, not refused);
 * VR_ERR with the reason in err for anything that is not a usable ring header.
 */
int vaParseHeader(const void *bytes, size_t len, uint64_t segment_size, va_header_view *view, char *err);

/* /proc: whether a recorded process still runs, and who maps or holds a file open. */
/* True when pid runs and is the process that recorded `starttime` (not a reuse of its pid). */
int vaProcAlive(const char *proc_root, uint64_t pid, uint64_t starttime);
/* Pids (other than `except`) that map the file (dev, ino) or hold it open, from a fresh walk of
 * /proc; returns how many (all, even past max). */
int vaFindMappers(const char *proc_root, dev_t dev, ino_t ino, pid_t except, pid_t *pids, int max);

/* Who maps or holds open each file of one device, from a single walk of /proc. */
typedef struct va_mapping {
    uint64_t inode;
    pid_t pid;
} va_mapping;

/* Walks /proc once; returns how many (inode, pid) pairs, sorted by inode, or -1. */
int vaMapperIndex(const char *proc_root, dev_t dev, pid_t except, va_mapping **index);
/* The pids of the index that map or hold `inode`; returns how many (all, even past max). */
int vaMappersOf(const va_mapping *index, int count, uint64_t inode, pid_t *pids, int max);

/* Whether a lock at byte `offset` of the file conflicts with a write lock: someone holds it. */
int vaLockHeld(int fd, off_t offset);

typedef enum { VA_ROLE_NONE, VA_ROLE_ALIVE, VA_ROLE_STALLED, VA_ROLE_DEAD, VA_ROLE_UNKNOWN } va_role_state;
const char *vaRoleStateName(va_role_state state);

/*
 * A role's state: alive (lock held, heartbeat fresh), stalled (lock held but heartbeat
 * stale, or not moving while records wait), dead (no lock, and its process is gone or
 * its pid reused), unknown (no lock, but the recorded process still runs: a writer that
 * does not follow the protocol), none (never attached).
 */
va_role_state vaJudgeRole(int lock_held, uint64_t pid, int process_alive, uint64_t heartbeat_age_ns, uint64_t stale_after_ns, int stuck_with_work);

/* --- the scan ------------------------------------------------------------------------ */

typedef struct va_options {
    const char *shm_root;
    const char *proc_root;
    uint64_t grace_ns;   /* heartbeats older than max(3 x interval, grace) count as stale for orphans */
    uint64_t min_age_ns; /* a segment younger than this is never an orphan */
    uid_t allowed_uids[8];
    int allowed_uid_count; /* segments of other owners are never removed */
    const char *clean_pattern; /* opt-in: orphans whose name matches are removed without a command */
} va_options;

typedef struct va_role_view {
    uint64_t pid;
    va_role_state state;
    double heartbeat_age_seconds; /* negative: never beat */
} va_role_view;

typedef struct va_ring_report {
    char segment[VA_NAME_LEN];
    uint64_t inode;
    uint64_t size;
    uid_t uid;
    va_header_view view;
    double occupancy_ratio;
    double oldest_age_seconds; /* negative: unknown or empty */
    double publish_rate, consume_rate; /* per second since the last scan; negative: unknown */
    va_role_view producer, consumer;
    int orphan;
    int candidate; /* an orphan unless a process maps it: settled once /proc is read */
    char orphan_reason[VR_ERR_LEN];
    double orphan_since_seconds;
} va_ring_report;

typedef struct va_foreign_report {
    char segment[VA_NAME_LEN];
    uint64_t inode;
    uint64_t size;
    uid_t uid;
    double age_seconds;
    char reason[VR_ERR_LEN]; /* why it is not a ring Varal reads */
    pid_t mapped_by[VA_MAX_MAPPERS];
    int mapped_by_count;
} va_foreign_report;

/* What a ring looked like at the last scan, for rates and "not moving". */
typedef struct va_memory_entry {
    uint64_t inode, published, consumed, head, tail, at_ns, orphan_since_ns;
} va_memory_entry;

typedef struct va_scan {
    va_ring_report *rings;
    int ring_count, ring_capacity;
    va_foreign_report *foreign;
    int foreign_count, foreign_capacity;
    uint64_t duration_ns;
    char error[VR_ERR_LEN]; /* the shm root itself could not be read */
} va_scan;

typedef struct va_memory {
    va_memory_entry *entries;
    int count, capacity;
} va_memory;

/* Scans the shm root once. `memory` carries rates and orphan ages from scan to scan. */
int vaScan(const va_options *options, va_memory *memory, va_scan *scan);
void vaScanFree(va_scan *scan);
void vaMemoryFree(va_memory *memory);
/* The name a segment gets while its removal waits one scan. */
int vaIsQuarantineName(const char *name);

/* --- cleanup --------------------------------------------------------------------------- */

typedef struct va_cleanup {
    char id[64];
    char segment[VA_NAME_LEN];
    char quarantine[VA_NAME_LEN];
    uint64_t inode;
    dev_t dev;
    int fd; /* holds the GATE write lock while quarantined */
    va_header_view last;
} va_cleanup;

typedef enum { VA_CLEANUP_REFUSED, VA_CLEANUP_QUARANTINED, VA_CLEANUP_REMOVED, VA_CLEANUP_ABORTED } va_cleanup_outcome;
const char *vaCleanupOutcomeName(va_cleanup_outcome outcome);

/*
 * First step of the safe removal of RING.md: checks the segment is still the orphan of
 * inode `inode` (and size `expected_size` when not 0), takes the GATE write lock, rescans
 * /proc, and renames it to its quarantine name. QUARANTINED means: call vaCleanupFinish
 * after the next scan. Anything else is refused, with the reason in message.
 */
va_cleanup_outcome vaCleanupBegin(const va_options *options, const va_scan *scan, const char *segment, uint64_t inode, uint64_t expected_size, va_cleanup *cleanup, char *message);
/* Second step: /proc once more, then unlink (REMOVED), or the name back (ABORTED). */
va_cleanup_outcome vaCleanupFinish(const va_options *options, va_cleanup *cleanup, char *message);

/* --- reports ------------------------------------------------------------------------ */

/* A growable text buffer; on allocation failure it stops growing and says so. */
typedef struct va_text {
    char *data;
    size_t length, capacity;
    int failed;
} va_text;

void vaTextAppend(va_text *text, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string, quoted: control characters and bytes past ASCII escaped as \u00XX. */
void vaTextJsonString(va_text *text, const char *value);
void vaTextFree(va_text *text);

typedef struct va_command_result {
    char id[64];
    char outcome[16];
    char message[VR_ERR_LEN];
} va_command_result;

typedef struct va_report_context {
    const char *host;
    const char *boot_id;
    double interval_seconds;
    const va_command_result *results;
    int result_count;
} va_report_context;

/* The report of RING.md, with the host's kernel settings. */
void vaReportJson(va_text *out, const va_scan *scan, const va_report_context *context);
/* node_exporter's textfile format: written to a temporary name, then renamed. */
int vaWriteTextfile(const char *dir, const va_scan *scan, char *err);

/* A cleanup command from the dashboard's reply. */
typedef struct va_command {
    char id[64];
    char kind[16];
    char segment[VA_NAME_LEN];
    uint64_t inode;
    uint64_t expected_size;
} va_command;

/* Reads `{ "commands": [ ... ] }`; returns how many (at most max), or -1 for a reply that is not that. */
int vaParseCommands(const char *json, size_t length, va_command *commands, int max);

#endif
