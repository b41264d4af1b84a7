/* memtimeline_html.c — inputs that are HTML pages, which memlens cannot
 * read, told apart so that the error says what the file is and what to give
 * instead (load.c on every import; `memlens serve` before it starts, since
 * it imports later): PyTorch's memory timeline exported to .html
 * (export_memory_timeline("x.html"): a page around one base64 PNG picture,
 * no data), or any other page. */
#include "importer.h"

#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "source.h"

const char *ml_html_page_what(const unsigned char *head, size_t n)
{
    size_t i = 0;
    if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) i = 3;
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
    const char *h = (const char *)head + i;
    size_t len = n - i;
    if (len < 5 || (strncasecmp(h, "<html", 5) != 0 && (len < 9 || strncasecmp(h, "<!doctype", 9) != 0))) return NULL;
    if (memmem(h, len, "GPU Memory Timeline HTML", 24) || memmem(h, len, "data:image/png;base64,", 22))
        return "a PyTorch memory timeline exported as HTML (export_memory_timeline to .html: a PNG picture, "
               "no data); export it to .json.gz or .raw.json.gz instead, or give memlens the trace recorded "
               "with profile_memory=True";
    return "an HTML page, not profiler data; memlens reads Kineto/PyTorch traces, CUDA allocator snapshots, "
           "memory timelines (.json.gz, .raw.json.gz) and Ascend profiler output";
}

int ml_html_page_refuse(const char *path, ml_err *e)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0; /* a directory, a pipe: the loader's */
    ml_source *src;
    ml_err quiet = {{0}};
    if (ml_source_open(path, &src, &quiet) < 0) return 0;
    const unsigned char *head;
    size_t n = ml_source_peek(src, &head, 4096, &quiet);
    /* as load.c: a page is what no importer takes, not even Kineto's on a guess */
    const char *page = n && !ml_detect_format(path, head, n) && !ml_kineto_may_be(head, n) ? ml_html_page_what(head, n) : NULL;
    if (page) ml_fail(e, "%s: byte 0: %s", ml_source_name(src), page);
    ml_source_close(src);
    return page != NULL;
}
