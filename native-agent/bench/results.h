/* results.h -- where a native benchmark writes its JSON: RESULTS_DIR/<name>.json, by default
 * bench-results/ as the other benchmarks of `npm run bench` do. */
#ifndef VARAL_BENCH_RESULTS_H
#define VARAL_BENCH_RESULTS_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* Opens the file for writing (NULL if it cannot), its path left in `file`. */
static inline FILE *openResults(const char *name, char *file, size_t size) {
    const char *dir = getenv("RESULTS_DIR") ? getenv("RESULTS_DIR") : "bench-results";
    mkdir(dir, 0755);
    snprintf(file, size, "%s/%s.json", dir, name);
    return fopen(file, "w");
}

#endif
