/* Helpers shared by the commands: wall-clock time (the CLI may read it;
 * the models never do), number parsing, timestamps. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "cli/cli.h"

double cli_wall_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) +
           (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (*s == '-' || *s == '\0')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (*end != '\0' || errno != 0)
        return -1;
    *out = v;
    return 0;
}

void cli_utc_stamp(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
