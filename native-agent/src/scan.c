/* scan.c -- one pass over the shm root: each Varal ring read (never mapped, never written),
 * its roles judged from locks and heartbeats, orphans found and confirmed with /proc; every
 * other entry listed as foreign with the reason and who maps it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "varal_agent.h"

#define QUARANTINE_PREFIX ".varal-quarantine."
#define STALE_HEARTBEATS 3

int vaIsQuarantineName(const char *name) { return strncmp(name, QUARANTINE_PREFIX, strlen(QUARANTINE_PREFIX)) == 0; }

static uint64_t realtimeNs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *grow(void *items, int *capacity, int count, size_t size) {
    if (count < *capacity) return items;
    int next = *capacity ? *capacity * 2 : 64;
    void *bigger = realloc(items, (size_t)next * size);
    if (!bigger) return NULL;
    *capacity = next;
    return bigger;
}

static va_memory_entry *remembered(va_memory *memory, uint64_t inode) {
    for (int i = 0; i < memory->count; i++)
        if (memory->entries[i].inode == inode) return &memory->entries[i];
    return NULL;
}

static va_memory_entry *remember(va_memory *memory, uint64_t inode) {
    va_memory_entry *entry = remembered(memory, inode);
    if (entry) return entry;
    va_memory_entry *entries = grow(memory->entries, &memory->capacity, memory->count, sizeof(*entries));
    if (!entries) return NULL;
    memory->entries = entries;
    entry = &memory->entries[memory->count++];
    memset(entry, 0, sizeof(*entry));
    entry->inode = inode;
    return entry;
}

static va_foreign_report *addForeign(va_scan *scan, const char *name, const struct stat *st, const char *reason) {
    va_foreign_report *items = grow(scan->foreign, &scan->foreign_capacity, scan->foreign_count, sizeof(*items));
    if (!items) return NULL;
    scan->foreign = items;
    va_foreign_report *f = &scan->foreign[scan->foreign_count++];
    memset(f, 0, sizeof(*f));
    snprintf(f->segment, sizeof(f->segment), "%s", name);
    f->inode = (uint64_t)st->st_ino;
    f->size = (uint64_t)st->st_size;
    f->uid = st->st_uid;
    double age = (double)(realtimeNs() / 1000000000ull) - (double)st->st_mtime;
    f->age_seconds = age < 0 ? 0 : age;
    snprintf(f->reason, sizeof(f->reason), "%s", reason);
    return f;
}

/* The age of the record at head, if head did not move while it was read. */
static double oldestAge(int fd, const va_header_view *view, uint64_t header_size, uint64_t now) {
    if (view->corrupt || view->occupancy == 0) return -1;
    uint64_t offset = view->head & (view->capacity - 1);
    vr_record record;
    if (view->capacity - offset >= sizeof(record)) {
        if (pread(fd, &record, sizeof(record), (off_t)(header_size + offset)) != (ssize_t)sizeof(record)) return -1;
        /* A padding record fills the end of a lap: the oldest record starts the next one. */
        if (record.type == VR_RECORD_PADDING && pread(fd, &record, sizeof(record), (off_t)header_size) != (ssize_t)sizeof(record)) return -1;
    } else if (pread(fd, &record, sizeof(record), (off_t)header_size) != (ssize_t)sizeof(record)) {
        return -1;
    }
    uint64_t head_again;
    if (pread(fd, &head_again, sizeof(head_again), (off_t)offsetof(vr_header, head)) != (ssize_t)sizeof(head_again) || head_again != view->head) return -1;
    if (record.publish_ns == 0 || record.publish_ns > now) return -1;
    return (double)(now - record.publish_ns) / 1e9;
}

