/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The 64 TILECFG variants of tests/data/amx/tilecfg-truth.txt: the bytes and what the CPU did. */
#ifndef FPL_TESTS_TILECFG_TRUTH_H
#define FPL_TESTS_TILECFG_TRUTH_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILECFG_TRUTH "tests/data/amx/tilecfg-truth.txt"
#define TILECFG_TRUTH_N 64

struct tilecfg_truth {
	unsigned char cfg[64];
	bool gp;		/* LDTILECFG raised #GP */
	bool loaded;		/* XRSTOR made it TILECFG (XINUSE bit 17 1); else TILECFG went to init */
	char name[64];
};

/* Read the fixture into v (TILECFG_TRUTH_N entries); the count read, or -1 when unreadable. */
static inline int tilecfg_truth_read(struct tilecfg_truth *v)
{
	FILE *f = fopen(TILECFG_TRUTH, "r");
	char line[512], hex[129], ld[4];
	int n = 0, x17, off;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (n == TILECFG_TRUTH_N ||
		    sscanf(line, "%128s %3s %d %n", hex, ld, &x17, &off) != 3 || strlen(hex) != 128) {
			fclose(f);
			return -1;
		}
		for (unsigned i = 0; i < 64; i++) {
			unsigned b;

			if (sscanf(hex + 2 * i, "%2x", &b) != 1) {
				fclose(f);
				return -1;
			}
			v[n].cfg[i] = (unsigned char)b;
		}
		v[n].gp = !strcmp(ld, "gp");
		v[n].loaded = x17 == 1;
		snprintf(v[n].name, sizeof(v[n].name), "%.*s", (int)strcspn(line + off, "\n"),
			 line + off);
		n++;
	}
	fclose(f);
	return n;
}

#endif
