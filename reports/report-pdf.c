/* The reports as PDF, drawn with cairo's PDF surface: A4 pages, text with
 * cairo's "toy" text API in DejaVu Sans (Debian fonts-dejavu-core), whose
 * glyphs cover the reports' non-ASCII text (§, ±, ×, –, ≥); the toy API has
 * no fallback fonts, so a face without them would print boxes. Chosen over
 * a headless browser's print-to-PDF because cairo is a library from one
 * Debian package (libcairo2-dev), needs no browser at run time and gives
 * the same layout on every machine. There is no layout engine: paragraphs
 * and table cells are broken at spaces by measuring each word with
 * cairo_text_extents(), numbers are right-aligned by their measured width,
 * and a table's columns are as wide as their widest cell, the text columns
 * sharing what is left. Text from the database is UTF-8; invalid bytes and
 * control characters print as '?', since the toy API rejects malformed
 * UTF-8. The run report follows the HTML section by section (report-html.c):
 * the same headings, tables and columns, notes last. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report-int.h"
#include "base/errors.h"
#include "base/xalloc.h"

#ifdef HAVE_CAIRO
#include <cairo-pdf.h>
#include <cairo.h>

#define A4_SHORT 595.0 /* A4 in points */
#define A4_LONG 842.0
#define MARGIN 50.0
#define FACE "DejaVu Sans"
#define TABLE_PT 8.0 /* table text */
#define PAD 6.0      /* between table columns */
#define MAX_COLS 16

struct rpt__pdf {
    cairo_surface_t *surf;
    cairo_t *cr;
    double w, h; /* page size */
    double y;    /* baseline of the last line drawn */
};

/* Copies s into a new string with invalid UTF-8 and control characters
 * as '?'. Caller frees. */
static char *clean(const char *s)
{
    size_t n = s ? strlen(s) : 0, o = 0;
    char *out = xmalloc(n + 1);

    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = c < 0x80             ? 1
                     : (c & 0xe0) == 0xc0 ? 2
                     : (c & 0xf0) == 0xe0 ? 3
                     : (c & 0xf8) == 0xf0 ? 4
                                          : 0;
        int good = len > 0 && i + len <= n && (len > 1 || c >= 0x20);

        for (size_t k = 1; good && k < len; k++)
            good = ((unsigned char)s[i + k] & 0xc0) == 0x80;
        if (!good) {
            out[o++] = '?';
            i++;
            continue;
        }
        memcpy(out + o, s + i, len);
        o += len;
        i += len;
    }
    out[o] = '\0';
    return out;
}