static void judgeRoles(const va_options *options, int fd, uint64_t lock_base, const va_header_view *view, const va_memory_entry *before, uint64_t now, va_ring_report *ring) {
    uint64_t interval = view->heartbeat_interval_ns ? view->heartbeat_interval_ns : 1000000000ull;
    uint64_t stale = STALE_HEARTBEATS * interval;
    /* Not moving while records wait: the consumer's position, or a full ring's producer. */
    int consumer_stuck = before && view->occupancy > 0 && before->head == view->head;
    int producer_stuck = before && view->occupancy == view->capacity && before->tail == view->tail;
    struct {
        va_role_view *out;
        uint64_t pid, starttime, heartbeat;
        off_t lock;
        int stuck;
    } roles[2] = {
        {&ring->producer, view->producer_pid, view->producer_starttime, view->producer_heartbeat_ns, (off_t)(lock_base + VR_LOCK_PRODUCER), producer_stuck},
        {&ring->consumer, view->consumer_pid, view->consumer_starttime, view->consumer_heartbeat_ns, (off_t)(lock_base + VR_LOCK_CONSUMER), consumer_stuck},
    };
    for (int i = 0; i < 2; i++) {
        int held = vaLockHeld(fd, roles[i].lock);
        uint64_t age = roles[i].heartbeat && roles[i].heartbeat <= now ? now - roles[i].heartbeat : UINT64_MAX;
        roles[i].out->pid = roles[i].pid;
        roles[i].out->heartbeat_age_seconds = age == UINT64_MAX ? -1 : (double)age / 1e9;
        int alive = held ? 1 : vaProcAlive(options->proc_root, roles[i].pid, roles[i].starttime);
        roles[i].out->state = vaJudgeRole(held, roles[i].pid, alive, age, stale, roles[i].stuck);
    }
}

/* Candidate orphan: no gate lock, stale heartbeats, every recorded process gone, old enough. */
static int orphanCandidate(const va_options *options, int fd, uint64_t lock_base, const va_header_view *view, uint64_t created_ns, uint64_t now, char *reason) {
    if (vaLockHeld(fd, (off_t)(lock_base + VR_LOCK_GATE))) return 0;
    uint64_t interval = view->heartbeat_interval_ns ? view->heartbeat_interval_ns : 1000000000ull;
    uint64_t stale = STALE_HEARTBEATS * interval > options->grace_ns ? STALE_HEARTBEATS * interval : options->grace_ns;
    uint64_t newest = view->producer_heartbeat_ns > view->consumer_heartbeat_ns ? view->producer_heartbeat_ns : view->consumer_heartbeat_ns;
    if (newest && newest <= now && now - newest < stale) return 0;
    if (vaProcAlive(options->proc_root, view->creator_pid, view->creator_starttime) ||
        vaProcAlive(options->proc_root, view->producer_pid, view->producer_starttime) ||
        vaProcAlive(options->proc_root, view->consumer_pid, view->consumer_starttime))
        return 0;
    uint64_t real = realtimeNs();
    if (created_ns && created_ns <= real && real - created_ns < options->min_age_ns) return 0;
    char gone[160] = "";
    const char *labels[] = {"creator", "producer", "consumer"};
    uint64_t pids[] = {view->creator_pid, view->producer_pid, view->consumer_pid};
    for (int i = 0; i < 3; i++) {
        if (!pids[i]) continue;
        size_t used = strlen(gone);
        snprintf(gone + used, sizeof(gone) - used, "%s%s %llu", used ? ", " : "", labels[i], (unsigned long long)pids[i]);
    }
    snprintf(reason, VR_ERR_LEN, "no participant holds the gate lock; heartbeats %s; %s gone (or their pids reused); mapped by no process", newest ? "stale" : "never beat",
             gone[0] ? gone : "every recorded process");
    return 1;
}

