/* report.c -- the agent's report as JSON (with the host's kernel settings that brokers
 * depend on), node_exporter's textfile, and the reader of the dashboard's reply. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "varal_agent.h"

void vaTextAppend(va_text *text, const char *format, ...) {
    if (text->failed) return;
    for (;;) {
        size_t room = text->capacity - text->length;
        va_list args;
        va_start(args, format);
        int needed = vsnprintf(text->data ? text->data + text->length : NULL, room, format, args);
        va_end(args);
        if (needed < 0) {
            text->failed = 1;
            return;
        }
        if ((size_t)needed < room) {
            text->length += (size_t)needed;
            return;
        }
        size_t next = (text->capacity ? text->capacity * 2 : 4096) + (size_t)needed;
        char *bigger = realloc(text->data, next);
        if (!bigger) {
            text->failed = 1;
            return;
        }
        text->data = bigger;
        text->capacity = next;
    }
}

void vaTextJsonString(va_text *text, const char *value) {
    vaTextAppend(text, "\"");
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if (*p == '"' || *p == '\\') vaTextAppend(text, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f) vaTextAppend(text, "\\u%04x", *p);
        else vaTextAppend(text, "%c", *p);
    }
    vaTextAppend(text, "\"");
}

void vaTextFree(va_text *text) {
    free(text->data);
    memset(text, 0, sizeof(*text));
}

/* A number, or null when negative (the convention for "unknown"). */
static void number(va_text *out, double value) {
    if (value < 0) vaTextAppend(out, "null");
    else vaTextAppend(out, "%.6g", value);
}

static long long readProcNumber(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long long value = -1;
    if (fscanf(f, "%lld", &value) != 1) value = -1;
    fclose(f);
    return value;
}

/* "always [madvise] never" -> "madvise" */
static void transparentHugePages(char *out, size_t size) {
    snprintf(out, size, "unknown");
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return;
    char line[256];
    if (fgets(line, sizeof(line), f)) {
        char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
        if (open && close) snprintf(out, size, "%.*s", (int)(close - open - 1), open + 1);
    }
    fclose(f);
}

static void kernelSettings(va_text *out) {
    static const struct {
        const char *name, *path;
    } settings[] = {
        {"fs.file-max", "/proc/sys/fs/file-max"},
        {"net.core.somaxconn", "/proc/sys/net/core/somaxconn"},
        {"net.core.netdev_max_backlog", "/proc/sys/net/core/netdev_max_backlog"},
        {"vm.swappiness", "/proc/sys/vm/swappiness"},
        {"vm.overcommit_memory", "/proc/sys/vm/overcommit_memory"},
    };
    vaTextAppend(out, "\"kernel\":{");
    for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
        long long value = readProcNumber(settings[i].path);
        vaTextAppend(out, "\"%s\":", settings[i].name);
        if (value < 0) vaTextAppend(out, "null,");
        else vaTextAppend(out, "%lld,", value);
    }
    char thp[32];
    transparentHugePages(thp, sizeof(thp));
    vaTextAppend(out, "\"transparent_hugepage\":");
    vaTextJsonString(out, thp);
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) vaTextAppend(out, ",\"open_files_limit\":%llu}", (unsigned long long)limit.rlim_cur);
    else vaTextAppend(out, ",\"open_files_limit\":null}");
}

static void role(va_text *out, const char *name, const va_role_view *view) {
    vaTextAppend(out, "\"%s\":{\"pid\":%llu,\"state\":\"%s\",\"heartbeatAgeSeconds\":", name, (unsigned long long)view->pid, vaRoleStateName(view->state));
    number(out, view->heartbeat_age_seconds);
    vaTextAppend(out, "}");
}

