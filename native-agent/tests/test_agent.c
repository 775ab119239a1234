/* test_agent.c -- the agent on real segments in a temporary shm root: the header parser on
 * bad input, role states, orphans and their safe removal (and the segments that must never
 * be removed), the report's JSON and the reader of the dashboard's reply. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testhelp.h"
#include "varal_agent.h"

static char root[256];
static va_options options;

static const char *segment(const char *name) {
    static char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, name);
    return path;
}

static void writeFile(const char *name, const void *bytes, size_t length) {
    int fd = open(segment(name), O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (write(fd, bytes, length) != (ssize_t)length) perror("write");
    close(fd);
}

static vr_header validHeader(void) {
    vr_header h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, VR_MAGIC, 8);
    h.layout_version = VR_LAYOUT_MAJOR << 16;
    h.header_size = VR_HEADER_SIZE;
    h.capacity = 1024;
    strcpy(h.name, "ok\x01\"name");
    return h;
}

static void testParserRefusesBadHeaders(void) {
    va_header_view view;
    char err[VR_ERR_LEN];
    vr_header h = validHeader();
    test_cond("a valid header parses", vaParseHeader(&h, sizeof(h), VR_HEADER_SIZE + 1024, &view, err) == VR_OK && view.capacity == 1024);
    test_cond("control characters and quotes in the name are replaced", strcmp(view.name, "ok??name") == 0);
    test_cond("truncated: fewer bytes than a header", vaParseHeader(&h, 100, 100, &view, err) == VR_ERR && strstr(err, "truncated"));
    test_cond("truncated: segment shorter than its capacity", vaParseHeader(&h, sizeof(h), VR_HEADER_SIZE + 10, &view, err) == VR_ERR && strstr(err, "truncated"));
    vr_header bad = h;
    memcpy(bad.magic, "NOTARING", 8);
    test_cond("bad magic", vaParseHeader(&bad, sizeof(bad), 1 << 20, &view, err) == VR_ERR && strstr(err, "magic"));
    bad = h;
    bad.capacity = 1000;
    test_cond("capacity not a power of two", vaParseHeader(&bad, sizeof(bad), 1 << 20, &view, err) == VR_ERR && strstr(err, "absurd capacity"));
    bad.capacity = 1ull << 60;
    test_cond("absurd capacity", vaParseHeader(&bad, sizeof(bad), UINT64_MAX, &view, err) == VR_ERR && strstr(err, "absurd capacity"));
    bad = h;
    bad.layout_version = 7 << 16;
    test_cond("another major version", vaParseHeader(&bad, sizeof(bad), 1 << 20, &view, err) == VR_ERR && strstr(err, "version"));
    bad = h;
    bad.head = 100;
    bad.tail = 50;
    test_cond("tail < head parses as corrupt", vaParseHeader(&bad, sizeof(bad), 1 << 20, &view, err) == VR_OK && view.corrupt && view.occupancy == 0);
    bad.head = 0;
    bad.tail = 5000;
    test_cond("occupancy past capacity parses as corrupt", vaParseHeader(&bad, sizeof(bad), 1 << 20, &view, err) == VR_OK && view.corrupt);
}

static void testRoleStates(void) {
    uint64_t s = 1000000000ull;
    test_cond("lock held and fresh: alive", vaJudgeRole(1, 10, 1, s / 10, 3 * s, 0) == VA_ROLE_ALIVE);
    test_cond("lock held, stale heartbeat: stalled", vaJudgeRole(1, 10, 1, 5 * s, 3 * s, 0) == VA_ROLE_STALLED);
    test_cond("lock held, not moving with work: stalled", vaJudgeRole(1, 10, 1, 0, 3 * s, 1) == VA_ROLE_STALLED);
    test_cond("no lock, process gone: dead", vaJudgeRole(0, 10, 0, 5 * s, 3 * s, 0) == VA_ROLE_DEAD);
    test_cond("no lock, process running: unknown", vaJudgeRole(0, 10, 1, 0, 3 * s, 0) == VA_ROLE_UNKNOWN);
    test_cond("never attached: none", vaJudgeRole(0, 0, 0, UINT64_MAX, 3 * s, 0) == VA_ROLE_NONE);
}

static const va_ring_report *findRing(const va_scan *scan, const char *name) {
    for (int i = 0; i < scan->ring_count; i++)
        if (strcmp(scan->rings[i].segment, name) == 0) return &scan->rings[i];
    return NULL;
}

static const va_foreign_report *findForeign(const va_scan *scan, const char *name) {
    for (int i = 0; i < scan->foreign_count; i++)
        if (strcmp(scan->foreign[i].segment, name) == 0) return &scan->foreign[i];
    return NULL;
}

static void testScanListsWhatIsNotARing(void) {
    vr_header h = validHeader();
    writeFile("truncated", &h, 100);
    writeFile("notaring", "hello", 5);
    h.capacity = 3;
    writeFile("absurd", &h, sizeof(h));
    h = validHeader();
    h.head = 10;
    h.tail = 2;
    char *big = calloc(1, VR_HEADER_SIZE + 1024);
    memcpy(big, &h, sizeof(h));
    writeFile("backwards", big, VR_HEADER_SIZE + 1024);
    free(big);
    mkdir(segment("adir"), 0700);
    if (symlink("/etc/hostname", segment("alink")) != 0) perror("symlink");
    va_memory memory = {0};
    va_scan scan;
    test_cond("the scan runs", vaScan(&options, &memory, &scan) == VR_OK);
    const va_foreign_report *f;
    test_cond("truncated listed", (f = findForeign(&scan, "truncated")) && strstr(f->reason, "truncated"));
    test_cond("bad magic listed", (f = findForeign(&scan, "notaring")) && strstr(f->reason, "magic"));
    test_cond("absurd capacity listed", (f = findForeign(&scan, "absurd")) && strstr(f->reason, "absurd"));
    test_cond("directory listed", (f = findForeign(&scan, "adir")) && strstr(f->reason, "directory"));
    test_cond("symlink listed, not followed", (f = findForeign(&scan, "alink")) && strstr(f->reason, "symbolic link"));
    const va_ring_report *r = findRing(&scan, "backwards");
    test_cond("tail < head reported as a corrupt ring", r && r->view.corrupt);
    vaScanFree(&scan);
    vaMemoryFree(&memory);
    const char *names[] = {"truncated", "notaring", "absurd", "backwards", "alink"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) unlink(segment(names[i]));
    rmdir(segment("adir"));
}

/* A child creates a ring as producer and exits: nobody holds a lock, nobody maps it. */
static void abandonedRing(const char *name) {
    pid_t child = fork();
    if (child == 0) {
        vr_ring ring;
        char err[VR_ERR_LEN];
        if (vrCreate(&ring, segment(name), 4096, name, 1000000, VR_ROLE_PRODUCER, err) != VR_OK) _exit(1);
        vrPublish(&ring, VR_RECORD_FIRST_USER_TYPE, "left behind", 11);
        _exit(0); /* no vrClose: a crash */
    }
    waitpid(child, NULL, 0);
    usleep(20000); /* past three heartbeat intervals of 1 ms */
}

