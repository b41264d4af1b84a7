/* Tests of outfile.c: a run killed with SIGKILL in the middle of writing
 * leaves nothing beside the target (O_TMPFILE), the named-temporary fallback
 * still writes atomically, and a failed write leaves the old file alone. */
#include "check.h"
#include "outfile.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static void fresh_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/ml_outfile_XXXXXX");
    if (!mkdtemp(dir)) abort();
}

/* Entries of dir other than . and .. */
static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
    if (d) closedir(d);
    return n;
}

static void rm_dir(void)
{
    DIR *d = opendir(dir);
    char p[256];
    for (struct dirent *de; d && (de = readdir(d));)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
            unlink(p);
        }
    if (d) closedir(d);
    rmdir(dir);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* A child writes half of the file and kills itself with SIGKILL; returns how
 * many directory entries remain (the old file counts one). */
static int killed_mid_write(bool no_tmpfile)
{
    char target[128];
    snprintf(target, sizeof target, "%s/out.html", dir);
    pid_t pid = fork();
    if (pid == 0) {
        ml_outfile_no_tmpfile = no_tmpfile;
        ml_outfile o;
        ml_err e = {{0}};
        if (ml_outfile_open(&o, target, NULL, &e) != 0) _exit(3);
        for (int i = 0; i < 100000; i++) fputs("<p>half a page</p>\n", o.f);
        fflush(o.f);
        raise(SIGKILL);
        _exit(4);
    }
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    return entries();
}

TEST(sigkill_leaves_nothing)
{
    fresh_dir();
    int left = killed_mid_write(false);
    /* Where O_TMPFILE is refused (an old kernel, some file systems) the
     * fallback leaves its named file: that case is the next test's. */
    char probe[80];
    snprintf(probe, sizeof probe, "%s", dir);
#ifdef O_TMPFILE
    int fd = open(probe, O_TMPFILE | O_RDWR, 0600);
    if (fd < 0) {
        rm_dir();
        SKIP("O_TMPFILE not supported here");
    }
    close(fd);
#endif
    CHECK_EQ_I64(left, 0);
    /* With an old file in place: it stays, untouched, and alone. */
    char target[128];
    snprintf(target, sizeof target, "%s/out.html", dir);
    FILE *f = fopen(target, "w");
    fputs("old\n", f);
    fclose(f);
    CHECK_EQ_I64(killed_mid_write(false), 1);
    CHECK_EQ_STR(slurp(target), "old\n");
    rm_dir();
}

TEST(fallback_names_its_temp_and_renames)
{
    fresh_dir();
    /* Killed: the named temporary file is what stays (the case O_TMPFILE avoids). */
    CHECK_EQ_I64(killed_mid_write(true), 1);
    rm_dir();
    fresh_dir();
    char target[128];
    snprintf(target, sizeof target, "%s/out.csv", dir);
    ml_outfile_no_tmpfile = true;
    ml_outfile o;
    ml_err e = {{0}};
    CHECK_EQ_I64(ml_outfile_open(&o, target, NULL, &e), 0);
    CHECK(o.tmp != NULL && strstr(o.tmp, "/out.csv.tmp.") != NULL);
    fputs("a,b\n", o.f);
    CHECK_EQ_I64(entries(), 1); /* the temporary file, named */
    CHECK_EQ_I64(ml_outfile_close(&o, true, &e), 0);
    CHECK_EQ_STR(slurp(target), "a,b\n");
    CHECK_EQ_I64(entries(), 1);
    ml_outfile_no_tmpfile = false;
    rm_dir();
}

TEST(unnamed_until_closed)
{
    fresh_dir();
    char target[128];
    snprintf(target, sizeof target, "%s/out.json", dir);
    ml_outfile o;
    ml_err e = {{0}};
    CHECK_EQ_I64(ml_outfile_open(&o, target, NULL, &e), 0);
    fputs("{}\n", o.f);
    if (!o.anon) {
        ml_outfile_close(&o, false, &e);
        rm_dir();
        SKIP("O_TMPFILE not supported here");
    }
    CHECK_EQ_I64(entries(), 0); /* nothing visible while writing */
    CHECK_EQ_I64(ml_outfile_close(&o, true, &e), 0);
    CHECK_EQ_STR(slurp(target), "{}\n");
    CHECK_EQ_I64(entries(), 1);
    rm_dir();
}

TEST(caller_failure_keeps_old_file)
{
    fresh_dir();
    char target[128];
    snprintf(target, sizeof target, "%s/keep.csv", dir);
    FILE *f = fopen(target, "w");
    fputs("old\n", f);
    fclose(f);
    for (int fb = 0; fb < 2; fb++) {
        ml_outfile_no_tmpfile = fb;
        ml_outfile o;
        ml_err e = {{0}};
        CHECK_EQ_I64(ml_outfile_open(&o, target, NULL, &e), 0);
        fputs("new\n", o.f);
        ml_fail(&e, "the caller's reason");
        CHECK_EQ_I64(ml_outfile_close(&o, false, &e), -1);
        CHECK_EQ_STR(e.msg, "the caller's reason");
        CHECK_EQ_STR(slurp(target), "old\n");
        CHECK_EQ_I64(entries(), 1);
    }
    ml_outfile_no_tmpfile = false;
    rm_dir();
}

int main(void)
{
    RUN(sigkill_leaves_nothing);
    RUN(fallback_names_its_temp_and_renames);
    RUN(unnamed_until_closed);
    RUN(caller_failure_keeps_old_file);
    return check_report();
}
