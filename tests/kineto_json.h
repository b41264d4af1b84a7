/*
 * kineto_json.h — test fixture: a Kineto trace written in a string, imported
 * with its time side (p->trace).  import_trace(json) returns the profile, or
 * NULL after printing the error, which stays in `err` for the test to read.
 */
#ifndef ML_TEST_KINETO_JSON_H
#define ML_TEST_KINETO_JSON_H

#include <stdio.h>
#include <string.h>

#include "importer.h"

static ml_err err;

static ml_profile *import_trace(const char *json)
{
    ml_source *src = ml_source_from_memory("t.json", json, strlen(json));
    ml_profile *p = ml_profile_new("t.json", "kineto");
    p->trace = ml_trace_new();
    err.msg[0] = 0;
    int rc = ml_kineto_import(src, p, NULL, &err);
    ml_source_close(src);
    if (rc < 0) {
        printf("import: %s\n", err.msg);
        ml_profile_free(p);
        return NULL;
    }
    return p;
}

#endif
