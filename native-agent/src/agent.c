/* agent.c -- varal-agent: scans the shm root every interval, reports to the dashboard
 * (retrying with backoff while it is unreachable, scanning all the same), carries out the
 * cleanup commands of the reply by the safe procedure of RING.md, and writes a
 * node_exporter textfile when asked.
 *
 *   varal-agent [options]              report every interval
 *   varal-agent --once [--json]        one scan: report it, or print it
 *   varal-agent clean [--dry-run]      remove the orphans this agent may remove, or list them
 */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "varal_agent.h"

#define MAX_COMMANDS 64
#define MAX_CLEANUPS 64
#define MAX_RESULTS 128
#define REPLY_LIMIT (1 << 20)

typedef struct agent {
    va_options options;
    const char *server;
    const char *token;
    char host[256];
    char boot_id[64];
    double interval;
    const char *textfile_dir;
    va_memory memory;
    va_cleanup cleanups[MAX_CLEANUPS];
    int cleanup_count;
    va_command_result results[MAX_RESULTS]; /* outcomes not yet delivered */
    int result_count;
    double backoff;        /* seconds to wait before the next attempt after failures */
    uint64_t next_send_ns; /* no report before this, while backing off */
} agent;

static volatile sig_atomic_t stopping = 0;
static void onSignal(int sig) {
    (void)sig;
    stopping = 1;
}

static void logLine(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void logLine(const char *format, ...) {
    time_t now = time(NULL);
    char stamp[32];
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(stderr, "%s varal-agent: ", stamp);
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
}

static void addResult(agent *a, const char *id, va_cleanup_outcome outcome, const char *message) {
    if (a->result_count == MAX_RESULTS) memmove(a->results, a->results + 1, sizeof(a->results[0]) * (MAX_RESULTS - 1)), a->result_count--;
    va_command_result *r = &a->results[a->result_count++];
    snprintf(r->id, sizeof(r->id), "%.63s", id);
    snprintf(r->outcome, sizeof(r->outcome), "%.15s", vaCleanupOutcomeName(outcome));
    snprintf(r->message, sizeof(r->message), "%.255s", message);
}

static int cleanupUnderWay(const agent *a, const char *id, const char *segment) {
    for (int i = 0; i < a->cleanup_count; i++)
        if (strcmp(a->cleanups[i].id, id) == 0 || strcmp(a->cleanups[i].segment, segment) == 0) return 1;
    return 0;
}

/* Second step of each cleanup begun at an earlier scan. */
static void finishCleanups(agent *a) {
    for (int i = 0; i < a->cleanup_count; i++) {
        char message[VR_ERR_LEN];
        va_cleanup_outcome outcome = vaCleanupFinish(&a->options, &a->cleanups[i], message);
        logLine("cleanup of %s: %s", a->cleanups[i].segment, message);
        if (a->cleanups[i].id[0]) addResult(a, a->cleanups[i].id, outcome, message);
    }
    a->cleanup_count = 0;
}

static void beginCleanup(agent *a, const va_scan *scan, const char *id, const char *segment, uint64_t inode, uint64_t expected_size) {
    if (cleanupUnderWay(a, id, segment) || a->cleanup_count == MAX_CLEANUPS) return;
    char message[VR_ERR_LEN];
    va_cleanup *cleanup = &a->cleanups[a->cleanup_count];
    va_cleanup_outcome outcome = vaCleanupBegin(&a->options, scan, segment, inode, expected_size, cleanup, message);
    logLine("cleanup of %s: %s", segment, message);
    if (outcome == VA_CLEANUP_QUARANTINED) {
        snprintf(cleanup->id, sizeof(cleanup->id), "%s", id);
        a->cleanup_count++;
    } else if (id[0]) {
        addResult(a, id, outcome, message);
    }
}

/* The opt-in policy: orphans whose name matches the pattern go without a command. */
static void applyPolicy(agent *a, const va_scan *scan) {
    if (!a->options.clean_pattern) return;
    for (int i = 0; i < scan->ring_count; i++) {
        const va_ring_report *r = &scan->rings[i];
        if (r->orphan && fnmatch(a->options.clean_pattern, r->segment, 0) == 0) beginCleanup(a, scan, "", r->segment, r->inode, r->size);
    }
}

typedef struct reply {
    char *data;
    size_t length;
} reply;

static size_t collect(char *chunk, size_t size, size_t count, void *user) {
    reply *r = user;
    size_t n = size * count;
    if (r->length + n > REPLY_LIMIT) return 0; /* a reply this large is not the dashboard's */
    char *bigger = realloc(r->data, r->length + n + 1);
    if (!bigger) return 0;
    r->data = bigger;
    memcpy(r->data + r->length, chunk, n);
    r->length += n;
    r->data[r->length] = '\0';
    return n;
}

/* POSTs the report; on success fills commands and returns their count, else -1. */
static int sendReport(agent *a, const va_text *report, va_command *commands) {
    char url[1024], auth[512];
    snprintf(url, sizeof(url), "%s/api/agents/report", a->server);
    snprintf(auth, sizeof(auth), "Authorization: Bearer %s", a->token);
    CURL *curl = curl_easy_init();
    if (!curl) return -1;
    struct curl_slist *headers = curl_slist_append(NULL, auth);
    headers = curl_slist_append(headers, "Content-Type: application/json");
    reply body = {0};
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, report->data);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)report->length);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10000L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "varal-agent/" VARAL_AGENT_VERSION);
    CURLcode code = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    int count = -1;
    if (code != CURLE_OK) {
        logLine("report to %s failed: %s; retrying with backoff, scanning meanwhile", url, curl_easy_strerror(code));
    } else if (status == 401 || status == 403) {
        logLine("the dashboard refused the agent token (HTTP %ld): create an agent token in Settings and pass it with --token or VARAL_AGENT_TOKEN", status);
    } else if (status != 200) {
        logLine("the dashboard answered HTTP %ld to the report: %.200s", status, body.data ? body.data : "");
    } else {
        count = vaParseCommands(body.data ? body.data : "{}", body.length, commands, MAX_COMMANDS);
        if (count < 0) logLine("the dashboard's reply is not { \"commands\": [...] }; ignored");
        if (count < 0) count = 0;
    }
    free(body.data);
    return count;
}

