/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside src/report: what the gnuplot script writers share. */
#ifndef FPULAB_PLOT_INTERNAL_H
#define FPULAB_PLOT_INTERNAL_H

#include <stdio.h>

#include "plot.h"

/* A gnuplot string in single quotes (a quote doubled, newlines dropped). */
void fpl_plot_quote(FILE *f, const char *s);
/* Terminal, output file, common settings; a multiplot of panels rows when more than one. */
void fpl_plot_head(FILE *f, enum fpl_plot_term term, const char *out, int panels);
void fpl_plot_tail(FILE *f, int panels);

#endif