static void font(struct rpt__pdf *p, double size, int bold)
{
    cairo_select_font_face(p->cr, FACE, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD
                                : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(p->cr, size);
}

/* Width of clean text s in the current font. */
static double width(struct rpt__pdf *p, const char *s)
{
    cairo_text_extents_t e;

    cairo_text_extents(p->cr, s, &e);
    return e.x_advance;
}

static void need(struct rpt__pdf *p, double h)
{
    if (p->y + h > p->h - MARGIN) {
        cairo_show_page(p->cr);
        p->y = MARGIN;
    }
}

static void show_at(struct rpt__pdf *p, double x, double y, const char *s)
{
    cairo_move_to(p->cr, x, y);
    cairo_show_text(p->cr, s);
}

/* Width of the first len bytes of s in the current font. */
static double width_n(struct rpt__pdf *p, const char *s, size_t len)
{
    char *t = xmalloc(len + 1);
    double w;

    memcpy(t, s, len);
    t[len] = '\0';
    w = width(p, t);
    free(t);
    return w;
}

/* Breaks clean text s into lines no wider than w in the current font:
 * returns the number of lines and stores their starts and lengths (at
 * most max). A word wider than w gets a line of its own. Quadratic in a
 * line's words, which are few. */
static int wrap(struct rpt__pdf *p, const char *s, double w, const char **at,
                size_t *len, int max)
{
    int n = 0;

    while (*s == ' ')
        s++;
    while (*s != '\0' && n < max) {
        size_t cut = 0;

        for (;;) {
            size_t e = cut;
            while (s[e] == ' ')
                e++;
            while (s[e] != '\0' && s[e] != ' ')
                e++;
            if (cut > 0 && width_n(p, s, e) > w)
                break;
            cut = e;
            if (s[e] == '\0')
                break;
        }
        at[n] = s;
        len[n++] = cut;
        s += cut;
        while (*s == ' ')
            s++;
    }
    return n;
}

struct rpt__pdf *rpt__pdf_open(const char *path, int landscape,
                               struct sim_diag *d)
{
    struct rpt__pdf *p = xcalloc(1, sizeof(*p));

    (void)d;
    p->w = landscape ? A4_LONG : A4_SHORT;
    p->h = landscape ? A4_SHORT : A4_LONG;
    p->y = MARGIN;
    p->surf = cairo_pdf_surface_create(path, p->w, p->h);
    p->cr = cairo_create(p->surf);
    cairo_set_source_rgb(p->cr, 0, 0, 0);
    return p;
}

void rpt__pdf_para(struct rpt__pdf *p, const char *s, double size, int bold)
{
    char *c = clean(s);
    const char *at[256];
    size_t len[256];
    int n;

    font(p, size, bold);
    n = wrap(p, c, p->w - 2 * MARGIN, at, len, 256);
    for (int i = 0; i < n; i++) {
        char *line = xmalloc(len[i] + 1);
        memcpy(line, at[i], len[i]);
        line[len[i]] = '\0';
        need(p, size * 1.5);
        p->y += size * 1.4;
        show_at(p, MARGIN, p->y, line);
        free(line);
    }
    free(c);
}

void rpt__pdf_item(struct rpt__pdf *p, const char *s, double size)
{
    char *c = clean(s);
    const char *at[256];
    size_t len[256];
    int n;
    double indent = size * 1.2;

    font(p, size, 0);
    n = wrap(p, c, p->w - 2 * MARGIN - indent, at, len, 256);
    for (int i = 0; i < n; i++) {
        char *line = xmalloc(len[i] + 1);
        memcpy(line, at[i], len[i]);
        line[len[i]] = '\0';
        need(p, size * 1.5);
        p->y += size * 1.4;
        if (i == 0)
            show_at(p, MARGIN, p->y, "\xe2\x80\xa2"); /* a bullet */
        show_at(p, MARGIN + indent, p->y, line);
        free(line);
    }
    free(c);
    p->y += size * 0.3;
}

void rpt__pdf_heading(struct rpt__pdf *p, const char *s, int level)
{
    double size = level == 1 ? 18 : level == 2 ? 13 : 11;

    p->y += level == 1 ? 0 : 10;
    /* Keep a heading with what follows it. */
    need(p, size * 1.5 + 40);
    rpt__pdf_para(p, s, size, 1);
    p->y += 2;
}

/* One table row's cells split into lines. */
struct trow {
    const char *at[MAX_COLS][64];
    size_t len[MAX_COLS][64];
    int nl[MAX_COLS];
    int lines;
};

#define LINE_H (TABLE_PT * 1.3)

/* Splits the cells of a row into lines (numbers stay on one). */
static void row_split(struct rpt__pdf *p, int ncols, char **cell,
                      const int *num, const double *w, int bold, struct trow *t)
{
    font(p, TABLE_PT, bold);
    t->lines = 1;
    for (int c = 0; c < ncols; c++) {
        if (num[c] && !bold) {
            t->at[c][0] = cell[c];
            t->len[c][0] = strlen(cell[c]);
            t->nl[c] = cell[c][0] != '\0';
        } else {
            t->nl[c] = wrap(p, cell[c], w[c], t->at[c], t->len[c], 64);
        }
        if (t->nl[c] > t->lines)
            t->lines = t->nl[c];
    }
}

static void row_draw(struct rpt__pdf *p, int ncols, const int *num,
                     const double *x, const double *w, int bold,
                     const struct trow *t)
{
    font(p, TABLE_PT, bold);
    for (int c = 0; c < ncols; c++)
        for (int l = 0; l < t->nl[c]; l++) {
            char *s = xmalloc(t->len[c][l] + 1);
            double tx = x[c];
            memcpy(s, t->at[c][l], t->len[c][l]);
            s[t->len[c][l]] = '\0';
            if (num[c])
                tx = x[c] + w[c] - width(p, s);
            show_at(p, tx, p->y + LINE_H * (l + 1), s);
            free(s);
        }
    p->y += t->lines * LINE_H + 3;
}

/* Draws the head row and a rule under it. */
static void table_head(struct rpt__pdf *p, int ncols, char **head,
                       const int *num, const double *x, const double *w)
{
    struct trow t;

    row_split(p, ncols, head, num, w, 1, &t);
    need(p, (t.lines + 2) * LINE_H + 8);
    row_draw(p, ncols, num, x, w, 1, &t);
    cairo_set_line_width(p->cr, 0.5);
    cairo_move_to(p->cr, x[0], p->y);
    cairo_line_to(p->cr, x[ncols - 1] + w[ncols - 1], p->y);
    cairo_stroke(p->cr);
}

void rpt__pdf_table(struct rpt__pdf *p, int ncols, const char *const *head,
                    const int *num, int nrows, const char *const *cells)
{
    char *h[MAX_COLS], **c;
    double w[MAX_COLS] = {0}, x[MAX_COLS] = {0}, minw[MAX_COLS] = {0};
    double avail, fixed = 0, flex = 0;

    if (ncols < 1)
        return;
    if (ncols > MAX_COLS)
        ncols = MAX_COLS;
    c = xcalloc((size_t)nrows * (size_t)ncols + 1, sizeof(*c));
    avail = p->w - 2 * MARGIN - PAD * (ncols - 1);
    /* Natural widths: the widest cell on one line; a text column may
     * shrink to its longest word of the head or cells. */
    for (int k = 0; k < ncols; k++) {
        h[k] = clean(head[k]);
        font(p, TABLE_PT, 1);
        w[k] = width(p, h[k]);
        minw[k] = 0;
        {
            char *t = xstrdup(h[k]);
            for (char *wd = strtok(t, " "); wd; wd = strtok(NULL, " "))
                if (width(p, wd) > minw[k])
                    minw[k] = width(p, wd);
            free(t);
        }
        font(p, TABLE_PT, 0);
        for (int r = 0; r < nrows; r++) {
            const char *s = cells[(size_t)r * (size_t)ncols + (size_t)k];
            char *t;
            c[(size_t)r * (size_t)ncols + (size_t)k] = clean(s);
            s = c[(size_t)r * (size_t)ncols + (size_t)k];
            if (width(p, s) > w[k])
                w[k] = width(p, s);
            t = xstrdup(s);
            for (char *wd = strtok(t, " "); wd; wd = strtok(NULL, " "))
                if (width(p, wd) > minw[k])
                    minw[k] = width(p, wd);
            free(t);
        }
        if (num[k]) {
            minw[k] = w[k];
            fixed += w[k];
        } else
            flex += w[k];
    }
    /* Too wide: the text columns share what the numbers leave, in
     * proportion to their natural widths, none under its longest word. */
    if (fixed + flex > avail && flex > 0) {
        /* A column whose share is under its longest word keeps that
         * width; the others share the rest again. */
        int clamped[MAX_COLS] = {0}, again = 1;
        double nat[MAX_COLS];

        memcpy(nat, w, sizeof(nat));
        for (int it = 0; again && it <= ncols; it++) {
            double left = avail - fixed, share = 0;

            again = 0;
            for (int k = 0; k < ncols; k++)
                if (!num[k] && clamped[k])
                    left -= minw[k];
                else if (!num[k])
                    share += nat[k];
            for (int k = 0; k < ncols; k++) {
                if (num[k] || clamped[k])
                    continue;
                w[k] = share > 0 ? left * nat[k] / share : minw[k];
                if (w[k] < minw[k]) {
                    w[k] = minw[k];
                    clamped[k] = again = 1;
                }
            }
        }
    }
    x[0] = MARGIN;
    for (int k = 1; k < ncols; k++)
        x[k] = x[k - 1] + w[k - 1] + PAD;
    table_head(p, ncols, h, num, x, w);
    for (int r = 0; r < nrows; r++) {
        struct trow t;

        row_split(p, ncols, c + (size_t)r * (size_t)ncols, num, w, 0, &t);
        if (p->y + t.lines * LINE_H + 4 > p->h - MARGIN) {
            /* A new page: the head again, then the row. */
            cairo_show_page(p->cr);
            p->y = MARGIN;
            table_head(p, ncols, h, num, x, w);
            row_split(p, ncols, c + (size_t)r * (size_t)ncols, num, w, 0, &t);
        }
        row_draw(p, ncols, num, x, w, 0, &t);
    }
    p->y += 4;
    for (int k = 0; k < ncols; k++)
        free(h[k]);
    for (size_t i = 0; i < (size_t)nrows * (size_t)ncols; i++)
        free(c[i]);
    free(c);
}

void rpt__pdf_image(struct rpt__pdf *p, const char *png, const char *title)
{
    cairo_surface_t *img = cairo_image_surface_create_from_png(png);
    double w, h, scale;

    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return;
    }
    w = cairo_image_surface_get_width(img);
    h = cairo_image_surface_get_height(img);
    scale = (p->w - 2 * MARGIN) / w;
    if (h * scale > p->h - 2 * MARGIN - 40)
        scale = (p->h - 2 * MARGIN - 40) / h;
    need(p, h * scale + 40);
    rpt__pdf_heading(p, title, 3);
    p->y += 6;
    cairo_save(p->cr);
    cairo_translate(p->cr, MARGIN, p->y);
    cairo_scale(p->cr, scale, scale);
    cairo_set_source_surface(p->cr, img, 0, 0);
    cairo_paint(p->cr);
    cairo_restore(p->cr);
    cairo_set_source_rgb(p->cr, 0, 0, 0);
    p->y += h * scale + 6;
    cairo_surface_destroy(img);
}

