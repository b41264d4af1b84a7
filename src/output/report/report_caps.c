/*
 * report_caps.c — a rank's "caps" object for the page (report_caps.h).
 */
#include "report_caps.h"

void ml_report_caps_json(ml_buf *m, const ml_caps *c, ml_devkind kind)
{
    const ml_devkind_words *w = ml_devkind_words_of(kind);
    ml_buf_puts(m, ",\"caps\":{\"device\":");
    ml_json_str(m, w->id);
    ml_buf_puts(m, ",\"device_word\":");
    ml_json_str(m, w->device);
    ml_buf_printf(m, ",\"insight_names\":%s,\"static_graph\":%s,\"allocator_state\":%s,\"memory_record\":%s,"
                     "\"memory_first\":%s}",
                  c->insight_names ? "true" : "false", c->static_graph ? "true" : "false",
                  c->allocator_state ? "true" : "false", c->memory_record ? "true" : "false",
                  c->memory_first ? "true" : "false");
}
