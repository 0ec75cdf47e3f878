/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Charts as gnuplot scripts: XSAVE matrix, xor by size, context switches, compare box plots. */
#ifndef FPULAB_PLOT_H
#define FPULAB_PLOT_H

#include <stdio.h>

#include "fpulab/base.h"
#include "fpulab/compare.h"
#include "fpulab/result.h"

enum fpl_plot_term {
	FPL_PLOT_SVG,
	FPL_PLOT_PNG,
};

/* Charts of one results document. */
#define FPL_PLOT_XSAVE	1u	/* cycles by instruction and RFBM, init and live panels */
#define FPL_PLOT_XOR	2u	/* MB/s by size, a line per routine */
#define FPL_PLOT_CTXSW	4u	/* distribution (ECDF) of ns per switch, a line per state */
#define FPL_PLOT_ALL	7u

/* The charts r has data for (a mask of FPL_PLOT_*). */
unsigned fpl_plot_available(const struct fpl_result *r);
/* "xsave", "xor", "ctxsw", "all" to a mask; 0 when unknown. */
unsigned fpl_plot_by_name(const char *name);

/* The terminal from a file name's extension (.svg, .png); -1 for anything else. */
int fpl_plot_term_of(const char *path);

/*
 * Write to f a gnuplot script that draws the charts of mask that r has
 * data for, stacked, into out_path (data inline, nothing else read).
 * 0; -EINVAL with diag when none of them has data; -EIO.
 */
int fpl_plot_script(const struct fpl_result *r, unsigned mask, enum fpl_plot_term term,
		    const char *out_path, FILE *f, struct fpl_diag *diag);

/*
 * The same for a comparison: one panel per metric (at most max_panels, the
 * first ones), a box plot of each case's raw values. Cases are named by
 * labels (NULL, or one per case, NULL entries allowed) or else by their
 * file or directory names, on the x axis, the boxes and the panel titles
 * ("cycles (xsave; insn xsavec, mask 0x7): old vs new"). Up to FPL_PLOT_BOX_RAW
 * values a case go in as they are; more are binned first (order statistics
 * at FPL_PLOT_BOX_QUANT steps and the outliers one per bin), so the script
 * stays small whatever the samples. 0, -EINVAL, -EIO, -ENOMEM.
 */
#define FPL_PLOT_BOX_RAW	20000
#define FPL_PLOT_BOX_QUANT	2000
int fpl_plot_compare_script(const struct fpl_cmp *c, const char *const *labels,
			    size_t max_panels, enum fpl_plot_term term, const char *out_path,
			    FILE *f, struct fpl_diag *diag);

#endif
