/* fuzz_csv.c — libFuzzer target for the CSV reader and decimal scaling
 * (readers/csv.h), and the Ascend CSV importer on top of it: any bytes must
 * give records (a profile) or one error, never a crash. */
#include <stddef.h>
#include <stdint.h>

#include "csv.h"
#include "importer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ml_source *src = ml_source_from_memory("fuzz.csv", data, size);
    ml_err e;
    ml_csv *c;
    if (ml_csv_open(src, &c, &e) == 0) {
        size_t ncols = ml_csv_ncols(c);
        while (ml_csv_next(c, &e) > 0) {
            for (size_t i = 0; i < ncols; i++) {
                int64_t v;
                bool blank;
                ml_csv_scaled(c, (int)i, i % 3 == 0 ? ML_US_TO_NS : i % 3 == 1 ? ML_MIB : ML_KIB,
                              &v, &blank, &e);
            }
        }
        ml_csv_close(c);
    }
    ml_source_close(src);

    /* The Ascend reader picks its parser by file name when Ascend writes that
     * name, else by the header: the first byte chooses which. */
    static const char *names[] = {"fuzz.csv", "memory_record.csv", "operator_memory.csv",
                                  "npu_module_mem_1.csv", "static_op_mem.csv"};
    const char *name = names[size ? data[0] % 5 : 0];
    src = ml_source_from_memory(name, data, size);
    ml_profile *p = ml_profile_new(name, "ascend-text");
    ml_ascend_text_import(src, p, NULL, &e);
    ml_profile_free(p);
    ml_source_close(src);
    return 0;
}