static void testOrphanIsRemovedSafely(void) {
    abandonedRing("orphan");
    va_memory memory = {0};
    va_scan scan;
    vaScan(&options, &memory, &scan);
    const va_ring_report *r = findRing(&scan, "orphan");
    test_cond("an abandoned ring is an orphan", r && r->orphan);
    test_cond("its producer is dead", r && r->producer.state == VA_ROLE_DEAD);
    va_cleanup cleanup;
    char message[VR_ERR_LEN];
    test_cond("a command for another inode is refused", vaCleanupBegin(&options, &scan, "orphan", r->inode + 1, 0, &cleanup, message) == VA_CLEANUP_REFUSED && strstr(message, "inode"));
    test_cond("a command with a path in it is refused", vaCleanupBegin(&options, &scan, "../orphan", r->inode, 0, &cleanup, message) == VA_CLEANUP_REFUSED);
    test_cond("quarantined first", vaCleanupBegin(&options, &scan, "orphan", r->inode, r->size, &cleanup, message) == VA_CLEANUP_QUARANTINED);
    test_cond("the name is gone while quarantined", access(segment("orphan"), F_OK) == -1);
    test_cond("removed at the next step", vaCleanupFinish(&options, &cleanup, message) == VA_CLEANUP_REMOVED && strstr(message, "removed"));
    char quarantine[600];
    snprintf(quarantine, sizeof(quarantine), "%s/%s", root, cleanup.quarantine);
    test_cond("nothing left behind", access(quarantine, F_OK) == -1);
    vaScanFree(&scan);
    vaMemoryFree(&memory);
}