int rpt__pdf_close(struct rpt__pdf *p, const char *path, struct sim_diag *d)
{
    cairo_status_t st;

    if (p == NULL)
        return SIM_EIO;
    cairo_show_page(p->cr);
    cairo_destroy(p->cr);
    cairo_surface_finish(p->surf);
    st = cairo_surface_status(p->surf);
    cairo_surface_destroy(p->surf);
    free(p);
    if (st != CAIRO_STATUS_SUCCESS) {
        sim_diag_error(d, path, 0, 0, "cannot write PDF: %s",
                       cairo_status_to_string(st));
        return SIM_EIO;
    }
    return 0;
}
#else
struct rpt__pdf *rpt__pdf_open(const char *path, int landscape,
                               struct sim_diag *d)
{
    (void)landscape;
    sim_diag_error(d, path, 0, 0, "this dsec was built without cairo");
    return NULL;
}

void rpt__pdf_heading(struct rpt__pdf *p, const char *s, int level)
{
    (void)p;
    (void)s;
    (void)level;
}

void rpt__pdf_para(struct rpt__pdf *p, const char *s, double size, int bold)
{
    (void)p;
    (void)s;
    (void)size;
    (void)bold;
}

void rpt__pdf_item(struct rpt__pdf *p, const char *s, double size)
{
    (void)p;
    (void)s;
    (void)size;
}

