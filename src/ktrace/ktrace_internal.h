/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared inside src/ktrace (and with its tests): one whole write to a tracefs file. */
#ifndef FPULAB_KTRACE_INTERNAL_H
#define FPULAB_KTRACE_INTERNAL_H

#include <stddef.h>

/*
 * One write(2) of the len bytes at buf to fd, never continued: a tracefs
 * write is one setting or one marker event, and a rest written after would
 * be another. 0 when all len bytes went; -errno when it failed; -EIO when
 * it wrote fewer (a short write sets no errno).
 */
int fpl_kt_write_whole(int fd, const void *buf, size_t len);

#endif
