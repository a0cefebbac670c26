/* SPDX-License-Identifier: MIT */
/* cmds.h - the pebs-shim subcommands; each lives in tools/cmd-<name>.c. */
#ifndef PEBS_SHIM_CMDS_H
#define PEBS_SHIM_CMDS_H

/*
 * Each subcommand gets argv with argv[0] == its own name and returns the
 * process exit status: 0 success, 1 runtime failure, 2 usage error.
 * Errors are one line on stderr: "pebs-shim <cmd>: <cause>: <what to do>".
 */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_observe(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_c2c(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_mem(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_test(int argc, char **argv);

/*
 * tools/mem-record.c: mem_record - `mem [opts] record ...` (@argv[0]
 * "mem", @rec the index of "record"); c2c_record - `c2c record ...`.
 */
int mem_record(int argc, char **argv, int rec);
int c2c_record(int argc, char **argv);

#endif /* PEBS_SHIM_CMDS_H */
