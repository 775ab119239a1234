/* test_ring.c -- the ring on real segments in a temporary shm root: layout, records across
 * the wrap, a full ring, the role locks, header checks, and two processes. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testhelp.h"
#include "varal_ring.h"

static char root[256];

static const char *segment(const char *name) {
    static char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, name);
    return path;
}

static void testRoundTripAcrossTheWrap(void) {
    vr_ring producer, consumer;
    char err[VR_ERR_LEN];
    test_cond("create", vrCreate(&producer, segment("wrap"), 1024, "wrap-test", 100000000, VR_ROLE_PRODUCER, err) == VR_OK);
    test_cond("attach consumer", vrAttach(&consumer, segment("wrap"), VR_ROLE_CONSUMER, err) == VR_OK);
    test_cond("header fields", producer.header->capacity == 1024 && strcmp(producer.header->name, "wrap-test") == 0 &&
                                   producer.header->layout_version == (1 << 16) && producer.header->creator_pid == (uint32_t)getpid());
    char out[512], in[512];
    int ok = 1;
    /* Many laps of records of every size from 0 to 300 bytes, each checked byte for byte. */
    for (int i = 0; i < 5000; i++) {
        uint32_t length = (uint32_t)(i * 37 % 301);
        for (uint32_t b = 0; b < length; b++) out[b] = (char)(i + b);
        if (vrPublish(&producer, VR_RECORD_FIRST_USER_TYPE + (uint32_t)(i % 3), out, length) != VR_OK) ok = 0;
        uint32_t type = 0, got = 0;
        if (vrConsume(&consumer, &type, in, sizeof(in), &got) != VR_OK) ok = 0;
        if (got != length || type != VR_RECORD_FIRST_USER_TYPE + (uint32_t)(i % 3) || memcmp(in, out, length) != 0) ok = 0;
    }
    test_cond("5000 records across many wraps arrive intact and in order", ok);
    uint32_t type, got;
    test_cond("empty after", vrConsume(&consumer, &type, in, sizeof(in), &got) == VR_EMPTY);
    test_cond("counters", producer.header->published == 5000 && producer.header->consumed == 5000);
    test_cond("positions equal", producer.header->head == producer.header->tail);
    test_cond("latency recorded", vrLatencyQuantile(producer.header, 0.5) > 0 && producer.header->latency_max_ns >= producer.header->latency_last_ns);
    test_cond("record too large for the ring", vrPublish(&producer, 16, out, 2000) == VR_ERR);
    vrClose(&consumer);
    vrClose(&producer);
}

static void testFullRing(void) {
    vr_ring producer, consumer;
    char err[VR_ERR_LEN], buf[64] = {0};
    vrCreate(&producer, segment("full"), 256, "full", 100000000, VR_ROLE_PRODUCER, err);
    int published = 0;
    while (vrPublish(&producer, 16, buf, 48) == VR_OK) published++;
    test_cond("a 256-byte ring takes four 64-byte records", published == 4);
    test_cond("full counted", producer.header->full_events == 1);
    test_cond("occupancy is the capacity", producer.header->tail - producer.header->head == 256);
    vrAttach(&consumer, segment("full"), VR_ROLE_CONSUMER, err);
    uint32_t type, got;
    test_cond("consume one", vrConsume(&consumer, &type, buf, sizeof(buf), &got) == VR_OK && got == 48);
    test_cond("room again", vrPublish(&producer, 16, buf, 48) == VR_OK);
    test_cond("small buffer refused, record kept", vrConsume(&consumer, &type, buf, 8, &got) == VR_ERR && got == 48 &&
                                                      vrConsume(&consumer, &type, buf, sizeof(buf), &got) == VR_OK);
    vrClose(&consumer);
    vrClose(&producer);
}

static void testRoleLocks(void) {
    vr_ring producer, second, consumer;
    char err[VR_ERR_LEN];
    vrCreate(&producer, segment("locks"), 4096, "locks", 100000000, VR_ROLE_PRODUCER, err);
    test_cond("a second producer is refused", vrAttach(&second, segment("locks"), VR_ROLE_PRODUCER, err) == VR_ERR);
    test_cond("with the reason", strstr(err, "already has a producer") != NULL);
    test_cond("a consumer may attach", vrAttach(&consumer, segment("locks"), VR_ROLE_CONSUMER, err) == VR_OK);
    vrClose(&producer);
    test_cond("after the producer left, another may attach", vrAttach(&second, segment("locks"), VR_ROLE_PRODUCER, err) == VR_OK);
    vrClose(&second);
    vrClose(&consumer);
    test_cond("an existing segment is not created again", vrCreate(&producer, segment("locks"), 4096, "x", 1, VR_ROLE_PRODUCER, err) == VR_ERR);
    test_cond("a missing segment cannot be attached", vrAttach(&producer, segment("missing"), VR_ROLE_CONSUMER, err) == VR_ERR && strstr(err, "open") != NULL);
}