void vaReportJson(va_text *out, const va_scan *scan, const va_report_context *context) {
    vaTextAppend(out, "{\"host\":");
    vaTextJsonString(out, context->host);
    vaTextAppend(out, ",\"agentVersion\":\"%s\",\"bootId\":", VARAL_AGENT_VERSION);
    vaTextJsonString(out, context->boot_id);
    vaTextAppend(out, ",\"sentAt\":%llu,\"intervalSeconds\":%.3g,\"scanMs\":%.3f,", (unsigned long long)(time(NULL)), context->interval_seconds, (double)scan->duration_ns / 1e6);
    if (scan->error[0]) {
        vaTextAppend(out, "\"error\":");
        vaTextJsonString(out, scan->error);
        vaTextAppend(out, ",");
    }
    vaTextAppend(out, "\"rings\":[");
    for (int i = 0; i < scan->ring_count; i++) {
        const va_ring_report *r = &scan->rings[i];
        const va_header_view *v = &r->view;
        vaTextAppend(out, "%s{\"segment\":", i ? "," : "");
        vaTextJsonString(out, r->segment);
        vaTextAppend(out, ",\"inode\":%llu,\"sizeBytes\":%llu,\"uid\":%u,\"name\":", (unsigned long long)r->inode, (unsigned long long)r->size, (unsigned)r->uid);
        vaTextJsonString(out, v->name);
        vaTextAppend(out, ",\"capacity\":%llu,\"occupancy\":%llu,\"occupancyRatio\":%.6g,\"published\":%llu,\"consumed\":%llu,\"fullEvents\":%llu,", (unsigned long long)v->capacity,
                     (unsigned long long)v->occupancy, r->occupancy_ratio, (unsigned long long)v->published, (unsigned long long)v->consumed, (unsigned long long)v->full_events);
        vaTextAppend(out, "\"publishRate\":");
        number(out, r->publish_rate);
        vaTextAppend(out, ",\"consumeRate\":");
        number(out, r->consume_rate);
        vaTextAppend(out, ",\"oldestAgeSeconds\":");
        number(out, r->oldest_age_seconds);
        vaTextAppend(out, ",\"latency\":{\"lastNs\":%llu,\"maxNs\":%llu,\"p50Ns\":%llu,\"p99Ns\":%llu},", (unsigned long long)v->latency_last_ns, (unsigned long long)v->latency_max_ns,
                     (unsigned long long)v->latency_p50_ns, (unsigned long long)v->latency_p99_ns);
        role(out, "producer", &r->producer);
        vaTextAppend(out, ",");
        role(out, "consumer", &r->consumer);
        vaTextAppend(out, ",\"corrupt\":%s", v->corrupt ? "true" : "false");
        if (!r->orphan && r->orphan_reason[0]) {
            /* Why a ring that looks abandoned is kept: said, so that nobody removes it by hand. */
            vaTextAppend(out, ",\"keptBecause\":");
            vaTextJsonString(out, r->orphan_reason);
        }
        vaTextAppend(out, "}");
    }
    vaTextAppend(out, "],\"foreign\":[");
    for (int i = 0; i < scan->foreign_count; i++) {
        const va_foreign_report *f = &scan->foreign[i];
        vaTextAppend(out, "%s{\"segment\":", i ? "," : "");
        vaTextJsonString(out, f->segment);
        vaTextAppend(out, ",\"inode\":%llu,\"sizeBytes\":%llu,\"uid\":%u,\"ageSeconds\":%.0f,\"reason\":", (unsigned long long)f->inode, (unsigned long long)f->size, (unsigned)f->uid, f->age_seconds);
        vaTextJsonString(out, f->reason);
        vaTextAppend(out, ",\"mappedBy\":[");
        int shown = f->mapped_by_count < VA_MAX_MAPPERS ? f->mapped_by_count : VA_MAX_MAPPERS;
        for (int m = 0; m < shown; m++) vaTextAppend(out, "%s%d", m ? "," : "", (int)f->mapped_by[m]);
        vaTextAppend(out, "]}");
    }
    vaTextAppend(out, "],\"orphans\":[");
    int first = 1;
    for (int i = 0; i < scan->ring_count; i++) {
        const va_ring_report *r = &scan->rings[i];
        if (!r->orphan) continue;
        vaTextAppend(out, "%s{\"segment\":", first ? "" : ",");
        vaTextJsonString(out, r->segment);
        vaTextAppend(out, ",\"inode\":%llu,\"sizeBytes\":%llu,\"reason\":", (unsigned long long)r->inode, (unsigned long long)r->size);
        vaTextJsonString(out, r->orphan_reason);
        vaTextAppend(out, ",\"sinceSeconds\":%.0f}", r->orphan_since_seconds);
        first = 0;
    }
    vaTextAppend(out, "],\"commandResults\":[");
    for (int i = 0; i < context->result_count; i++) {
        vaTextAppend(out, "%s{\"id\":", i ? "," : "");
        vaTextJsonString(out, context->results[i].id);
        vaTextAppend(out, ",\"outcome\":");
        vaTextJsonString(out, context->results[i].outcome);
        vaTextAppend(out, ",\"message\":");
        vaTextJsonString(out, context->results[i].message);
        vaTextAppend(out, "}");
    }
    vaTextAppend(out, "],");
    kernelSettings(out);
    vaTextAppend(out, "}");
}