/* Broken halfway: a process maps the segment while it sits in quarantine. */
static void testCleanupAbortsWhenMappedDuringQuarantine(void) {
    abandonedRing("late");
    va_memory memory = {0};
    va_scan scan;
    vaScan(&options, &memory, &scan);
    const va_ring_report *r = findRing(&scan, "late");
    va_cleanup cleanup;
    char message[VR_ERR_LEN];
    test_cond("quarantined", r && vaCleanupBegin(&options, &scan, "late", r->inode, 0, &cleanup, message) == VA_CLEANUP_QUARANTINED);
    char quarantine[600];
    snprintf(quarantine, sizeof(quarantine), "%s/%s", root, cleanup.quarantine);
    int ready[2];
    if (pipe(ready) != 0) return;
    pid_t child = fork();
    if (child == 0) {
        int fd = open(quarantine, O_RDONLY);
        void *map = fd >= 0 ? mmap(NULL, VR_HEADER_SIZE, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
        if (write(ready[1], map == MAP_FAILED ? "n" : "y", 1) != 1) _exit(1);
        pause();
        _exit(0);
    }
    char byte = 'n';
    if (read(ready[0], &byte, 1) != 1) byte = 'n';
    test_cond("a process mapped the quarantined segment", byte == 'y');
    test_cond("the second step aborts", vaCleanupFinish(&options, &cleanup, message) == VA_CLEANUP_ABORTED && strstr(message, "mapped"));
    test_cond("and gives the segment its name back, whole", access(segment("late"), F_OK) == 0 && access(quarantine, F_OK) == -1);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    close(ready[0]);
    close(ready[1]);
    vaScanFree(&scan);
    vaMemoryFree(&memory);
    unlink(segment("late"));
}

static void testMappedWithoutLocksIsKept(void) {
    abandonedRing("mapped");
    int ready[2];
    if (pipe(ready) != 0) return;
    pid_t child = fork();
    if (child == 0) {
        /* A process that maps the ring but never took a lock: not following the protocol. */
        int fd = open(segment("mapped"), O_RDONLY);
        void *map = mmap(NULL, VR_HEADER_SIZE, PROT_READ, MAP_SHARED, fd, 0);
        close(fd);
        if (write(ready[1], "x", 1) != 1 || map == MAP_FAILED) _exit(1);
        pause();
        _exit(0);
    }
    char byte;
    if (read(ready[0], &byte, 1) != 1) return;
    va_memory memory = {0};
    va_scan scan;
    vaScan(&options, &memory, &scan);
    const va_ring_report *r = findRing(&scan, "mapped");
    test_cond("a ring mapped by a live process is not an orphan", r && !r->orphan && strstr(r->orphan_reason, "maps it"));
    va_cleanup cleanup;
    char message[VR_ERR_LEN];
    test_cond("and a command to remove it is refused", r && vaCleanupBegin(&options, &scan, "mapped", r->inode, 0, &cleanup, message) == VA_CLEANUP_REFUSED);
    test_cond("it is still there", access(segment("mapped"), F_OK) == 0);
    vaScanFree(&scan);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    vaScan(&options, &memory, &scan);
    r = findRing(&scan, "mapped");
    test_cond("once that process is gone, it is an orphan", r && r->orphan);
    vaScanFree(&scan);
    vaMemoryFree(&memory);
    close(ready[0]);
    close(ready[1]);
    unlink(segment("mapped"));
}

static void testForkedChildKeepsTheRingAlive(void) {
    int ready[2];
    if (pipe(ready) != 0) return;
    pid_t parent = fork();
    if (parent == 0) {
        vr_ring ring;
        char err[VR_ERR_LEN];
        if (vrCreate(&ring, segment("inherited"), 4096, "inherited", 1000000, VR_ROLE_PRODUCER, err) != VR_OK) _exit(1);
        if (fork() == 0) {
            /* The child inherits the mapping and the open file description with its locks. */
            if (write(ready[1], "x", 1) != 1) _exit(1);
            pause();
            _exit(0);
        }
        _exit(0);
    }
    waitpid(parent, NULL, 0);
    char byte;
    if (read(ready[0], &byte, 1) != 1) return;
    va_memory memory = {0};
    va_scan scan;
    vaScan(&options, &memory, &scan);
    const va_ring_report *r = findRing(&scan, "inherited");
    test_cond("a ring whose creator exited, mapped by its forked child, is not an orphan", r && !r->orphan);
    test_cond("its producer lock is still held", r && r->producer.state != VA_ROLE_DEAD);
    pid_t mappers[VA_MAX_MAPPERS];
    struct stat st;
    stat(segment("inherited"), &st);
    int count = vaFindMappers("/proc", st.st_dev, st.st_ino, getpid(), mappers, VA_MAX_MAPPERS);
    test_cond("the child is found mapping it", count == 1);
    if (count >= 1) kill(mappers[0], SIGKILL);
    vaScanFree(&scan);
    usleep(100000);
    vaScan(&options, &memory, &scan);
    r = findRing(&scan, "inherited");
    test_cond("once the child is killed, the ring is an orphan", r && r->orphan);
    vaScanFree(&scan);
    vaMemoryFree(&memory);
    close(ready[0]);
    close(ready[1]);
    unlink(segment("inherited"));
}

static void testAnotherOwnersRingIsNeverRemoved(void) {
    if (getuid() != 0) return; /* needs to chown */
    abandonedRing("theirs");
    if (chown(segment("theirs"), 12345, 12345) != 0) return;
    va_memory memory = {0};
    va_scan scan;
    vaScan(&options, &memory, &scan);
    const va_ring_report *r = findRing(&scan, "theirs");
    va_cleanup cleanup;
    char message[VR_ERR_LEN];
    test_cond("another owner's orphan is refused", r && r->orphan && vaCleanupBegin(&options, &scan, "theirs", r->inode, 0, &cleanup, message) == VA_CLEANUP_REFUSED && strstr(message, "uid 12345"));
    test_cond("and kept", access(segment("theirs"), F_OK) == 0);
    vaScanFree(&scan);
    vaMemoryFree(&memory);
    unlink(segment("theirs"));
}

static void testReportAndReply(void) {
    va_text text = {0};
    vaTextJsonString(&text, "a\"b\\c\n\x01\xff");
    test_cond("JSON strings escape quotes, control characters and non-ASCII bytes", strcmp(text.data, "\"a\\\"b\\\\c\\u000a\\u0001\\u00ff\"") == 0);
    vaTextFree(&text);
    va_command commands[4];
    const char *reply = "{\"commands\":[{\"id\":\"c1\",\"kind\":\"cleanup\",\"segment\":\"orders\",\"inode\":42,\"expectedSize\":8192,\"extra\":{\"x\":[1,2,{}]}}],\"more\":null}";
    int n = vaParseCommands(reply, strlen(reply), commands, 4);
    test_cond("a reply with a command", n == 1 && strcmp(commands[0].id, "c1") == 0 && strcmp(commands[0].segment, "orders") == 0 && commands[0].inode == 42 && commands[0].expected_size == 8192);
    test_cond("an empty reply", vaParseCommands("{}", 2, commands, 4) == 0 && vaParseCommands("{\"commands\":[]}", 15, commands, 4) == 0);
    const char *bad[] = {"", "[", "{\"commands\":[{\"id\":}]}", "{\"commands\":[{\"id\":\"x\"", "not json", "{\"commands\":[{\"inode\":-3}]}"};
    int refused = 1;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) refused &= vaParseCommands(bad[i], strlen(bad[i]), commands, 4) == -1;
    test_cond("malformed replies are refused, none crashes", refused);
    char deep[200];
    memset(deep, '[', sizeof(deep));
    memcpy(deep, "{\"x\":", 5);
    test_cond("nesting past the limit is refused", vaParseCommands(deep, sizeof(deep), commands, 4) == -1);
}

int main(void) {
    /* Real POSIX shared memory where there is one (tmpfs under /dev/shm), else /tmp. */
    snprintf(root, sizeof(root), "%s/varal-agent-test-%d", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
    mkdir(root, 0700);
    memset(&options, 0, sizeof(options));
    options.shm_root = root;
    options.proc_root = "/proc";
    options.grace_ns = 0;
    options.min_age_ns = 0;
    options.allowed_uids[0] = getuid();
    options.allowed_uid_count = 1;
    testParserRefusesBadHeaders();
    testRoleStates();
    testScanListsWhatIsNotARing();
    testOrphanIsRemovedSafely();
    testCleanupAbortsWhenMappedDuringQuarantine();
    testMappedWithoutLocksIsKept();
    testForkedChildKeepsTheRingAlive();
    testAnotherOwnersRingIsNeverRemoved();
    testReportAndReply();
    rmdir(root);
    test_report();
}