static void readBootId(char *out, size_t size) {
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f) return;
    if (fgets(out, (int)size, f)) out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

static void sleepUntil(uint64_t deadline) {
    while (!stopping) {
        uint64_t now = vrNow();
        if (now >= deadline) return;
        uint64_t left = deadline - now;
        struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
        if (nanosleep(&ts, NULL) == 0) return;
    }
}

/* One round: finish the cleanups begun last time, scan, apply the policy, report. */
static void scanAndReport(agent *a, int once, int json) {
    finishCleanups(a);
    va_scan scan;
    vaScan(&a->options, &a->memory, &scan);
    if (scan.error[0]) logLine("%s", scan.error);
    applyPolicy(a, &scan);
    if (a->textfile_dir) {
        char err[VR_ERR_LEN];
        if (vaWriteTextfile(a->textfile_dir, &scan, err) != VR_OK) logLine("%s", err);
    }
    va_report_context context = {a->host, a->boot_id, a->interval, a->results, a->result_count};
    va_text report = {0};
    vaReportJson(&report, &scan, &context);
    if (report.failed) {
        logLine("out of memory building the report");
    } else if (json) {
        fwrite(report.data, 1, report.length, stdout);
        fputc('\n', stdout);
    } else if (a->server && (once || vrNow() >= a->next_send_ns)) {
        va_command commands[MAX_COMMANDS];
        int count = sendReport(a, &report, commands);
        if (count < 0) {
            a->backoff = a->backoff == 0 ? 1 : (a->backoff * 2 > 60 ? 60 : a->backoff * 2);
            /* Jitter, so that agents of many hosts do not come back in step. */
            double wait = a->backoff * (0.5 + (double)rand() / RAND_MAX / 2);
            a->next_send_ns = vrNow() + (uint64_t)(wait * 1e9);
        } else {
            a->backoff = 0;
            a->next_send_ns = 0;
            a->result_count = 0; /* delivered */
            for (int i = 0; i < count; i++) {
                if (strcmp(commands[i].kind, "cleanup") != 0) {
                    char message[VR_ERR_LEN];
                    snprintf(message, sizeof(message), "refused: this agent does not know the command \"%.15s\"", commands[i].kind);
                    addResult(a, commands[i].id, VA_CLEANUP_REFUSED, message);
                    continue;
                }
                beginCleanup(a, &scan, commands[i].id, commands[i].segment, commands[i].inode, commands[i].expected_size);
            }
        }
    }
    vaTextFree(&report);
    vaScanFree(&scan);
}

