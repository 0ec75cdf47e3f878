/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The will-it-scale program names fpulab answers to: one row each (name, test case, threads, what). */
FPL_WIS_CMD(context_switch1_processes, FPL_WIS_CONTEXT_SWITCH1, 0, "context switches, processes")
FPL_WIS_CMD(context_switch1_threads, FPL_WIS_CONTEXT_SWITCH1, 1, "context switches, threads")
FPL_WIS_CMD(signal1_processes, FPL_WIS_SIGNAL1, 0, "signals, processes")
FPL_WIS_CMD(signal1_threads, FPL_WIS_SIGNAL1, 1, "signals, threads")
