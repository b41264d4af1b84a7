/* report_static.h — static-graph data of a device for the report page (report_static.c). */
#ifndef ML_REPORT_STATIC_H
#define ML_REPORT_STATIC_H

#include <stdbool.h>
#include <stdint.h>

#include "jsonw.h"
#include "profile.h"
#include "report_enc.h"

/* Whether the profile is a static-graph export (Ascend static_op_mem). */
bool ml_report_is_static(const ml_profile *p);
/* Writes "static":{"graphs":[...]} for device `dev` into the device object open in w. */
void ml_report_static(const ml_profile *p, uint16_t dev, jw *w);

#endif