static void scanEntry(const va_options *options, va_memory *memory, va_scan *scan, int dirfd_root, const char *name, uint64_t now) {
    struct stat st;
    if (fstatat(dirfd_root, name, &st, AT_SYMLINK_NOFOLLOW) == -1) return; /* gone meanwhile */
    if (S_ISLNK(st.st_mode)) {
        addForeign(scan, name, &st, "a symbolic link: never followed");
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        addForeign(scan, name, &st, "a directory");
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        addForeign(scan, name, &st, "not a regular file");
        return;
    }
    int fd = openat(dirfd_root, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd == -1) {
        char reason[VR_ERR_LEN];
        snprintf(reason, sizeof(reason), "unreadable: %s", strerror(errno));
        addForeign(scan, name, &st, reason);
        return;
    }
    static uint8_t page[VR_HEADER_SIZE];
    ssize_t got = pread(fd, page, sizeof(page), 0);
    va_header_view view;
    char err[VR_ERR_LEN];
    if (got < 0 || vaParseHeader(page, (size_t)got, (uint64_t)st.st_size, &view, err) != VR_OK) {
        addForeign(scan, name, &st, got < 0 ? "unreadable" : err);
        close(fd);
        return;
    }
    va_ring_report *rings = grow(scan->rings, &scan->ring_capacity, scan->ring_count, sizeof(*rings));
    if (!rings) {
        close(fd);
        return;
    }
    scan->rings = rings;
    va_ring_report *ring = &scan->rings[scan->ring_count++];
    memset(ring, 0, sizeof(*ring));
    snprintf(ring->segment, sizeof(ring->segment), "%s", name);
    ring->inode = (uint64_t)st.st_ino;
    ring->size = (uint64_t)st.st_size;
    ring->uid = st.st_uid;
    ring->view = view;
    ring->occupancy_ratio = view.corrupt ? 0 : (double)view.occupancy / (double)view.capacity;
    const vr_header *h = (const vr_header *)page;
    ring->oldest_age_seconds = oldestAge(fd, &view, h->header_size, now);
    uint64_t lock_base = (uint64_t)h->header_size + view.capacity;

    va_memory_entry *before = remembered(memory, ring->inode);
    ring->publish_rate = ring->consume_rate = -1;
    if (before && now > before->at_ns && view.published >= before->published && view.consumed >= before->consumed) {
        double seconds = (double)(now - before->at_ns) / 1e9;
        ring->publish_rate = (double)(view.published - before->published) / seconds;
        ring->consume_rate = (double)(view.consumed - before->consumed) / seconds;
    }
    judgeRoles(options, fd, lock_base, &view, before, now, ring);
    /* Confirmed (or not) with /proc once every entry is read: one walk for the whole root. */
    ring->candidate = orphanCandidate(options, fd, lock_base, &view, h->created_realtime_ns, now, ring->orphan_reason);
    if (!ring->candidate) ring->orphan_reason[0] = '\0';
    close(fd);

    va_memory_entry *entry = remember(memory, ring->inode);
    if (entry) {
        entry->published = view.published;
        entry->consumed = view.consumed;
        entry->head = view.head;
        entry->tail = view.tail;
        entry->at_ns = now;
    }
}

/*
 * Who maps each foreign segment, and whether each candidate orphan is mapped, from one
 * walk of /proc (a walk per segment would cost a second for a thousand of them). Only
 * when some entry needs it: a root of healthy rings never reads /proc at all.
 */
static void settleWithProc(const va_options *options, va_memory *memory, va_scan *scan, dev_t dev, uint64_t now) {
    int needed = scan->foreign_count > 0;
    for (int i = 0; i < scan->ring_count && !needed; i++) needed = scan->rings[i].candidate;
    va_mapping *index = NULL;
    int count = needed ? vaMapperIndex(options->proc_root, dev, getpid(), &index) : 0;
    if (count < 0) count = 0;
    for (int i = 0; i < scan->foreign_count; i++) {
        va_foreign_report *f = &scan->foreign[i];
        f->mapped_by_count = vaMappersOf(index, count, f->inode, f->mapped_by, VA_MAX_MAPPERS);
    }
    for (int i = 0; i < scan->ring_count; i++) {
        va_ring_report *ring = &scan->rings[i];
        if (ring->candidate) {
            pid_t pids[VA_MAX_MAPPERS];
            if (vaMappersOf(index, count, ring->inode, pids, VA_MAX_MAPPERS) == 0) {
                ring->orphan = 1;
            } else {
                snprintf(ring->orphan_reason, sizeof(ring->orphan_reason), "looks abandoned, but pid %d maps it without the ring's locks: kept", (int)pids[0]);
                if (ring->producer.state == VA_ROLE_DEAD) ring->producer.state = VA_ROLE_UNKNOWN;
                if (ring->consumer.state == VA_ROLE_DEAD) ring->consumer.state = VA_ROLE_UNKNOWN;
            }
        }
        va_memory_entry *entry = remembered(memory, ring->inode);
        if (!entry) continue;
        if (ring->orphan && entry->orphan_since_ns == 0) entry->orphan_since_ns = now;
        if (!ring->orphan) entry->orphan_since_ns = 0;
        ring->orphan_since_seconds = ring->orphan ? (double)(now - entry->orphan_since_ns) / 1e9 : 0;
    }
    free(index);
}