/* `clean`: lists the orphans (and why); without --dry-run removes those the policy allows. */
static int clean(agent *a, int dry_run) {
    va_scan scan;
    vaScan(&a->options, &a->memory, &scan);
    int orphans = 0;
    for (int i = 0; i < scan.ring_count; i++) {
        const va_ring_report *r = &scan.rings[i];
        if (!r->orphan) continue;
        orphans++;
        printf("%s %s (inode %llu, %llu bytes): %s\n", dry_run ? "would remove" : "removing", r->segment, (unsigned long long)r->inode, (unsigned long long)r->size, r->orphan_reason);
        if (!dry_run) beginCleanup(a, &scan, "", r->segment, r->inode, r->size);
    }
    for (int i = 0; i < scan.ring_count; i++)
        if (!scan.rings[i].orphan && scan.rings[i].orphan_reason[0]) printf("keeping %s: %s\n", scan.rings[i].segment, scan.rings[i].orphan_reason);
    vaScanFree(&scan);
    if (!dry_run && a->cleanup_count > 0) {
        /* "Wait one scan, scan again": the quarantine lasts one interval. */
        sleepUntil(vrNow() + (uint64_t)(a->interval * 1e9));
        for (int i = 0; i < a->cleanup_count; i++) {
            char message[VR_ERR_LEN];
            vaCleanupFinish(&a->options, &a->cleanups[i], message);
            printf("%s: %s\n", a->cleanups[i].segment, message);
        }
        a->cleanup_count = 0;
    }
    if (orphans == 0) printf("no orphaned segment in %s\n", a->options.shm_root);
    return 0;
}

/* A quarantine left by an agent that stopped mid-cleanup: the name goes back, to be judged again. */
static void restoreQuarantined(const va_options *options) {
    DIR *dir = opendir(options->shm_root);
    if (!dir) return;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (!vaIsQuarantineName(entry->d_name)) continue;
        const char *inode_end = strchr(entry->d_name + strlen(".varal-quarantine."), '.');
        if (!inode_end || !inode_end[1]) continue;
        char from[VA_PATH_LEN], to[VA_PATH_LEN];
        snprintf(from, sizeof(from), "%s/%s", options->shm_root, entry->d_name);
        snprintf(to, sizeof(to), "%s/%s", options->shm_root, inode_end + 1);
        if (access(to, F_OK) == -1 && rename(from, to) == 0) logLine("gave %s its name back from an unfinished cleanup", inode_end + 1);
    }
    closedir(dir);
}

static void usage(FILE *out) {
    fprintf(out,
            "usage: varal-agent [clean [--dry-run]] [options]\n"
            "  --server URL          the dashboard (reports go to URL/api/agents/report)\n"
            "  --token TOKEN         an agent token (or VARAL_AGENT_TOKEN)\n"
            "  --host NAME           this host's name in the dashboard (default: hostname)\n"
            "  --interval SECONDS    between scans and reports (default 5)\n"
            "  --shm-root DIR        where the segments are (default /dev/shm)\n"
            "  --proc-root DIR       where /proc is (default /proc)\n"
            "  --grace SECONDS       heartbeats this old count as stale for orphans (default 30)\n"
            "  --min-age SECONDS     a younger segment is never an orphan (default 60)\n"
            "  --clean-pattern GLOB  remove orphans whose name matches, without a command (opt-in)\n"
            "  --clean-uid UID       may remove segments of this owner (repeatable; default: the agent's uid)\n"
            "  --textfile DIR        write DIR/varal_agent.prom for node_exporter\n"
            "  --once                one scan, then exit\n"
            "  --json                print the report instead of sending it\n");
}

