/* gnuplot helpers. Rejected: a pipe to gnuplot's stdin (the exit status then
 * says little about which command failed) and popen()/system() (a shell).
 * The temporary directory, not a set of temporary files, keeps the paths
 * the scripts name predictable and the clean-up one rmdir. */
#include "reports/gnuplot.h"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/xalloc.h"

/* Reads the environment here, in reports/, never in sim/ or models/: the
 * simulation stays a function of the scenario and seed. */
static int runnable(const char *path)
{
    struct stat st;

    return *path != '\0' && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

const char *rpt_gp_find(void)
{
    const char *env = getenv("DSEC_GNUPLOT");

    if (env != NULL)
        return runnable(env) ? env : NULL;
#ifdef DSEC_GNUPLOT
    if (runnable(DSEC_GNUPLOT))
        return DSEC_GNUPLOT;
#endif
    return NULL;
}

void rpt_gp_quote(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s != '\0'; s++) {
        if (*s == '\'')
            fputc('\'', fp);
        /* Newlines would end the command; labels and paths never need
         * them. */
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, fp);
    }
    fputc('\'', fp);
}

void rpt_gp_terminal(FILE *fp, const char *png_path, int width, int height)
{
    fprintf(fp,
            "set datafile missing '?'\n"
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "    set terminal pngcairo size %d,%d noenhanced\n"
            "} else {\n"
            "    set terminal png size %d,%d noenhanced\n"
            "}\n"
            "set output ",
            width, height, width, height);
    rpt_gp_quote(fp, png_path);
    fputc('\n', fp);
}

int rpt_gp_fail(struct sim_diag *d, enum rpt_gp_need need, const char *path,
                const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sim_diag_vadd(d, need == RPT_GP_ASKED ? SIM_SEV_ERROR : SIM_SEV_NOTE, path,
                  0, 0, fmt, ap);
    va_end(ap);
    return need == RPT_GP_ASKED ? SIM_EIO : 0;
}

int rpt_gp_job_init(struct rpt_gp_job *j, const char *gnuplot_path, char **why)
{
    const char *tmp = getenv("TMPDIR");

    memset(j, 0, sizeof(*j));
    if (gnuplot_path == NULL) {
        *why = xstrdup("gnuplot not found (install it, or set DSEC_GNUPLOT "
                       "to its path)");
        return -1;
    }
    j->dir = xasprintf("%s/dsec-chart-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(j->dir) == NULL) {
        *why = xasprintf("temporary directory %s: %s", j->dir, strerror(errno));
        free(j->dir);
        j->dir = NULL;
        return -1;
    }
    j->gnuplot = gnuplot_path;
    return 0;
}

/* Keeps path (taken over) for removal; returns the kept copy, which is an
 * earlier one when the path was kept before. */
static const char *keep(struct rpt_gp_job *j, char *path)
{
    for (int i = 0; i < j->nfiles; i++)
        if (strcmp(j->files[i], path) == 0) {
            free(path);
            return j->files[i];
        }
    j->files = xrealloc(j->files, (size_t)j->nfiles + 1, sizeof(*j->files));
    j->files[j->nfiles++] = path;
    return path;
}

const char *rpt_gp_job_file(struct rpt_gp_job *j, const char *fmt, ...)
{
    va_list ap;
    char name[256];

    va_start(ap, fmt);
    vsnprintf(name, sizeof(name), fmt, ap);
    va_end(ap);
    return keep(j, xasprintf("%s/%s", j->dir, name));
}

/* Runs gnuplot_path on script with its stdout and stderr written to
 * errpath. Returns gnuplot's exit status, or -1 if it could not be started
 * or was killed by a signal. */
static int run(const char *gnuplot_path, const char *script,
               const char *errpath)
{
    pid_t pid;
    int status;

    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        char *argv[] = {(char *)"gnuplot", (char *)script, NULL};
        int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execv(gnuplot_path, argv);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The first non-blank line of the file at path (gnuplot's error message),
 * or NULL when there is none. Caller frees with free(). */
static char *first_line(const char *path)
{
    char buf[256];
    FILE *fp = fopen(path, "r");
    char *s = NULL;

    while (fp != NULL && fgets(buf, sizeof(buf), fp) != NULL) {
        buf[strcspn(buf, "\r\n")] = '\0';
        if (buf[strspn(buf, " \t^")] != '\0') {
            s = xstrdup(buf + strspn(buf, " \t"));
            break;
        }
    }
    if (fp != NULL)
        fclose(fp);
    return s;
}

int rpt_gp_job_run(struct rpt_gp_job *j, const char *script, char **why)
{
    const char *errpath = keep(j, xasprintf("%s.out", script));
    int st = run(j->gnuplot, script, errpath);
    char *line;

    if (st == 0)
        return 0;
    line = first_line(errpath);
    *why = xasprintf("%s exited with status %d%s%s", j->gnuplot, st,
                     line ? ": " : "", line ? line : "");
    free(line);
    return -1;
}

void rpt_gp_job_fini(struct rpt_gp_job *j)
{
    for (int i = 0; i < j->nfiles; i++) {
        unlink(j->files[i]);
        free(j->files[i]);
    }
    free(j->files);
    if (j->dir != NULL)
        rmdir(j->dir);
    free(j->dir);
    memset(j, 0, sizeof(*j));
}
