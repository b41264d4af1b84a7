/*
 * report_caps.c — a rank's "caps" object for the page (report_caps.h).
 */
#include "report_caps.h"

void ml_report_caps_json(jw *j, const ml_caps *c, ml_devkind kind)
{
    const ml_devkind_words *w = ml_devkind_words_of(kind);
    jw_key(j, "caps");
    jw_obj(j);
    jw_key(j, "device"), jw_text(j, w->id);
    jw_key(j, "device_word"), jw_text(j, w->device);
    jw_key(j, "insight_names"), jw_bool(j, c->insight_names);
    jw_key(j, "static_graph"), jw_bool(j, c->static_graph);
    jw_key(j, "allocator_state"), jw_bool(j, c->allocator_state);
    jw_key(j, "memory_record"), jw_bool(j, c->memory_record);
    jw_key(j, "memory_first"), jw_bool(j, c->memory_first);
    jw_end(j);
}