/* A Prometheus label value: backslash, quote and newline escaped. */
static void label(va_text *out, const char *value) {
    for (const char *p = value; *p; p++) {
        if (*p == '\\' || *p == '"') vaTextAppend(out, "\\%c", *p);
        else if (*p == '\n') vaTextAppend(out, "\\n");
        else vaTextAppend(out, "%c", *p);
    }
}

int vaWriteTextfile(const char *dir, const va_scan *scan, char *err) {
    va_text out = {0};
    static const struct {
        const char *name, *help;
    } gauges[] = {
        {"varal_ring_occupancy_ratio", "Share of the ring's capacity holding unconsumed records."},
        {"varal_ring_occupancy_bytes", "Bytes of unconsumed records."},
        {"varal_ring_published_total", "Records published."},
        {"varal_ring_consumed_total", "Records consumed."},
        {"varal_ring_full_events_total", "Times the producer found the ring full."},
        {"varal_ring_latency_p99_seconds", "99th percentile of publish-to-consume latency."},
        {"varal_ring_producer_alive", "1 when the producer holds its lock and beats."},
        {"varal_ring_consumer_alive", "1 when the consumer holds its lock and beats."},
    };
    for (size_t g = 0; g < sizeof(gauges) / sizeof(gauges[0]); g++) {
        vaTextAppend(&out, "# HELP %s %s\n# TYPE %s %s\n", gauges[g].name, gauges[g].help, gauges[g].name, strstr(gauges[g].name, "_total") ? "counter" : "gauge");
        for (int i = 0; i < scan->ring_count; i++) {
            const va_ring_report *r = &scan->rings[i];
            double values[] = {r->occupancy_ratio,
                               (double)r->view.occupancy,
                               (double)r->view.published,
                               (double)r->view.consumed,
                               (double)r->view.full_events,
                               (double)r->view.latency_p99_ns / 1e9,
                               r->producer.state == VA_ROLE_ALIVE,
                               r->consumer.state == VA_ROLE_ALIVE};
            vaTextAppend(&out, "%s{segment=\"", gauges[g].name);
            label(&out, r->segment);
            vaTextAppend(&out, "\",name=\"");
            label(&out, r->view.name);
            vaTextAppend(&out, "\"} %.9g\n", values[g]);
        }
    }
    int orphans = 0;
    for (int i = 0; i < scan->ring_count; i++) orphans += scan->rings[i].orphan;
    vaTextAppend(&out, "# HELP varal_agent_orphaned_segments Rings nobody uses any more.\n# TYPE varal_agent_orphaned_segments gauge\nvaral_agent_orphaned_segments %d\n", orphans);
    vaTextAppend(&out, "# HELP varal_agent_foreign_segments Entries of the shm root that are not Varal rings.\n# TYPE varal_agent_foreign_segments gauge\nvaral_agent_foreign_segments %d\n",
                 scan->foreign_count);
    vaTextAppend(&out, "# HELP varal_agent_scan_seconds Duration of the last scan.\n# TYPE varal_agent_scan_seconds gauge\nvaral_agent_scan_seconds %.6f\n", (double)scan->duration_ns / 1e9);
    if (out.failed) {
        vaTextFree(&out);
        snprintf(err, VR_ERR_LEN, "out of memory writing the textfile");
        return VR_ERR;
    }
    char tmp[VA_PATH_LEN], final[VA_PATH_LEN];
    snprintf(tmp, sizeof(tmp), "%s/.varal_agent.prom.%d", dir, (int)getpid());
    snprintf(final, sizeof(final), "%s/varal_agent.prom", dir);
    FILE *f = fopen(tmp, "w");
    int ok = f && fwrite(out.data, 1, out.length, f) == out.length;
    if (f && fclose(f) != 0) ok = 0;
    vaTextFree(&out);
    if (!ok || rename(tmp, final) == -1) {
        snprintf(err, VR_ERR_LEN, "cannot write %.180s: check that the directory exists and is writable", final);
        unlink(tmp);
        return VR_ERR;
    }
    return VR_OK;
}

