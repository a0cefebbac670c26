/* SPDX-License-Identifier: MIT */
/*
 * objects-proto.h - what libpebsshim-objects.so (tools/objects/objects.c)
 * writes to a recorder with objects (lib/record/record-objects.c): one
 * record per tracked allocation or release, of at most PSO_REC_MAX
 * bytes, each in a slot of its own of the ring in shared memory
 * (lib/record/objects-ring.h) whose fd is in $PEBS_SHIM_OBJECTS_FD, so
 * records of several threads and processes never interleave.
 */
#ifndef PEBS_SHIM_OBJECTS_PROTO_H
#define PEBS_SHIM_OBJECTS_PROTO_H

#include <stdint.h>

#define PSO_ENV_FD	"PEBS_SHIM_OBJECTS_FD"
/* the recorder's pid: a process that closed the fd opens the ring as
   /proc/PID/fd/FD (the recorder keeps it open) */
#define PSO_ENV_RECORDER	"PEBS_SHIM_OBJECTS_RECORDER"
/* "all": every allocation; else the sampling interval in bytes */
#define PSO_ENV_MODE	"PEBS_SHIM_OBJECTS"
/* allocations of at least this many bytes are always tracked */
#define PSO_THRESHOLD	(64u << 10)
/* jemalloc's mean sampling interval (lg_prof_sample 19) */
#define PSO_INTERVAL	(512u << 10)
#define PSO_MAX_IPS	32

/*
 * PSO_STACK: the sending thread's stack [addr, addr + len), sent when
 * the thread starts (the main thread's when the interposer starts, a
 * forked child's first thread's in the child); its exit is a PSO_FREE
 * of that range. PSO_TLS: the sending thread's static TLS block of one
 * module, [addr, addr + len), with ips[0] an address in the module's
 * code (nr_ips 1) that names it.
 */
enum pso_kind { PSO_ALLOC = 1, PSO_FREE = 2, PSO_STACK = 3, PSO_TLS = 4 };

struct pso_rec {
	uint16_t size;		/* of the whole record */
	uint8_t kind;		/* enum pso_kind */
	uint8_t nr_ips;		/* call stack: the caller first */
	uint32_t pid, tid;
	/* 0: pid and tid are the recorder's PID namespace's; else they are
	   the namespace's whose /proc/PID/ns/pid has this inode number (the
	   recorder translates them to its own) */
	uint32_t pidns;
	uint64_t time;		/* CLOCK_MONOTONIC, ns */
	uint64_t addr, len;	/* the range allocated or released */
	uint64_t weight;	/* bytes it stands for (len / probability) */
	uint64_t ips[];
};

#define PSO_REC_MAX	(sizeof(struct pso_rec) + PSO_MAX_IPS * 8)

#endif /* PEBS_SHIM_OBJECTS_PROTO_H */
