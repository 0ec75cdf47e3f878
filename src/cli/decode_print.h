/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fpulab decode's emitters: the table for people, JSON for machines. */
#ifndef FPULAB_CLI_DECODE_PRINT_H
#define FPULAB_CLI_DECODE_PRINT_H

#include <stdio.h>

#include "fpulab/cpu.h"
#include "fpulab/image.h"

/* Both return an exit code: 0, or FPL_EXIT_FAIL when the output could not be made. */
int fpl_decode_print_table(FILE *f, const char *path, const struct fpl_cpu *cpu,
		       const struct fpl_image_cfg *cfg, const struct fpl_image *img);
int fpl_decode_print_json(FILE *f, const char *path, const struct fpl_cpu *cpu,
		      const struct fpl_image_cfg *cfg, const struct fpl_image *img);
/* The first FAULT or KERNEL finding (the image must be rejected). */
const struct fpl_image_finding *fpl_decode_first_rejection(const struct fpl_image *img);

#endif
