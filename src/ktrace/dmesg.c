// SPDX-License-Identifier: GPL-3.0-or-later
/* The kernel's own "x86/fpu:" boot lines: features, offsets, sizes, context size and format. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "fpulab/ktrace.h"

#define SYSLOG_ACTION_READ_ALL		3
#define SYSLOG_ACTION_SIZE_BUFFER	10

/* One line after "x86/fpu: ". 0 (read or not one of ours), -EINVAL (ours, but broken). */
static int dmesg_line(const char *p, struct fpl_kt_dmesg *d)
{
	unsigned long long v;
	int i, j, off, size, n = -1;
	long ctx;
	char fmt[16];

	if (!strncmp(p, "Supporting XSAVE feature ", 25)) {
		if (sscanf(p, "Supporting XSAVE feature %llx:%n", &v, &n) != 1 || n < 0 ||
		    !v || (v & (v - 1)))
			return -EINVAL;
		d->features |= v;
		d->nfeatures++;
		return 0;
	}
	if (!strncmp(p, "xstate_offset[", 14)) {
		if (sscanf(p, "xstate_offset[%d]: %d, xstate_sizes[%d]: %d%n", &i, &off, &j, &size,
			   &n) != 4 || n < 0 || i != j || i < 0 || i >= FPL_KT_DMESG_MAX ||
		    off < 0 || size < 0)
			return -EINVAL;
		d->offset[i] = off;
		d->size[i] = size;
		return 0;
	}
	if (!strncmp(p, "Enabled xstate features ", 24)) {
		if (sscanf(p, "Enabled xstate features %llx, context size is %ld bytes, using "
			   "'%15[a-z]' format%n", &v, &ctx, fmt, &n) != 3 || n < 0 || ctx <= 0)
			return -EINVAL;
		d->enabled = v;
		d->context_size = ctx;
		snprintf(d->format, sizeof(d->format), "%s", fmt);
		return 0;
	}
	return 0;
}

int fpl_kt_dmesg_parse(const char *text, size_t len, struct fpl_kt_dmesg *d,
		       struct fpl_diag *diag)
{
	unsigned long lineno = 0;
	size_t pos = 0;

	memset(d, 0, sizeof(*d));
	d->context_size = -1;
	for (int i = 0; i < FPL_KT_DMESG_MAX; i++)
		d->offset[i] = d->size[i] = -1;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = (nl ? (size_t)(nl - text) : len) - pos;
		char line[512];
		const char *p;

		lineno++;
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, text + pos, n);
		line[n] = 0;
		pos = nl ? (size_t)(nl - text) + 1 : len;
		p = strstr(line, "x86/fpu: ");
		if (!p)
			continue;
		d->lines++;
		if (dmesg_line(p + 9, d))
			return fpl_diag_set(diag, -EINVAL, "dmesg line %lu: an x86/fpu line that "
					    "does not parse: '%.100s'", lineno, p);
	}
	if (!d->lines)
		return fpl_diag_set(diag, -ENOENT, "no x86/fpu lines in the kernel log");
	return 0;
}

int fpl_kt_dmesg_read(char **text, size_t *len)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0), n;
	char *buf;

	if (size <= 0)
		size = 1 << 20;
	buf = malloc((size_t)size + 1);
	if (!buf)
		return -ENOMEM;
	n = klogctl(SYSLOG_ACTION_READ_ALL, buf, size);
	if (n < 0) {
		n = -errno;
		free(buf);
		return n;
	}
	buf[n] = 0;
	*text = buf;
	*len = (size_t)n;
	return 0;
}