void rpt__pdf_table(struct rpt__pdf *p, int ncols, const char *const *head,
                    const int *num, int nrows, const char *const *cells)
{
    (void)p;
    (void)ncols;
    (void)head;
    (void)num;
    (void)nrows;
    (void)cells;
}

void rpt__pdf_image(struct rpt__pdf *p, const char *png, const char *title)
{
    (void)p;
    (void)png;
    (void)title;
}

int rpt__pdf_close(struct rpt__pdf *p, const char *path, struct sim_diag *d)
{
    (void)p;
    (void)path;
    (void)d;
    return SIM_EINVAL;
}
#endif

/* The run report, in the order of report-html.c. */
int rpt__write_pdf(const struct rpt_report *rep, const char *path,
                   const struct rpt__chart *charts, const char *chart_note,
                   struct sim_diag *d)
{
    const struct rpt_run *r = rep->run;
    struct rpt__line lines[RPT__MAX_LINES];
    struct rpt__state_row st[RPT__NSTATE_ROWS];
    const char *kname[RPT__MAX_KINDS];
    double khours[RPT__MAX_KINDS], kcost[RPT__MAX_KINDS];
    int n = rpt__headline(rep, lines), ns = rpt__state_rows(r, st);
    int nk = rpt__kinds(r, kname, khours, kcost);
    struct rpt__pdf *p = rpt__pdf_open(path, 0, d);
    char buf[1024], title[64], note[RPT__NOTE_LEN];
    int has_pi = rpt__pi_title(r, title, sizeof(title));

