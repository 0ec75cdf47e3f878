/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared inside src/clock: the rdpmc path. */
#ifndef FPULAB_CLOCK_INTERNAL_H
#define FPULAB_CLOCK_INTERNAL_H

#include <stdint.h>

#include "fpulab/clock.h"

void fpl_pmu_open(struct fpl_clock *c);
void fpl_pmu_close(struct fpl_clock *c);
uint64_t fpl_pmu_read(const struct fpl_clock *c);

#endif