int vaScan(const va_options *options, va_memory *memory, va_scan *scan) {
    memset(scan, 0, sizeof(*scan));
    uint64_t started = vrNow();
    DIR *dir = opendir(options->shm_root);
    if (!dir) {
        snprintf(scan->error, sizeof(scan->error), "cannot read the shm root %s: %s", options->shm_root, strerror(errno));
        return VR_ERR;
    }
    int root = dirfd(dir);
    struct stat root_stat;
    dev_t root_dev = fstat(root, &root_stat) == 0 ? root_stat.st_dev : 0;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
        /* A segment in quarantine belongs to a cleanup under way. */
        if (vaIsQuarantineName(entry->d_name)) continue;
        scanEntry(options, memory, scan, root, entry->d_name, vrNow());
    }
    closedir(dir);
    settleWithProc(options, memory, scan, root_dev, vrNow());
    /* Forget rings that are gone, so memory stays the size of the root. */
    for (int i = 0; i < memory->count;) {
        int present = 0;
        for (int r = 0; r < scan->ring_count && !present; r++) present = scan->rings[r].inode == memory->entries[i].inode;
        if (present) i++;
        else memory->entries[i] = memory->entries[--memory->count];
    }
    scan->duration_ns = vrNow() - started;
    return VR_OK;
}

void vaScanFree(va_scan *scan) {
    free(scan->rings);
    free(scan->foreign);
    memset(scan, 0, sizeof(*scan));
}

void vaMemoryFree(va_memory *memory) {
    free(memory->entries);
    memset(memory, 0, sizeof(*memory));
}

/* --- cleanup ----------------------------------------------------------------------------- */

const char *vaCleanupOutcomeName(va_cleanup_outcome outcome) {
    switch (outcome) {
    case VA_CLEANUP_QUARANTINED: return "quarantined";
    case VA_CLEANUP_REMOVED: return "removed";
    case VA_CLEANUP_ABORTED: return "aborted";
    default: return "refused";
    }
}

static int uidAllowed(const va_options *options, uid_t uid) {
    for (int i = 0; i < options->allowed_uid_count; i++)
        if (options->allowed_uids[i] == uid) return 1;
    return 0;
}

static va_cleanup_outcome refuse(char *message, const char *text) {
    snprintf(message, VR_ERR_LEN, "%s", text);
    return VA_CLEANUP_REFUSED;
}

