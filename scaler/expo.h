/*
 * Samples as the Prometheus text exposition format writes them (`# HELP`,
 * `# TYPE`, `name{label="value",...} value [timestamp]`, histograms as
 * `_bucket{le=...}`, `_sum`, `_count`), and as the Prometheus HTTP API
 * returns an instant vector (promapi.h fills the same structure). Label
 * values are unescaped (\\, \", \n). Values are doubles, NaN and +Inf
 * included. Growth is bounded by SCL_EXPO_MAX_SAMPLES. Single-threaded.
 */
#ifndef SCL_EXPO_H
#define SCL_EXPO_H

#include <stddef.h>

#define SCL_EXPO_MAX_SAMPLES 200000
#define SCL_EXPO_MAX_LABELS 64

struct scl_label {
    char *name;  /* owned */
    char *value; /* owned, unescaped */
};

struct scl_sample {
    char *name; /* owned; "" when a PromQL result has no __name__ */
    struct scl_label *labels; /* owned, in document order */
    int nlabels;
    double value;
};

struct scl_expo {
    struct scl_sample *v; /* owned */
    int n;
    int cap;
};

/* Initialises an empty set. */
void scl_expo_init(struct scl_expo *e);

/* Frees every sample; e is empty and reusable afterwards. */
void scl_expo_fini(struct scl_expo *e);

/* Parses exposition text (len bytes) and appends its samples to e.
 * Returns 0, or SIM_EPARSE with err (errlen bytes) saying "line N: ...";
 * samples of the lines before the bad one stay in e. */
int scl_expo_parse(const char *text, size_t len, struct scl_expo *e, char *err,
                   size_t errlen);

/* Appends a sample with a copy of name and no labels; returns it
 * (borrowed until the next append), or NULL when e is full. */
struct scl_sample *scl_expo_append(struct scl_expo *e, const char *name,
                                   double value);

/* Adds a label (copies of name and value) to s. */
void scl_sample_add_label(struct scl_sample *s, const char *name,
                          const char *value);

/* The value of label name of s (borrowed), or NULL. */
const char *scl_sample_label(const struct scl_sample *s, const char *name);

#endif /* SCL_EXPO_H */
