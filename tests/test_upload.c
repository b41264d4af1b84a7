/*
 * test_upload.c — uploads without sockets (src/server/upload.h, ml_ranks_add):
 * names that are paths refused, a body written in chunks arrives whole in its
 * own subfolder of a fresh temporary folder, a discarded upload leaves
 * nothing, the folder goes with ml_uploads_free; an uploaded trace becomes a
 * loaded rank beside lazily loaded ones, a bad one adds none and its error
 * names the file as the user did.
 */
#include "check.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ranks.h"
#include "upload.h"

static const char *TRACE =
    "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":50},\n"
    "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":99,"
    "\"Bytes\":1048576,\"Total Allocated\":3145728,\"Total Reserved\":4194304}}]}";

static char tmpdir[256];

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

TEST(names_that_are_paths_are_refused)
{
    CHECK(ml_upload_name_problem("trace.pt.trace.json.gz") == NULL);
    CHECK(ml_upload_name_problem("rank 0 (copy).json") == NULL);
    CHECK(ml_upload_name_problem("snapshot.pickle") == NULL);
    const char *bad[] = {NULL, "", ".", "..", "../x.json", "a/b.json", "/etc/passwd", "a\\b.json", ".hidden",
                         "x\ny.json", "tab\t.json"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK(ml_upload_name_problem(bad[i]) != NULL);
    char longname[260];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK(ml_upload_name_problem(longname) != NULL);
}

TEST(chunks_arrive_whole_and_the_folder_goes)
{
    char *logtext = NULL;
    size_t loglen = 0;
    FILE *log = open_memstream(&logtext, &loglen); /* the caller's stream: the folder is announced there, not on stdout */
    ml_uploads *u = ml_uploads_new(log);
    CHECK(ml_uploads_dir(u) == NULL); /* nothing made before the first upload */
    ml_err e = {{0}};
    CHECK(ml_upload_begin(u, "x/../../evil.json", &e) == NULL);
    CHECK_CONTAINS(e.msg, "a name, not a path");
    CHECK(ml_uploads_dir(u) == NULL);

    ml_upload *a = ml_upload_begin(u, "t.json", &e);
    ml_upload *b = ml_upload_begin(u, "t.json", &e); /* the same name twice: two files */
    CHECK(a && b);
    if (!a || !b) { ml_uploads_free(u); return; }
    char *dir = ml_strdup(ml_uploads_dir(u));
    CHECK(!strncmp(dir, tmpdir, strlen(tmpdir)));
    fclose(log);
    char want[4200];
    snprintf(want, sizeof want, "memlens serve: uploads are kept in %s until exit\n", dir);
    CHECK_EQ_STR(logtext, want); /* once, for two uploads */
    free(logtext);
    CHECK(strcmp(ml_upload_path(a), ml_upload_path(b)) != 0);
    CHECK(!strncmp(ml_upload_path(a), ml_upload_prefix(a), strlen(ml_upload_prefix(a))));
    CHECK_EQ_STR(ml_upload_path(a) + strlen(ml_upload_prefix(a)), "t.json");
    size_t n = strlen(TRACE);
    for (size_t off = 0; off < n; off += 7) CHECK_EQ_I64(ml_upload_write(a, TRACE + off, n - off < 7 ? n - off : 7, &e), 0);
    CHECK_EQ_I64(ml_upload_close(a, &e), 0);
    CHECK_EQ_I64(ml_upload_bytes(a), (int64_t)n);
    FILE *f = fopen(ml_upload_path(a), "rb");
    char back[1024] = {0};
    CHECK(f && fread(back, 1, sizeof back - 1, f) == n);
    if (f) fclose(f);
    CHECK_EQ_STR(back, TRACE);

    char bpath[4200];
    snprintf(bpath, sizeof bpath, "%s", ml_upload_path(b));
    ml_upload_end(b, 1); /* discarded: its file and subfolder go */
    CHECK(!exists(bpath));
    *strrchr(bpath, '/') = 0;
    CHECK(!exists(bpath));
    char apath[4200];
    snprintf(apath, sizeof apath, "%s", ml_upload_path(a));
    ml_upload_end(a, 0); /* kept */
    CHECK(exists(apath));
    ml_uploads_free(u);
    CHECK(!exists(apath));
    CHECK(!exists(dir));
    free(dir);
}

TEST(strip_removes_the_folder_from_messages)
{
    char out[128];
    ml_upload_strip("/tmp/up-1/3/x.json: byte 0: bad (/tmp/up-1/3/x.json)", "/tmp/up-1/3/", out, sizeof out);
    CHECK_EQ_STR(out, "x.json: byte 0: bad (x.json)");
    ml_upload_strip("no path here", "/tmp/up-1/3/", out, sizeof out);
    CHECK_EQ_STR(out, "no path here");
    ml_upload_strip("abcdef", "", out, 4);
    CHECK_EQ_STR(out, "abc");
}

TEST(an_upload_becomes_a_loaded_rank)
{
    char in[300];
    snprintf(in, sizeof in, "%s/given.json", tmpdir);
    FILE *f = fopen(in, "w");
    fputs(TRACE, f);
    fclose(f);
    ml_err e = {{0}};
    const char *inputs[] = {in};
    ml_ranks *rs = ml_ranks_open(inputs, 1, 1, &e);
    CHECK(rs != NULL);
    if (!rs) return;
    ml_ranks_request(rs, 0); /* a lazy import running while the upload is added */

    ml_uploads *u = ml_uploads_new(NULL);
    ml_upload *up = ml_upload_begin(u, "up.json", &e);
    CHECK(up != NULL);
    if (!up) { ml_uploads_free(u); ml_ranks_free(rs); return; }
    ml_upload_write(up, TRACE, strlen(TRACE), &e);
    ml_upload_close(up, &e);
    long k = ml_ranks_add(rs, ml_upload_path(up), "up.json", NULL, &e);
    CHECK_EQ_I64(k, 1);
    CHECK_EQ_I64((int64_t)ml_ranks_count(rs), 2);
    ml_slot_state st;
    CHECK(ml_ranks_get(rs, 1, &st) != NULL);
    CHECK_EQ_I64(st, ML_SLOT_READY);
    CHECK_EQ_I64(ml_ranks_wait(rs, 0, 10000), ML_SLOT_READY);
    ml_buf b = {0};
    ml_ranks_status_json(rs, &b);
    CHECK_CONTAINS(b.p, "\"inputs\":[");
    CHECK_CONTAINS(b.p, "\"up.json\"]");
    ml_buf_free(&b);
    ml_upload_end(up, 0);

    /* a bad file: no rank, and the message names it as given */
    ml_upload *bad = ml_upload_begin(u, "bad.json", &e);
    ml_upload_write(bad, "hello", 5, &e);
    ml_upload_close(bad, &e);
    CHECK_EQ_I64(ml_ranks_add(rs, ml_upload_path(bad), "bad.json", NULL, &e), -1);
    char msg[ML_ERR_MAX];
    ml_upload_strip(e.msg, ml_upload_prefix(bad), msg, sizeof msg);
    CHECK(!strncmp(msg, "bad.json: byte 0: unknown format", 32));
    CHECK_EQ_I64((int64_t)ml_ranks_count(rs), 2);
    ml_upload_end(bad, 1);
    ml_uploads_free(u);
    ml_ranks_free(rs);
    unlink(in);
}

TEST(an_empty_server_has_no_rank)
{
    ml_err e = {{0}};
    ml_ranks *rs = ml_ranks_open(NULL, 0, 0, &e);
    CHECK(rs != NULL);
    if (!rs) return;
    CHECK_EQ_I64((int64_t)ml_ranks_count(rs), 0);
    ml_ranks_request(rs, 0); /* no slot 0: nothing happens */
    ml_slot_state st;
    CHECK(ml_ranks_get(rs, 0, &st) == NULL);
    ml_buf b = {0};
    ml_ranks_status_json(rs, &b);
    CHECK_EQ_STR(b.p, "{\"inputs\":[],\"skipped\":[],\"ranks\":[]}");
    ml_buf_free(&b);
    ml_ranks_free(rs);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/memlens-test-upload-XXXXXX");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 1; }
    setenv("TMPDIR", tmpdir, 1);
    RUN(names_that_are_paths_are_refused);
    RUN(chunks_arrive_whole_and_the_folder_goes);
    RUN(strip_removes_the_folder_from_messages);
    RUN(an_upload_becomes_a_loaded_rank);
    RUN(an_empty_server_has_no_rank);
    rmdir(tmpdir);
    return check_report();
}