va_cleanup_outcome vaCleanupBegin(const va_options *options, const va_scan *scan, const char *segment, uint64_t inode, uint64_t expected_size, va_cleanup *cleanup, char *message) {
    memset(cleanup, 0, sizeof(*cleanup));
    cleanup->fd = -1;
    if (!segment[0] || strchr(segment, '/') || strcmp(segment, ".") == 0 || strcmp(segment, "..") == 0) return refuse(message, "refused: not a segment name of the shm root");
    const va_ring_report *ring = NULL;
    for (int i = 0; i < scan->ring_count; i++)
        if (strcmp(scan->rings[i].segment, segment) == 0) ring = &scan->rings[i];
    if (!ring) return refuse(message, "refused: no ring of that name in the last scan (removed already, or not a Varal ring)");
    if (ring->inode != inode) return refuse(message, "refused: the name now names another inode (the segment was recreated)");
    if (!ring->orphan) {
        snprintf(message, VR_ERR_LEN, "refused: not an orphan%s%.200s", ring->orphan_reason[0] ? ": " : "", ring->orphan_reason);
        return VA_CLEANUP_REFUSED;
    }
    if (!uidAllowed(options, ring->uid)) {
        snprintf(message, VR_ERR_LEN, "refused: owned by uid %u, outside this agent's cleanup policy", (unsigned)ring->uid);
        return VA_CLEANUP_REFUSED;
    }
    if (expected_size && ring->size != expected_size) return refuse(message, "refused: the segment's size changed since the command was issued");

    char path[VA_PATH_LEN], quarantine[VA_PATH_LEN];
    snprintf(path, sizeof(path), "%s/%s", options->shm_root, segment);
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd == -1) return refuse(message, "refused: cannot open the segment to lock it");
    struct stat st;
    if (fstat(fd, &st) == -1 || (uint64_t)st.st_ino != inode) {
        close(fd);
        return refuse(message, "refused: the name now names another inode");
    }
    /* The gate's write lock: nobody can attach while it is held; failing means someone just did. */
    uint32_t header_size = VR_HEADER_SIZE;
    if (pread(fd, &header_size, sizeof(header_size), (off_t)offsetof(vr_header, header_size)) != (ssize_t)sizeof(header_size)) header_size = VR_HEADER_SIZE;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = (off_t)(header_size + ring->view.capacity + VR_LOCK_GATE), .l_len = 1};
    if (fcntl(fd, F_OFD_SETLK, &fl) == -1) {
        close(fd);
        return refuse(message, "refused: a participant attached just now (the gate lock is taken)");
    }
    pid_t pids[VA_MAX_MAPPERS];
    if (vaFindMappers(options->proc_root, st.st_dev, st.st_ino, getpid(), pids, VA_MAX_MAPPERS) > 0) {
        close(fd);
        snprintf(message, VR_ERR_LEN, "refused: pid %d maps the segment", (int)pids[0]);
        return VA_CLEANUP_REFUSED;
    }
    snprintf(quarantine, sizeof(quarantine), "%s/%s%llu.%s", options->shm_root, QUARANTINE_PREFIX, (unsigned long long)inode, segment);
    struct stat again;
    if (stat(path, &again) == -1 || again.st_ino != st.st_ino || rename(path, quarantine) == -1) {
        close(fd);
        return refuse(message, "refused: the name changed while it was being locked");
    }
    cleanup->fd = fd;
    cleanup->inode = inode;
    cleanup->dev = st.st_dev;
    cleanup->last = ring->view;
    snprintf(cleanup->segment, sizeof(cleanup->segment), "%s", segment);
    snprintf(cleanup->quarantine, sizeof(cleanup->quarantine), "%s%llu.%s", QUARANTINE_PREFIX, (unsigned long long)inode, segment);
    snprintf(message, VR_ERR_LEN, "quarantined as %.180s; removed after one more scan if nobody maps it", cleanup->quarantine);
    return VA_CLEANUP_QUARANTINED;
}

va_cleanup_outcome vaCleanupFinish(const va_options *options, va_cleanup *cleanup, char *message) {
    char path[VA_PATH_LEN], quarantine[VA_PATH_LEN];
    snprintf(path, sizeof(path), "%s/%s", options->shm_root, cleanup->segment);
    snprintf(quarantine, sizeof(quarantine), "%s/%s", options->shm_root, cleanup->quarantine);
    pid_t pids[VA_MAX_MAPPERS];
    struct stat st;
    va_cleanup_outcome outcome;
    if (stat(quarantine, &st) == -1 || (uint64_t)st.st_ino != cleanup->inode) {
        snprintf(message, VR_ERR_LEN, "aborted: the quarantined segment is gone or was replaced; nothing removed");
        outcome = VA_CLEANUP_ABORTED;
    } else if (vaFindMappers(options->proc_root, cleanup->dev, (ino_t)cleanup->inode, getpid(), pids, VA_MAX_MAPPERS) > 0) {
        /* Someone mapped it during the quarantine: give the name back, if still free. */
        if (access(path, F_OK) == -1) rename(quarantine, path);
        snprintf(message, VR_ERR_LEN, "aborted: pid %d mapped the segment during its quarantine; kept", (int)pids[0]);
        outcome = VA_CLEANUP_ABORTED;
    } else if (unlink(quarantine) == -1) {
        snprintf(message, VR_ERR_LEN, "aborted: unlink failed: %s", strerror(errno));
        outcome = VA_CLEANUP_ABORTED;
    } else {
        snprintf(message, VR_ERR_LEN, "removed (capacity %llu, occupancy %llu, published %llu, consumed %llu when last read)", (unsigned long long)cleanup->last.capacity,
                 (unsigned long long)cleanup->last.occupancy, (unsigned long long)cleanup->last.published, (unsigned long long)cleanup->last.consumed);
        outcome = VA_CLEANUP_REMOVED;
    }
    if (cleanup->fd != -1) close(cleanup->fd);
    cleanup->fd = -1;
    return outcome;
}