    if (p == NULL)
        return SIM_EINVAL;
    snprintf(buf, sizeof(buf), "Cost report: %s",
             r->scenario_name ? r->scenario_name : "");
    rpt__pdf_heading(p, buf, 1);
    snprintf(buf, sizeof(buf),
             "Run %lld, started %s, seed %llu, policy %s, dsec %s.",
             (long long)r->id, r->started_at ? r->started_at : "?",
             (unsigned long long)r->seed,
             r->policy ? r->policy : "none (static cluster)",
             r->program_version ? r->program_version : "?");
    if (rep->self_baseline)
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s",
                 " This run is a static cluster: it is its own baseline.");
    else if (rep->baseline != NULL)
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
                 " Baseline: run %lld, the same workload and seed on a "
                 "static cluster sized for the peak.",
                 (long long)rep->baseline->id);
    rpt__pdf_para(p, buf, 9, 0);

    rpt__pdf_heading(p, "Headline", 2);
    {
        const char *hdr[] = {"figure", "value", title, "unit"};
        static const int num3[] = {0, 1, 0}, num4[] = {0, 1, 1, 0};
        int nc = has_pi ? 4 : 3;
        const char **c = xcalloc((size_t)n * 4, sizeof(*c));
        char(*pi)[140] = xcalloc((size_t)n, sizeof(*pi));

        if (!has_pi)
            hdr[2] = "unit";
        for (int i = 0; i < n; i++) {
            c[i * nc] = lines[i].label;
            c[i * nc + 1] = lines[i].text;
            if (has_pi) {
                if (!isnan(lines[i].lo))
                    snprintf(pi[i], sizeof(pi[i]), "%s\xe2\x80\x93%s",
                             lines[i].lo_text, lines[i].hi_text);
                c[i * nc + 2] = pi[i];
            }
            c[i * nc + nc - 1] = lines[i].unit;
        }
        rpt__pdf_table(p, nc, hdr, has_pi ? num4 : num3, n, c);
        free(c);
        free(pi);
    }
    if (has_pi) {
        snprintf(buf, sizeof(buf),
                 "%s: what it holds is under " RPT__ENG_TITLE ".", title);
        rpt__pdf_para(p, buf, 8, 0);
    }

    rpt__pdf_heading(p, "Charts", 2);
    for (int c = 0; c < RPT__NCHARTS; c++)
        if (charts[c].path != NULL)
            rpt__pdf_image(p, charts[c].path, charts[c].title);

    rpt__pdf_heading(p, "Pools", 2);
    {
        static const char *const hdr[] = {"pool",
                                          "GPU",
                                          "capacity",
                                          "kind",
                                          "USD per GPU-hour",
                                          "GPU-hours held",
                                          "GPU-hours paid",
                                          "cost (USD)"};
        static const int num[] = {0, 0, 1, 0, 1, 1, 1, 1};
        const char **c = xcalloc((size_t)r->npools * 8 + 1, sizeof(*c));
        char(*b)[6][64] = xcalloc((size_t)r->npools + 1, sizeof(*b));

        for (int i = 0; i < r->npools; i++) {
            const struct rpt_pool_row *pl = &r->pools[i];
            snprintf(b[i][0], 64, "%d", pl->capacity_gpus);
            snprintf(b[i][1], 64, "%s%s",
                     pl->reserved ? "reserved" : "on demand",
                     pl->borrowable ? ", borrowable" : "");
            rpt__fmt(b[i][2], 64, pl->price_usd_per_gpu_hour, 2);
            rpt__fmt(b[i][3], 64, pl->gpu_hours_used, 2);
            rpt__fmt(b[i][4], 64, pl->gpu_hours_paid, 2);
            rpt__fmt(b[i][5], 64, pl->cost_usd, 2);
            c[i * 8] = pl->name;
            c[i * 8 + 1] = pl->gpu ? pl->gpu : "";
            for (int k = 0; k < 6; k++)
                c[i * 8 + 2 + k] = b[i][k];
        }
        rpt__pdf_table(p, 8, hdr, num, r->npools, c);
        free(c);
        free(b);
    }

    rpt__pdf_heading(p, "By GPU kind", 2);
    {
        static const char *const hdr[] = {"GPU", "GPU-hours paid",
                                          "cost (USD)"};
        static const int num[] = {0, 1, 1};
        const char *c[RPT__MAX_KINDS * 3];
        char b[RPT__MAX_KINDS][2][64];

        for (int k = 0; k < nk; k++) {
            rpt__fmt(b[k][0], 64, khours[k], 2);
            rpt__fmt(b[k][1], 64, kcost[k], 2);
            c[k * 3] = kname[k];
            c[k * 3 + 1] = b[k][0];
            c[k * 3 + 2] = b[k][1];
        }
        rpt__pdf_table(p, 3, hdr, num, nk, c);
    }

    rpt__pdf_heading(p, "By state", 2);
    {
        static const char *const hdr[] = {"state", "GPU-hours", "cost (USD)"};
        static const int num[] = {0, 1, 1};
        const char *c[RPT__NSTATE_ROWS * 3];
        char b[RPT__NSTATE_ROWS][2][64];

        for (int s = 0; s < ns; s++) {
            rpt__fmt(b[s][0], 64, st[s].hours, 2);
            rpt__fmt(b[s][1], 64, st[s].cost, 2);
            c[s * 3] = st[s].name;
            c[s * 3 + 1] = b[s][0];
            c[s * 3 + 2] = b[s][1];
        }
        rpt__pdf_table(p, 3, hdr, num, ns, c);
    }

    rpt__pdf_heading(p, "Prices", 2);
    {
        static const char *const hdr[] = {
            "pool", "GPU",   "USD per GPU-hour", "provider", "region", "basis",
            "date", "source"};
        static const int num[] = {0, 0, 1, 0, 0, 0, 0, 0};
        const char **c = xcalloc((size_t)r->npools * 8 + 1, sizeof(*c));
        struct rpt__price *pr = xcalloc((size_t)r->npools + 1, sizeof(*pr));
        char(*b)[64] = xcalloc((size_t)r->npools + 1, sizeof(*b));

        for (int i = 0; i < r->npools; i++) {
            rpt__price_of(&r->pools[i], &pr[i]);
            rpt__fmt(b[i], 64, r->pools[i].price_usd_per_gpu_hour, 2);
            c[i * 8] = r->pools[i].name;
            c[i * 8 + 1] = r->pools[i].gpu ? r->pools[i].gpu : "";
            c[i * 8 + 2] = b[i];
            rpt__price_cells(&pr[i], &c[i * 8 + 3]);
        }
        rpt__pdf_table(p, 8, hdr, num, r->npools, c);
        free(c);
        free(pr);
        free(b);
    }
    rpt__borrow_note(r, note, sizeof(note));
    if (note[0] != '\0')
        rpt__pdf_para(p, note, 9, 0);
    rpt__pdf_para(p, rpt__price_caveat, 8, 0);

    rpt__pdf_heading(p, RPT__FIN_TITLE, 2);
    rpt__savings_note(rep, note, sizeof(note));
    if (note[0] != '\0')
        rpt__pdf_item(p, note, 9);
    {
        char tn[RPT__TIME_NOTES][RPT__TIME_NOTE_LEN];
        int ntn = rpt__time_notes(rep, tn);
        for (int i = 0; i < ntn; i++)
            rpt__pdf_item(p, tn[i], 9);
    }
    rpt__pdf_item(p, "Per day and per month scale the simulated time.", 9);

    rpt__pdf_heading(p, RPT__ENG_TITLE, 2);
    rpt__calib_note(rep, note, sizeof(note));
    if (note[0] != '\0')
        rpt__pdf_para(p, note, 8, 0);
    if (has_pi) {
        rpt__pi_note(r, note, sizeof(note));
        rpt__pdf_para(p, note, 8, 0);
    }
    if (chart_note != NULL) {
        snprintf(buf, sizeof(buf), "%s.", chart_note);
        rpt__pdf_para(p, buf, 8, 1);
    }
    for (int i = 0; i < r->nnotes; i++)
        rpt__pdf_item(p, r->notes[i], 8);
    return rpt__pdf_close(p, path, d);
}