/* --- the reply: a small JSON reader for the one shape the dashboard sends ---------------- */

typedef struct reader {
    const char *p, *end;
    int depth;
} reader;

static void skipSpace(reader *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t')) r->p++;
}

static int consume(reader *r, char c) {
    skipSpace(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return 1;
    }
    return 0;
}

/* A string into out (truncated to size); \u escapes outside ASCII become '?'. */
static int readString(reader *r, char *out, size_t size) {
    skipSpace(r);
    if (r->p >= r->end || *r->p != '"') return 0;
    r->p++;
    size_t n = 0;
    while (r->p < r->end && *r->p != '"') {
        char c = *r->p++;
        if (c == '\\') {
            if (r->p >= r->end) return 0;
            char e = *r->p++;
            if (e == 'u') {
                if (r->end - r->p < 4) return 0;
                char hex[5] = {r->p[0], r->p[1], r->p[2], r->p[3], 0};
                r->p += 4;
                long code = strtol(hex, NULL, 16);
                c = code > 0 && code < 0x80 ? (char)code : '?';
            } else {
                c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
            }
        }
        if (out && n + 1 < size) out[n++] = c;
    }
    if (r->p >= r->end) return 0;
    r->p++;
    if (out && size) out[n] = '\0';
    return 1;
}

static int skipValue(reader *r) {
    skipSpace(r);
    if (r->p >= r->end || ++r->depth > 32) return 0;
    int ok = 1;
    if (*r->p == '"') {
        ok = readString(r, NULL, 0);
    } else if (*r->p == '{' || *r->p == '[') {
        char close = *r->p == '{' ? '}' : ']';
        r->p++;
        if (!consume(r, close)) {
            do {
                if (close == '}' && (!readString(r, NULL, 0) || !consume(r, ':'))) ok = 0;
                if (ok && !skipValue(r)) ok = 0;
            } while (ok && consume(r, ','));
            if (ok && !consume(r, close)) ok = 0;
        }
    } else {
        const char *start = r->p;
        while (r->p < r->end && strchr("-+.eE0123456789truefalsn", *r->p)) r->p++;
        ok = r->p > start;
    }
    r->depth--;
    return ok;
}

static int readNumber(reader *r, uint64_t *out) {
    skipSpace(r);
    char buf[32];
    size_t n = 0;
    while (r->p < r->end && n + 1 < sizeof(buf) && (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))) buf[n++] = *r->p++;
    buf[n] = '\0';
    if (n == 0 || buf[0] == '-') return 0;
    *out = strtoull(buf, NULL, 10);
    return 1;
}

static int readCommand(reader *r, va_command *command) {
    memset(command, 0, sizeof(*command));
    if (!consume(r, '{')) return 0;
    if (consume(r, '}')) return 1;
    do {
        char key[32];
        if (!readString(r, key, sizeof(key)) || !consume(r, ':')) return 0;
        int ok;
        if (strcmp(key, "id") == 0) ok = readString(r, command->id, sizeof(command->id));
        else if (strcmp(key, "kind") == 0) ok = readString(r, command->kind, sizeof(command->kind));
        else if (strcmp(key, "segment") == 0) ok = readString(r, command->segment, sizeof(command->segment));
        else if (strcmp(key, "inode") == 0) ok = readNumber(r, &command->inode);
        else if (strcmp(key, "expectedSize") == 0) ok = readNumber(r, &command->expected_size);
        else ok = skipValue(r);
        if (!ok) return 0;
    } while (consume(r, ','));
    return consume(r, '}');
}

int vaParseCommands(const char *json, size_t length, va_command *commands, int max) {
    reader r = {json, json + length, 0};
    int count = 0;
    if (!consume(&r, '{')) return -1;
    if (consume(&r, '}')) return 0;
    do {
        char key[32];
        if (!readString(&r, key, sizeof(key)) || !consume(&r, ':')) return -1;
        if (strcmp(key, "commands") != 0) {
            if (!skipValue(&r)) return -1;
            continue;
        }
        if (!consume(&r, '[')) return -1;
        if (consume(&r, ']')) continue;
        do {
            va_command command;
            if (!readCommand(&r, &command)) return -1;
            if (count < max) commands[count++] = command;
        } while (consume(&r, ','));
        if (!consume(&r, ']')) return -1;
    } while (consume(&r, ','));
    return consume(&r, '}') ? count : -1;
}
