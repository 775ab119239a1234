/* fuzz_header.c -- libFuzzer on the agent's header parser: any bytes, any claimed segment
 * size; the parser must never read past what it was given, crash, or call a ring with
 * positions it cannot trust anything but corrupt. */
#include <stdint.h>
#include <string.h>

#include "varal_agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* The first 8 bytes pick the segment size the file claims; the rest is the header. */
    uint64_t segment_size = 0;
    if (size >= 8) {
        memcpy(&segment_size, data, 8);
        data += 8;
        size -= 8;
    }
    va_header_view view;
    char err[VR_ERR_LEN];
    if (vaParseHeader(data, size, segment_size, &view, err) == VR_OK) {
        if (!view.corrupt && view.occupancy > view.capacity) __builtin_trap();
        if (view.capacity == 0 || (view.capacity & (view.capacity - 1)) != 0) __builtin_trap();
        if (strlen(view.name) > 64) __builtin_trap();
    }
    return 0;
}
