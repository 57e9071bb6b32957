/*
 * A small HTTP client over libcurl for dsec-scaler: one reusable easy
 * handle, a bounded response buffer, TLS verified unless asked otherwise,
 * an optional bearer token that is sent but never logged. One request at a
 * time (the scaler never has two in flight). Single-threaded.
 */
#ifndef SCL_HTTP_H
#define SCL_HTTP_H

#include <stddef.h>

/* Responses larger than this are refused (a /metrics page of a big vLLM
 * server is a few hundred kB). */
#define SCL_HTTP_MAX_BODY (32u << 20)

struct scl_http;

struct scl_http_opts {
    double timeout_s;
    const char *ca_file; /* NULL: the system's CA store */
    int insecure;        /* skip TLS verification */
    const char *bearer;  /* token, or NULL; never logged */
};

/* A new client (libcurl must be initialised with curl_global_init()).
 * Strings in o are copied. Caller frees with scl_http_free(). */
struct scl_http *scl_http_new(const struct scl_http_opts *o);

/* Frees h; NULL is a no-op. */
void scl_http_free(struct scl_http *h);

/* Performs METHOD url with an optional body of content_type. On return,
 * *body (caller frees) holds the response, NUL-terminated, *len its
 * length and *status the HTTP status. Returns 0 when a response arrived
 * (any status), or SIM_EIO with err saying what failed (connection,
 * timeout, TLS, size); *body is then NULL. */
int scl_http_request(struct scl_http *h, const char *method, const char *url,
                     const char *content_type, const char *req_body,
                     char **body, size_t *len, long *status, char *err,
                     size_t errlen);

/* Replaces the bearer token (a copy; NULL removes it). For tokens that
 * rotate, as projected service-account tokens do. */
void scl_http_set_bearer(struct scl_http *h, const char *token);

/* url-encodes s; caller frees. */
char *scl_http_escape(struct scl_http *h, const char *s);

#endif /* SCL_HTTP_H */
