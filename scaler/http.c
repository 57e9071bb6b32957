/* libcurl client; see http.h. */
#include "config.h"

#include "scaler/http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/xalloc.h"

struct scl_http {
    CURL *curl;
    double timeout_s;
    char *ca_file;
    int insecure;
    char *auth; /* "Authorization: Bearer ..." or NULL */
};

struct buf {
    char *p;
    size_t n;
    int too_big;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *arg)
{
    struct buf *b = arg;
    size_t add = size * nmemb;

    if (b->n + add > SCL_HTTP_MAX_BODY) {
        b->too_big = 1;
        return 0;
    }
    b->p = xrealloc(b->p, b->n + add + 1, 1);
    memcpy(b->p + b->n, ptr, add);
    b->n += add;
    b->p[b->n] = '\0';
    return add;
}

struct scl_http *scl_http_new(const struct scl_http_opts *o)
{
    struct scl_http *h = xcalloc(1, sizeof(*h));

    h->curl = curl_easy_init();
    if (h->curl == NULL)
        sim_fatal("curl_easy_init failed");
    h->timeout_s = o->timeout_s > 0 ? o->timeout_s : 5;
    h->ca_file = o->ca_file ? xstrdup(o->ca_file) : NULL;
    h->insecure = o->insecure;
    if (o->bearer != NULL)
        h->auth = xasprintf("Authorization: Bearer %s", o->bearer);
    return h;
}

static void drop_auth(struct scl_http *h)
{
    if (h->auth != NULL) {
        /* The token does not linger in freed memory. */
        memset(h->auth, 0, strlen(h->auth));
        free(h->auth);
        h->auth = NULL;
    }
}

void scl_http_set_bearer(struct scl_http *h, const char *token)
{
    drop_auth(h);
    if (token != NULL)
        h->auth = xasprintf("Authorization: Bearer %s", token);
}

void scl_http_free(struct scl_http *h)
{
    if (h == NULL)
        return;
    curl_easy_cleanup(h->curl);
    free(h->ca_file);
    drop_auth(h);
    free(h);
}

char *scl_http_escape(struct scl_http *h, const char *s)
{
    char *e = curl_easy_escape(h->curl, s, 0);

    if (e != NULL) {
        char *r = xstrdup(e);

        curl_free(e);
        return r;
    }
    sim_fatal("curl_easy_escape failed");
}

int scl_http_request(struct scl_http *h, const char *method, const char *url,
                     const char *content_type, const char *req_body,
                     char **body, size_t *len, long *status, char *err,
                     size_t errlen)
{
    CURL *c = h->curl;
    struct curl_slist *hdr = NULL;
    struct buf b = {NULL, 0, 0};
    char ebuf[CURL_ERROR_SIZE] = "";
    char *ct = NULL;
    CURLcode rc;

    *body = NULL;
    *len = 0;
    *status = 0;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(h->timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(h->timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_USERAGENT, "dsec-scaler/" PACKAGE_VERSION);
    if (h->ca_file != NULL)
        curl_easy_setopt(c, CURLOPT_CAINFO, h->ca_file);
    if (h->insecure) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    hdr = curl_slist_append(hdr, "Accept: application/json, text/plain");
    if (h->auth != NULL)
        hdr = curl_slist_append(hdr, h->auth);
    if (req_body != NULL) {
        ct = xasprintf("Content-Type: %s", content_type);
        hdr = curl_slist_append(hdr, ct);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, req_body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(req_body));
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    rc = curl_easy_perform(c);
    curl_slist_free_all(hdr);
    free(ct);
    if (rc != CURLE_OK) {
        snprintf(err, errlen, "%s %s: %s", method, url,
                 b.too_big ? "response larger than 32 MiB"
                 : ebuf[0] ? ebuf
                           : curl_easy_strerror(rc));
        free(b.p);
        return SIM_EIO;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    if (b.p == NULL)
        b.p = xstrdup("");
    *body = b.p;
    *len = b.n;
    return 0;
}
