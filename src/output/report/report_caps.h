/*
 * report_caps.h — what a rank's input can show, as the page reads it: the
 * "caps" object of each rank in the report's and the server's meta
 * (web/DATA.md "caps"), written from the importer's ml_caps (profile.h) and
 * the rank's accelerator kind (devkind.h).  The web UI decides its views from
 * these, never from the format's name.
 */
#ifndef ML_REPORT_CAPS_H
#define ML_REPORT_CAPS_H

#include "devkind.h"
#include "jsonw.h"
#include "profile.h"

/* Writes the key "caps" and its object into the rank object open in w. */
void ml_report_caps_json(jw *w, const ml_caps *c, ml_devkind kind);

#endif
