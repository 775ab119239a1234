/* proc.c -- who is there: process start times, who maps or holds a segment open (matched
 * on device and inode, never on the path, which can be recreated), and lock probes. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "varal_agent.h"

int vaProcAlive(const char *proc_root, uint64_t pid, uint64_t starttime) {
    if (pid == 0 || pid > 0x7fffffff) return 0;
    uint64_t now = vrProcessStartTime(proc_root, pid);
    /* A zombie keeps its stat until reaped: it maps nothing and holds no lock, so only the
     * start time tells a live process from a reused pid. */
    return now != 0 && (starttime == 0 || now == starttime);
}

static int isPid(const char *name) {
    if (!*name) return 0;
    for (const char *p = name; *p; p++)
        if (!isdigit((unsigned char)*p)) return 0;
    return 1;
}

int vaFindMappers(const char *proc_root, dev_t dev, ino_t ino, pid_t except, pid_t *pids, int max) {
    va_mapping *index;
    int count = vaMapperIndex(proc_root, dev, except, &index);
    int found = count < 0 ? 0 : vaMappersOf(index, count, (uint64_t)ino, pids, max);
    free(index);
    return found;
}

int vaLockHeld(int fd, off_t offset) {
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = offset, .l_len = 1, .l_pid = 0};
    if (fcntl(fd, F_OFD_GETLK, &fl) == -1) return 0;
    return fl.l_type != F_UNLCK;
}

typedef struct mapping_list {
    va_mapping *items;
    int count, capacity;
} mapping_list;

static void addMapping(mapping_list *list, uint64_t inode, pid_t pid) {
    if (list->count == list->capacity) {
        int next = list->capacity ? list->capacity * 2 : 256;
        va_mapping *bigger = realloc(list->items, (size_t)next * sizeof(*bigger));
        if (!bigger) return;
        list->items = bigger;
        list->capacity = next;
    }
    list->items[list->count++] = (va_mapping){inode, pid};
}

static int byInodeThenPid(const void *a, const void *b) {
    const va_mapping *x = a, *y = b;
    if (x->inode != y->inode) return x->inode < y->inode ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

int vaMapperIndex(const char *proc_root, dev_t dev, pid_t except, va_mapping **index) {
    *index = NULL;
    DIR *dir = opendir(proc_root);
    if (!dir) return -1;
    mapping_list list = {0};
    struct dirent *entry;
    char path[VA_PATH_LEN], line[1024];
    while ((entry = readdir(dir))) {
        if (!isPid(entry->d_name)) continue;
        pid_t pid = (pid_t)strtol(entry->d_name, NULL, 10);
        if (pid == except) continue;
        snprintf(path, sizeof(path), "%s/%s/maps", proc_root, entry->d_name);
        FILE *f = fopen(path, "r");
        if (f) {
            while (fgets(line, sizeof(line), f)) {
                unsigned int major_dev, minor_dev;
                unsigned long long inode;
                if (sscanf(line, "%*s %*s %*s %x:%x %llu", &major_dev, &minor_dev, &inode) == 3 && inode != 0 && makedev(major_dev, minor_dev) == dev) addMapping(&list, inode, pid);
                while (!strchr(line, '\n') && fgets(line, sizeof(line), f)) {
                }
            }
            fclose(f);
        }
        snprintf(path, sizeof(path), "%s/%s/fd", proc_root, entry->d_name);
        DIR *fds = opendir(path);
        if (fds) {
            struct dirent *fd;
            struct stat st;
            while ((fd = readdir(fds)))
                if (isPid(fd->d_name) && fstatat(dirfd(fds), fd->d_name, &st, 0) == 0 && st.st_dev == dev) addMapping(&list, (uint64_t)st.st_ino, pid);
            closedir(fds);
        }
    }
    closedir(dir);
    qsort(list.items, (size_t)list.count, sizeof(va_mapping), byInodeThenPid);
    /* One entry per (inode, pid), though a process maps a ring several times. */
    int kept = 0;
    for (int i = 0; i < list.count; i++)
        if (kept == 0 || list.items[kept - 1].inode != list.items[i].inode || list.items[kept - 1].pid != list.items[i].pid) list.items[kept++] = list.items[i];
    *index = list.items;
    return kept;
}

int vaMappersOf(const va_mapping *index, int count, uint64_t inode, pid_t *pids, int max) {
    int low = 0, high = count;
    while (low < high) {
        int middle = (low + high) / 2;
        if (index[middle].inode < inode) low = middle + 1;
        else high = middle;
    }
    int found = 0;
    for (int i = low; i < count && index[i].inode == inode; i++) {
        if (found < max) pids[found] = index[i].pid;
        found++;
    }
    return found;
}
