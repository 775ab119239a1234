/* testhelp.h -- a tiny test helper, in the manner of Redis's: count, report, exit status. */
#ifndef VARAL_TESTHELP_H
#define VARAL_TESTHELP_H

#include <stdio.h>

static int testsPassed = 0, testsFailed = 0;

#define test_cond(descr, cond)                                   \
    do {                                                         \
        if (cond) {                                              \
            testsPassed++;                                       \
        } else {                                                 \
            testsFailed++;                                       \
            printf("FAIL %s (%s:%d)\n", descr, __FILE__, __LINE__); \
        }                                                        \
    } while (0)

#define test_report()                                                   \
    do {                                                                \
        printf("%d passed, %d failed\n", testsPassed, testsFailed);     \
        return testsFailed == 0 ? 0 : 1;                                \
    } while (0)

#endif
