/* The report as PDF, drawn with cairo's PDF surface: A4 pages, text with
 * cairo's "toy" text API in a sans-serif face (no layout engine: lines are
 * short and never wrap), charts placed from their PNG files. Chosen over a
 * headless browser's print-to-PDF because cairo is a library from one
 * Debian package (libcairo2-dev), needs no browser at run time and gives
 * the same bytes layout on every machine. Text from the database is
 * printed with bytes outside ASCII replaced by '?', since the toy API
 * rejects malformed UTF-8; the long notes are broken into lines at
 * spaces. */
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

#define PAGE_W 595.0 /* A4 in points */
#define PAGE_H 842.0
#define MARGIN 50.0

struct pdf {
    cairo_t *cr;
    double y;
};

static void need(struct pdf *p, double h)
{
    if (p->y + h > PAGE_H - MARGIN) {
        cairo_show_page(p->cr);
        p->y = MARGIN;
    }
}

static void text_at(struct pdf *p, double x, const char *s, double size,
                    int bold)
{
    char buf[256];
    size_t i;

    for (i = 0; s != NULL && s[i] != '\0' && i + 1 < sizeof(buf); i++)
        buf[i] = (unsigned char)s[i] < 0x80 && s[i] >= 0x20 ? s[i] : '?';
    buf[i] = '\0';
    cairo_select_font_face(p->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD
                                : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(p->cr, size);
    cairo_move_to(p->cr, x, p->y);
    cairo_show_text(p->cr, buf);
}

static void line(struct pdf *p, const char *s, double size, int bold)
{
    need(p, size * 1.5);
    p->y += size * 1.4;
    text_at(p, MARGIN, s, size, bold);
}

/* A table row: cells at the given x offsets. */
static void row(struct pdf *p, const char *const *cells, const double *x, int n,
                int bold)
{
    need(p, 14);
    p->y += 13;
    for (int i = 0; i < n; i++)
        text_at(p, MARGIN + x[i], cells[i], 9, bold);
}

/* The widest a character of the sans-serif face is on average, in font
 * sizes (digits and capitals; measured on the PDF of a report). */
#define CHAR_W 0.58

/* Writes s as lines broken at spaces, each as long as the page's text
 * width holds at size points (CHAR_W): the toy text API does not wrap,
 * and the notes are long. */
static void para(struct pdf *p, const char *s, double size)
{
    size_t wrap = (size_t)((PAGE_W - 2 * MARGIN) / (CHAR_W * size));
    char buf[256];

    if (wrap >= sizeof(buf))
        wrap = sizeof(buf) - 1;
    while (*s != '\0') {
        size_t n = strlen(s), cut = n;

        if (n > wrap) {
            cut = wrap;
            while (cut > 0 && s[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = wrap;
        }
        memcpy(buf, s, cut);
        buf[cut] = '\0';
        line(p, buf, size, 0);
        s += cut;
        while (*s == ' ')
            s++;
    }
}

static void image(struct pdf *p, const char *path, const char *title)
{
    cairo_surface_t *img = cairo_image_surface_create_from_png(path);
    double w, h, scale;

    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return;
    }
    w = cairo_image_surface_get_width(img);
    h = cairo_image_surface_get_height(img);
    scale = (PAGE_W - 2 * MARGIN) / w;
    need(p, h * scale + 30);
    line(p, title, 12, 1);
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

int rpt__write_pdf(const struct rpt_report *rep, const char *path,
                   const struct rpt__chart *charts, const char *chart_note,
                   struct sim_diag *d)
{
    const struct rpt_run *r = rep->run;
    struct rpt__line lines[RPT__MAX_LINES];
    int n = rpt__headline(rep, lines);
    cairo_surface_t *surf = cairo_pdf_surface_create(path, PAGE_W, PAGE_H);
    struct pdf p = {NULL, MARGIN};
    cairo_status_t st;
    char buf[512], title[64], note[RPT__NOTE_LEN];
    int has_pi = rpt__pi_title(r, title, sizeof(title));

    p.cr = cairo_create(surf);
    cairo_set_source_rgb(p.cr, 0, 0, 0);
    snprintf(buf, sizeof(buf), "Cost report: %s",
             r->scenario_name ? r->scenario_name : "");
    line(&p, buf, 18, 1);
    snprintf(buf, sizeof(buf), "Run %lld, started %s, seed %llu, policy %s",
             (long long)r->id, r->started_at ? r->started_at : "?",
             (unsigned long long)r->seed,
             r->policy ? r->policy : "none (static cluster)");
    line(&p, buf, 9, 0);
    if (rep->self_baseline)
        line(&p, "A static cluster: this run is its own baseline.", 9, 0);
    else if (rep->baseline != NULL) {
        snprintf(buf, sizeof(buf),
                 "Baseline: run %lld, the same workload and seed on a "
                 "static cluster sized for the peak.",
                 (long long)rep->baseline->id);
        line(&p, buf, 9, 0);
    }
    rpt__calib_note(rep, note, sizeof(note));
    para(&p, note, 9);
    p.y += 8;
    line(&p, "Headline", 13, 1);
    if (!has_pi) {
        static const double x[] = {0, 260, 360};
        const char *hdr[] = {"figure", "value", "unit"};
        row(&p, hdr, x, 3, 1);
        for (int i = 0; i < n; i++) {
            const char *c[] = {lines[i].label, lines[i].text, lines[i].unit};
            row(&p, c, x, 3, 0);
        }
    } else {
        static const double x[] = {0, 185, 265, 420};
        const char *hdr[] = {"figure", "value", title, "unit"};
        row(&p, hdr, x, 4, 1);
        for (int i = 0; i < n; i++) {
            char pi[140] = "";
            const char *c[] = {lines[i].label, lines[i].text, pi,
                               lines[i].unit};
            if (!isnan(lines[i].lo))
                snprintf(pi, sizeof(pi), "%s-%s", lines[i].lo_text,
                         lines[i].hi_text);
            row(&p, c, x, 4, 0);
        }
        p.y += 4;
        rpt__pi_note(r, note, sizeof(note));
        para(&p, note, 8);
    }
    p.y += 8;
    line(&p, "Pools", 13, 1);
    {
        static const double x[] = {0, 110, 170, 250, 330, 410};
        const char *hdr[] = {"pool",       "GPU",        "USD/GPU-h",
                             "GPU-h held", "GPU-h paid", "cost (USD)"};
        row(&p, hdr, x, 6, 1);
        for (int i = 0; i < r->npools; i++) {
            const struct rpt_pool_row *pl = &r->pools[i];
            char b[4][64];
            const char *c[6];
            rpt__fmt(b[0], 64, pl->price_usd_per_gpu_hour, 2);
            rpt__fmt(b[1], 64, pl->gpu_hours_used, 2);
            rpt__fmt(b[2], 64, pl->gpu_hours_paid, 2);
            rpt__fmt(b[3], 64, pl->cost_usd, 2);
            c[0] = pl->name;
            c[1] = pl->gpu ? pl->gpu : "";
            for (int k = 0; k < 4; k++)
                c[2 + k] = b[k];
            row(&p, c, x, 6, 0);
        }
    }
    p.y += 8;
    line(&p, "GPU-hours by state", 13, 1);
    {
        static const double x[] = {0, 200, 300};
        const char *hdr[] = {"state", "GPU-hours", "cost (USD)"};
        struct rpt_acct a;
        rpt_acct_compute(r, &a);
        row(&p, hdr, x, 3, 1);
        for (int s = 0; s <= CL_GS_COUNT; s++) {
            char b1[64], b2[64];
            const char *c[3];
            rpt__fmt(b1, 64,
                     s < CL_GS_COUNT ? a.gpu_hours_by_state[s]
                                     : a.reserved_unused_gpu_hours,
                     2);
            rpt__fmt(b2, 64,
                     s < CL_GS_COUNT ? a.cost_by_state_usd[s]
                                     : a.reserved_unused_cost_usd,
                     2);
            c[0] = s < CL_GS_COUNT ? cl_gpu_state_name(s)
                                   : "reserved, paid but unused";
            c[1] = b1;
            c[2] = b2;
            row(&p, c, x, 3, 0);
        }
    }
    p.y += 8;
    line(&p, "Price assumptions", 13, 1);
    for (int i = 0; i < r->npools; i++) {
        snprintf(buf, sizeof(buf), "%s: %s", r->pools[i].name,
                 rpt__price_source(&r->pools[i]));
        line(&p, buf, 8, 0);
    }
    if (chart_note != NULL) {
        p.y += 8;
        line(&p, chart_note, 10, 1);
    }
    for (int c = 0; c < RPT__NCHARTS; c++)
        if (charts[c].path != NULL)
            image(&p, charts[c].path, charts[c].title);
    {
        char tn[RPT__TIME_NOTES][RPT__TIME_NOTE_LEN];
        int ntn = rpt__time_notes(rep, tn);
        if (r->nnotes + ntn > 0) {
            p.y += 8;
            line(&p, "Notes", 13, 1);
            for (int i = 0; i < r->nnotes; i++)
                line(&p, r->notes[i], 8, 0);
            for (int i = 0; i < ntn; i++)
                line(&p, tn[i], 8, 0);
        }
    }
    cairo_show_page(p.cr);
    cairo_destroy(p.cr);
    cairo_surface_finish(surf);
    st = cairo_surface_status(surf);
    cairo_surface_destroy(surf);
    if (st != CAIRO_STATUS_SUCCESS) {
        sim_diag_error(d, path, 0, 0, "cannot write PDF: %s",
                       cairo_status_to_string(st));
        return SIM_EIO;
    }
    return 0;
}
#else
int rpt__write_pdf(const struct rpt_report *rep, const char *path,
                   const struct rpt__chart *charts, const char *chart_note,
                   struct sim_diag *d)
{
    (void)rep;
    (void)charts;
    (void)chart_note;
    sim_diag_error(d, path, 0, 0, "this dsec was built without cairo");
    return SIM_EINVAL;
}
#endif
