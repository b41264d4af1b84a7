/* report_static.h — static-graph data of a device for the report page (report_static.c). */
#ifndef ML_REPORT_STATIC_H
#define ML_REPORT_STATIC_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "report_enc.h"

/* Whether the profile is a static-graph export (Ascend static_op_mem). */
bool ml_report_is_static(const ml_profile *p);
/* Appends ,"static":{"graphs":[...]} for device `dev` to the device object in m. */
void ml_report_static(const ml_profile *p, uint16_t dev, ml_buf *m);

#endif