int main(int argc, char **argv) {
    agent a;
    memset(&a, 0, sizeof(a));
    a.options.shm_root = "/dev/shm";
    a.options.proc_root = "/proc";
    a.options.grace_ns = 30ull * 1000000000ull;
    a.options.min_age_ns = 60ull * 1000000000ull;
    a.interval = 5;
    a.token = getenv("VARAL_AGENT_TOKEN");
    int once = 0, json = 0, dry_run = 0, cleaning = 0;
    if (argc > 1 && strcmp(argv[1], "clean") == 0) {
        cleaning = 1;
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    static const struct option long_options[] = {
        {"server", required_argument, 0, 's'}, {"token", required_argument, 0, 't'},     {"host", required_argument, 0, 'H'},
        {"interval", required_argument, 0, 'i'}, {"shm-root", required_argument, 0, 'r'}, {"proc-root", required_argument, 0, 'p'},
        {"grace", required_argument, 0, 'g'},  {"min-age", required_argument, 0, 'm'},  {"clean-pattern", required_argument, 0, 'c'},
        {"clean-uid", required_argument, 0, 'u'}, {"textfile", required_argument, 0, 'x'}, {"once", no_argument, 0, 'o'},
        {"json", no_argument, 0, 'j'},         {"dry-run", no_argument, 0, 'd'},        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int option;
    while ((option = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        char *end = NULL;
        double seconds = optarg ? strtod(optarg, &end) : 0;
        int bad_number = optarg && (end == optarg || *end != '\0' || seconds < 0);
        switch (option) {
        case 's': a.server = optarg; break;
        case 't': a.token = optarg; break;
        case 'H': snprintf(a.host, sizeof(a.host), "%s", optarg); break;
        case 'i': a.interval = seconds; if (bad_number || seconds < 0.1) goto badNumber; break;
        case 'r': a.options.shm_root = optarg; break;
        case 'p': a.options.proc_root = optarg; break;
        case 'g': a.options.grace_ns = (uint64_t)(seconds * 1e9); if (bad_number) goto badNumber; break;
        case 'm': a.options.min_age_ns = (uint64_t)(seconds * 1e9); if (bad_number) goto badNumber; break;
        case 'c': a.options.clean_pattern = optarg; break;
        case 'u':
            if (bad_number || a.options.allowed_uid_count == 8) goto badNumber;
            a.options.allowed_uids[a.options.allowed_uid_count++] = (uid_t)seconds;
            break;
        case 'x': a.textfile_dir = optarg; break;
        case 'o': once = 1; break;
        case 'j': json = 1; break;
        case 'd': dry_run = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        continue;
    badNumber:
        for (const struct option *o = long_options; o->name; o++)
            if (o->val == option) fprintf(stderr, "varal-agent: --%s wants a number (at most 8 uids), not \"%s\"\n", o->name, optarg);
        return 2;
    }
    if (a.options.allowed_uid_count == 0) a.options.allowed_uids[a.options.allowed_uid_count++] = getuid();
    if (!a.host[0] && gethostname(a.host, sizeof(a.host) - 1) != 0) snprintf(a.host, sizeof(a.host), "unknown");
    readBootId(a.boot_id, sizeof(a.boot_id));
    restoreQuarantined(&a.options);
    if (cleaning) return clean(&a, dry_run);
    if (!json && !a.server) {
        fprintf(stderr, "varal-agent: give --server URL (the dashboard), or --json to print reports\n");
        return 2;
    }
    if (!json && (!a.token || !a.token[0])) {
        fprintf(stderr, "varal-agent: give an agent token with --token or VARAL_AGENT_TOKEN (Settings > Tokens > agent)\n");
        return 2;
    }
    signal(SIGINT, onSignal);
    signal(SIGTERM, onSignal);
    signal(SIGPIPE, SIG_IGN);
    /* libcurl (and the TLS library under it) only when reports go out: printing needs neither. */
    if (!json) curl_global_init(CURL_GLOBAL_DEFAULT);
    srand((unsigned)(vrNow() ^ (uint64_t)getpid()));
    if (!once) logLine("watching %s every %.3g s, reporting to %s as %s", a.options.shm_root, a.interval, json ? "stdout" : a.server, a.host);
    while (!stopping) {
        uint64_t started = vrNow();
        scanAndReport(&a, once, json);
        if (once) break;
        sleepUntil(started + (uint64_t)(a.interval * 1e9));
    }
    /* Cleanups still in quarantine give their names back: nothing is removed half-way. */
    for (int i = 0; i < a.cleanup_count; i++) {
        char from[VA_PATH_LEN], to[VA_PATH_LEN];
        snprintf(from, sizeof(from), "%s/%s", a.options.shm_root, a.cleanups[i].quarantine);
        snprintf(to, sizeof(to), "%s/%s", a.options.shm_root, a.cleanups[i].segment);
        if (access(to, F_OK) == -1) rename(from, to);
        if (a.cleanups[i].fd != -1) close(a.cleanups[i].fd);
    }
    vaMemoryFree(&a.memory);
    if (!json) curl_global_cleanup();
    return 0;
}
