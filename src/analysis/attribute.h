/*
 * attribute.h — who allocated it: operators and Python stacks for each allocation.
 *
 * An allocation belongs to the ops on its thread whose [ts, ts+dur) contains
 * its time.  Of those, the innermost cpu_op (usually aten::empty*) goes to
 * allocs.op and the outermost cpu_op — what users recognise, aten::linear or
 * "autograd::engine::evaluate_function: AddmmBackward0" — to allocs.op_top.
 * The enclosing python_function ops (traces recorded with_stack) become the
 * allocation's stack when it has none of its own.
 */
#ifndef ML_ATTRIBUTE_H
#define ML_ATTRIBUTE_H

#include "profile.h"

void ml_attribute(ml_profile *p);

/* Splits a Kineto python frame "path/file.py(123): func" into a frame id
 * (name "func", file "path/file.py", line 123); other text is kept whole. */
uint32_t ml_python_frame(ml_profile *p, ml_str text);

#endif
