/* bench_scan.c -- the agent over 1,000 rings: scan time (median of 20 scans), the agent's
 * peak RSS for one scan, and its CPU at one scan per second over a minute
 * (BENCH_CPU_SECONDS to change). Usage: bench_scan path/to/varal-agent.
 * Prints a table and writes RESULTS_DIR/agent-scan.json (default bench-results). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results.h"
#include "varal_agent.h"

#define RINGS 1000
#define SCANS 20

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs the agent over the root; returns its rusage once it exits (after `seconds` if > 0). */
static struct rusage runAgent(const char *agent, const char *root, double seconds) {
    struct rusage usage;
    memset(&usage, 0, sizeof(usage));
    pid_t child = fork();
    if (child == 0) {
        if (!freopen("/dev/null", "w", stdout)) _exit(1);
        if (seconds > 0) execl(agent, agent, "--json", "--interval", "1", "--shm-root", root, (char *)NULL);
        else execl(agent, agent, "--once", "--json", "--shm-root", root, (char *)NULL);
        _exit(127);
    }
    if (seconds > 0) {
        usleep((useconds_t)(seconds * 1e6));
        kill(child, SIGTERM);
    }
    int status;
    wait4(child, &status, 0, &usage);
    return usage;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_scan path/to/varal-agent\n");
        return 2;
    }
    /* One descriptor per ring held open: raise the soft limit to the hard one. */
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }
    double cpu_seconds = getenv("BENCH_CPU_SECONDS") ? atof(getenv("BENCH_CPU_SECONDS")) : 60;
    char root[128];
    snprintf(root, sizeof(root), "/dev/shm/varal-bench-scan-%d", (int)getpid());
    mkdir(root, 0700);
    /* 1,000 live rings: this process produces into each, so every lock is held. */
    static vr_ring rings[RINGS];
    char err[VR_ERR_LEN];
    for (int i = 0; i < RINGS; i++) {
        char path[256], name[32];
        snprintf(path, sizeof(path), "%s/ring-%04d", root, i);
        snprintf(name, sizeof(name), "bench-%d", i);
        if (vrCreate(&rings[i], path, 4096, name, 1000000000ull, VR_ROLE_PRODUCER, err) != VR_OK) {
            fprintf(stderr, "bench_scan: %s: %s (raise the open-files limit?)\n", path, err);
            return 1;
        }
        vrPublish(&rings[i], VR_RECORD_FIRST_USER_TYPE, "payload", 7);
    }
    va_options options = {.shm_root = root, .proc_root = "/proc", .grace_ns = 30000000000ull, .min_age_ns = 60000000000ull};
    va_memory memory = {0};
    double ms[SCANS];
    int seen = 0;
    for (int i = 0; i < SCANS; i++) {
        va_scan scan;
        vaScan(&options, &memory, &scan);
        ms[i] = (double)scan.duration_ns / 1e6;
        seen = scan.ring_count;
        vaScanFree(&scan);
    }
    vaMemoryFree(&memory);
    qsort(ms, SCANS, sizeof(double), compare);
    struct rusage once = runAgent(argv[1], root, 0);
    printf("agent over %d rings (%d seen)\n\n", RINGS, seen);
    printf("scan: median %.1f ms, max %.1f ms over %d scans (target < 50 ms)\n", ms[SCANS / 2], ms[SCANS - 1], SCANS);
    printf("peak RSS of varal-agent --once: %.1f MiB (target < 10 MiB)\n", (double)once.ru_maxrss / 1024.0);
    fflush(stdout);
    struct rusage minute = runAgent(argv[1], root, cpu_seconds);
    double cpu = (double)(minute.ru_utime.tv_sec + minute.ru_stime.tv_sec) + (double)(minute.ru_utime.tv_usec + minute.ru_stime.tv_usec) / 1e6;
    printf("CPU at one scan per second over %.0f s: %.2f s, %.2f%% of one core; peak RSS %.1f MiB\n", cpu_seconds, cpu, 100.0 * cpu / cpu_seconds, (double)minute.ru_maxrss / 1024.0);
    for (int i = 0; i < RINGS; i++) {
        char path[256];
        snprintf(path, sizeof(path), "%s/ring-%04d", root, i);
        vrClose(&rings[i]);
        unlink(path);
    }
    rmdir(root);
    char file[512];
    FILE *f = openResults("agent-scan", file, sizeof(file));
    if (f) {
        fprintf(f, "{\"benchmark\":\"agent-scan\",\"rings\":%d,\"scanMedianMs\":%.3f,\"scanMaxMs\":%.3f,\"peakRssMiB\":%.2f,\"cpuSeconds\":%.0f,\"cpuPercent\":%.3f}\n", RINGS, ms[SCANS / 2],
                ms[SCANS - 1], (double)once.ru_maxrss / 1024.0, cpu_seconds, 100.0 * cpu / cpu_seconds);
        fclose(f);
        printf("\nresults: %s\n", file);
    }
    return 0;
}
