/* gnuplot helpers. Rejected: a pipe to gnuplot's stdin (the exit status then
 * says little about which command failed) and popen()/system() (a shell). */
#include "reports/gnuplot.h"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

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

int rpt_gp_run(const char *gnuplot_path, const char *script,
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

char *rpt_gp_first_line(const char *path)
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