static void testHeaderChecks(void) {
    static vr_header header;
    char err[VR_ERR_LEN];
    memset(&header, 0, sizeof(header));
    memcpy(header.magic, VR_MAGIC, 8);
    header.layout_version = 1 << 16;
    header.header_size = VR_HEADER_SIZE;
    header.capacity = 1024;
    test_cond("a good header", vrCheckHeader(&header, VR_HEADER_SIZE + 1024, err) == VR_OK);
    test_cond("truncated", vrCheckHeader(&header, 100, err) == VR_ERR && strstr(err, "truncated"));
    test_cond("data truncated", vrCheckHeader(&header, VR_HEADER_SIZE + 512, err) == VR_ERR && strstr(err, "truncated"));
    header.capacity = 1000;
    test_cond("capacity not a power of two", vrCheckHeader(&header, VR_HEADER_SIZE + 1024, err) == VR_ERR && strstr(err, "absurd capacity"));
    header.capacity = 1ull << 62;
    test_cond("absurd capacity", vrCheckHeader(&header, VR_HEADER_SIZE + 1024, err) == VR_ERR);
    header.capacity = 1024;
    header.head = 10;
    header.tail = 5;
    test_cond("tail behind head", vrCheckHeader(&header, VR_HEADER_SIZE + 1024, err) == VR_ERR && strstr(err, "tail is behind head"));
    header.head = 0;
    header.tail = 2048;
    test_cond("occupancy above capacity", vrCheckHeader(&header, VR_HEADER_SIZE + 1024, err) == VR_ERR);
    header.tail = 0;
    header.magic[0] = 'X';
    test_cond("bad magic", vrCheckHeader(&header, VR_HEADER_SIZE + 1024, err) == VR_ERR && strstr(err, "bad magic"));
    memcpy(header.magic, VR_MAGIC, 8);
    header.layout_version = 2 << 16;
    test_cond("another major version", vrCheckHeader(&header, VR_HEADER_SIZE + 1024, err) == VR_ERR);
}

static void testTwoProcesses(void) {
    vr_ring producer;
    char err[VR_ERR_LEN];
    const int count = 200000;
    vrCreate(&producer, segment("procs"), 1 << 16, "procs", 100000000, VR_ROLE_PRODUCER, err);
    pid_t child = fork();
    if (child == 0) {
        vr_ring consumer;
        char cerr[VR_ERR_LEN];
        if (vrAttach(&consumer, segment("procs"), VR_ROLE_CONSUMER, cerr) != VR_OK) _exit(2);
        uint64_t expected = 0;
        while (expected < (uint64_t)count) {
            uint64_t value;
            uint32_t type, got;
            int rc = vrConsume(&consumer, &type, &value, sizeof(value), &got);
            if (rc == VR_EMPTY) continue;
            if (rc != VR_OK || got != sizeof(value) || value != expected) _exit(3);
            expected++;
        }
        _exit(0);
    }
    for (uint64_t i = 0; i < (uint64_t)count;) {
        if (vrPublish(&producer, 16, &i, sizeof(i)) == VR_OK) i++;
    }
    int status = 0;
    waitpid(child, &status, 0);
    test_cond("a consumer process receives 200000 records in order", WIFEXITED(status) && WEXITSTATUS(status) == 0);
    test_cond("the producer saw the ring full at times, or never", producer.header->published == (uint64_t)count);
    vrClose(&producer);
}

/* vrNow may scale the TSC: it must follow CLOCK_MONOTONIC closely and never go back. */
static void testClockFollowsMonotonic(void) {
    uint64_t previous = vrNow(), worst = 0;
    int backwards = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t now = vrNow();
        if (now < previous) backwards++;
        previous = now;
        if (i % 1000 == 0) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            uint64_t reference = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
            uint64_t ours = vrNow();
            uint64_t gap = ours > reference ? ours - reference : reference - ours;
            if (gap > worst) worst = gap;
        }
    }
    test_cond("vrNow never goes back", backwards == 0);
    test_cond("vrNow stays within 50 us of CLOCK_MONOTONIC", worst < 50000);
}

static void testCrashDetectedOnAttach(void) {
    char err[VR_ERR_LEN];
    pid_t child = fork();
    if (child == 0) {
        vr_ring ring;
        if (vrCreate(&ring, segment("crash"), 4096, "crash", 1000000, VR_ROLE_PRODUCER, err) != VR_OK) _exit(1);
        _exit(0); /* no vrClose: a crash */
    }
    int status;
    waitpid(child, &status, 0);
    vr_ring ring;
    test_cond("a crashed producer's role can be taken over", vrAttach(&ring, segment("crash"), VR_ROLE_PRODUCER, err) == VR_OK);
    test_cond("and the crash is detected on attach", ring.crashed_pid == (uint64_t)child);
    vrClose(&ring);
    test_cond("a clean detach clears the role's pid", vrAttach(&ring, segment("crash"), VR_ROLE_PRODUCER, err) == VR_OK && ring.crashed_pid == 0);
    vrClose(&ring);
}

int main(void) {
    /* Real POSIX shared memory where there is one (tmpfs under /dev/shm), else /tmp. */
    snprintf(root, sizeof(root), "%s/varal-ring-test-XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(root)) return 1;
    testRoundTripAcrossTheWrap();
    testFullRing();
    testRoleLocks();
    testHeaderChecks();
    testTwoProcesses();
    testCrashDetectedOnAttach();
    testClockFollowsMonotonic();
    const char *names[] = {"wrap", "full", "locks", "procs", "crash"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) unlink(segment(names[i]));
    rmdir(root);
    test_report();
}
