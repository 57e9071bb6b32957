/*
 * For the libFuzzer targets that read a file (tests/fuzz-trace.c,
 * tests/fuzz-calib.c): one temporary file per process, rewritten with each
 * input. Static, for tests only.
 */
#ifndef TESTS_FUZZ_FILE_H
#define TESTS_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes the size bytes at data to this process's temporary file, created
 * from tmpl ("/tmp/NAME-XXXXXX") on the first call into path (64 bytes),
 * and returns path. Aborts when it cannot. */
static inline const char *fuzz_file_write(char *path, const char *tmpl,
                                          const uint8_t *data, size_t size)
{
    FILE *fp;

    if (path[0] == '\0') {
        int fd;
        snprintf(path, 64, "%s", tmpl);
        fd = mkstemp(path);
        if (fd < 0)
            abort();
        close(fd);
    }
    fp = fopen(path, "wb");
    if (fp == NULL)
        abort();
    fwrite(data, 1, size, fp);
    fclose(fp);
    return path;
}

#endif /* TESTS_FUZZ_FILE_H */
