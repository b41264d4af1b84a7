/*
 * csvout.h — writing CSV fields (RFC 4180 quoting).
 */
#ifndef ML_CSVOUT_H
#define ML_CSVOUT_H

#include <stdio.h>

/* s as one CSV field: as is, or in double quotes (inner quotes doubled) when
 * it holds a comma, a quote, CR or LF. */
void ml_csv_field(FILE *f, const char *s);

#endif
