// SPDX-License-Identifier: GPL-3.0-or-later
/* fpulab kvm: KVM_RUN round trips of a throwaway VM by guest state, with its own table (src/report). */
#include "cli.h"

FPL_BENCH_CMD(kvm, "KVM_RUN round trips: the guest's FPU state by state, A/B, kernel trace");
