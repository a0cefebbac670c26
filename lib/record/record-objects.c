// SPDX-License-Identifier: MIT
/*
 * record-objects.c - a recording's data objects (--objects): the command runs with
 * libpebsshim-objects.so preloaded (tools/objects/objects.c), which
 * sends its tracked allocations and releases on a socket (AF_UNIX,
 * SOCK_SEQPACKET: one message a record; a process outliving record gets
 * no SIGPIPE); while it waits for the rings, record reads what is
 * there as it comes (at most once a millisecond: pebs_recorder__poll),
 * and at the end of every round and of the recording, and writes each
 * as a sample of one of two extra events of the perf.data file,
 * software dummies named "pebs-shim:alloc" and "pebs-shim:free"
 * (HEADER_EVENT_DESC): perf report and perf script read them as
 * samples of named events, without a warning, and a killed recording
 * keeps every object written before the kill.
 *
 * An alloc sample: IP the allocation's caller, TID, TIME (the
 * interposer's CLOCK_MONOTONIC, the clock the events then use:
 * use_clockid, perf's -k CLOCK_MONOTONIC), ADDR the object's address,
 * PERIOD the bytes it stands for (its size, or size / probability when
 * sampled), CALLCHAIN its stack (user context), WEIGHT its size. A free
 * sample: ADDR, PERIOD the length of an unmapped range (1 for free()).
 *
 * The socket's send buffer is 4 MiB where record may force it (root),
 * else the system's maximum; the interposer's send blocks only when it
 * is full, until record reads it (within a millisecond unless record
 * itself is starved of CPU).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "record/record-int.h"
#include "record/objects-proto.h"
#include "core/internal.h"

#define SOCK_BYTES	(4 << 20)

/* the sample ids of the events: far above the kernel's */
#define ID_ALLOC	PEBS_OBJECTS_ALLOC_ID
#define ID_FREE		PEBS_OBJECTS_FREE_ID
#define ID_STACK	PEBS_OBJECTS_STACK_ID
#define ID_TLS		PEBS_OBJECTS_TLS_ID

#ifndef PEBS_OBJECTS_LIB
#define PEBS_OBJECTS_LIB "/usr/local/lib/pebs-shim/libpebsshim-objects.so"
#endif

struct rec_objects {
	int rfd;
	int wfd;
	bool gone;		/* every sender closed its end */
	char *buf;		/* one message */
	char path[PATH_MAX];
};

/* $PEBS_SHIM_OBJECTS_LIB, beside the pebs-shim binary (a build tree),
   else where make install put it */
static int find_lib(char *path, size_t len)
{
	const char *env = getenv("PEBS_SHIM_OBJECTS_LIB");
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(path, len, "%s", env);
		return access(path, R_OK) ? -errno : 0;
	}
	n = readlink("/proc/self/exe", path, len - 1);
	if (n > 0) {
		path[n] = 0;
		slash = strrchr(path, '/');
		if (slash && (size_t)(slash - path) + 25 < len) {
			strcpy(slash + 1, "libpebsshim-objects.so");
			if (!access(path, R_OK))
				return 0;
		}
	}
	snprintf(path, len, "%s", PEBS_OBJECTS_LIB);
	return access(path, R_OK) ? -errno : 0;
}

int rec_objects_prepare(struct pebs_recorder *r)
{
	struct rec_objects *ob;
	const char *pre = getenv("LD_PRELOAD");
	char num[32], *val;
	int fds[2], err;

	if (!r->o.objects)
		return 0;
	ob = calloc(1, sizeof(*ob));
	if (!ob || !(ob->buf = malloc(PSO_REC_MAX + 1))) {
		free(ob);
		return core_err(-ENOMEM, "out of memory");
	}
	ob->rfd = ob->wfd = -1;
	r->objs = ob;
	err = find_lib(ob->path, sizeof(ob->path));
	if (err)
		return core_err(err, "--objects: cannot read %s: %s: install pebs-shim fully or set PEBS_SHIM_OBJECTS_LIB to libpebsshim-objects.so",
				ob->path, strerror(-err));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds))
		return core_err(-errno, "--objects: cannot create a socket pair: %s: raise the open file limit",
				strerror(errno));
	ob->rfd = fds[0];
	ob->wfd = fds[1];
	/* a larger send buffer: forced as root, else up to wmem_max */
	if (setsockopt(ob->wfd, SOL_SOCKET, SO_SNDBUFFORCE, &(int){ SOCK_BYTES },
		       sizeof(int)))
		setsockopt(ob->wfd, SOL_SOCKET, SO_SNDBUF, &(int){ SOCK_BYTES },
			   sizeof(int));
	/* the command and what it execs keep the write end */
	fcntl(ob->wfd, F_SETFD, 0);
	fcntl(ob->rfd, F_SETFL, O_NONBLOCK);
	snprintf(num, sizeof(num), "%d", ob->wfd);
	if (pre && *pre && asprintf(&val, "%s:%s", ob->path, pre) < 0)
		val = NULL;
	else if (!(pre && *pre))
		val = strdup(ob->path);
	if (!val)
		return core_err(-ENOMEM, "out of memory");
	err = setenv("LD_PRELOAD", val, 1) || setenv(PSO_ENV_FD, num, 1) ||
	      setenv(PSO_ENV_MODE, r->o.objects_all ? "all" : "sampled", 1);
	free(val);
	if (err)
		return core_err(-ENOMEM, "out of memory");
	return 0;
}

void rec_objects_started(struct pebs_recorder *r)
{
	if (r->objs && r->objs->wfd >= 0) {
		close(r->objs->wfd);
		r->objs->wfd = -1;
	}
}

size_t rec_objects_sample(const void *msg, size_t len, uint64_t *buf,
			  size_t size)
{
	const struct pso_rec *r = msg;
	struct perf_event_header *h = (struct perf_event_header *)buf;
	uint64_t *p = buf + 1;
	static const uint64_t ids[] = {
		[PSO_ALLOC] = ID_ALLOC, [PSO_FREE] = ID_FREE,
		[PSO_STACK] = ID_STACK, [PSO_TLS] = ID_TLS,
	};
	bool alloc;

	if (len < sizeof(*r) || r->size != len ||
	    r->kind < PSO_ALLOC || r->kind > PSO_TLS ||
	    r->nr_ips > PSO_MAX_IPS || r->size != sizeof(*r) + r->nr_ips * 8u ||
	    size < REC_OBJ_SAMPLE_MAX)
		return 0;
	alloc = r->kind == PSO_ALLOC;
	*p++ = ids[r->kind];
	*p++ = r->nr_ips ? r->ips[0] : 0;
	*p++ = (uint64_t)r->tid << 32 | r->pid;
	*p++ = r->time;
	*p++ = r->addr;
	if (alloc) {
		*p++ = r->weight;
		*p++ = r->nr_ips + 1u;
		*p++ = PERF_CONTEXT_USER;
		memcpy(p, r->ips, r->nr_ips * 8u);
		p += r->nr_ips;
		*p++ = r->len;
	} else {
		*p++ = r->len > 1 ? r->len : 1;
	}
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)((char *)p - (char *)buf);
	return h->size;
}

int rec_objects_drain(struct pebs_recorder *r)
{
	struct rec_objects *ob = r->objs;
	uint64_t buf[REC_OBJ_SAMPLE_MAX / 8];
	ssize_t n;
	int err;

	if (!ob || ob->rfd < 0)
		return 0;
	for (;;) {
		n = recv(ob->rfd, ob->buf, PSO_REC_MAX + 1, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (!n)
			ob->gone = true;	/* every sender gone */
		if (n <= 0)
			return 0;	/* or empty (EAGAIN) */
		if (!rec_objects_sample(ob->buf, (size_t)n, buf, sizeof(buf))) {
			r->st.obj_bad++;	/* not one of the interposer's */
			continue;
		}
		switch (((const struct pso_rec *)ob->buf)->kind) {
		case PSO_ALLOC:
			r->st.obj_allocs++;
			break;
		case PSO_FREE:
			r->st.obj_frees++;
			break;
		default:
			break;	/* a thread's stack or TLS block */
		}
		err = rec_out_raw(r->out, (const struct perf_event_header *)buf);
		if (err)
			return err;
	}
}

int rec_objects_fd(const struct pebs_recorder *r)
{
	const struct rec_objects *ob = r->objs;

	return ob && ob->wfd < 0 && !ob->gone ? ob->rfd : -1;
}

void rec_objects_free(struct pebs_recorder *r)
{
	struct rec_objects *ob = r->objs;

	if (!ob)
		return;
	if (ob->rfd >= 0)
		close(ob->rfd);
	if (ob->wfd >= 0)
		close(ob->wfd);
	free(ob->buf);
	free(ob);
	r->objs = NULL;
}

int rec_objects_attrs(struct pebs_perfdata_writer *w,
		      const struct perf_event_attr *like)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY, .sample_period = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			       PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_WEIGHT,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	static const struct {
		uint64_t id;
		const char *name;
	} rest[] = {
		{ ID_FREE, PEBS_OBJECTS_FREE_EVENT },
		{ ID_STACK, PEBS_OBJECTS_STACK_EVENT },
		{ ID_TLS, PEBS_OBJECTS_TLS_EVENT },
	};
	uint64_t id = ID_ALLOC;
	int err;

	a.sample_id_all = like->sample_id_all;
	a.use_clockid = like->use_clockid;
	a.clockid = like->clockid;
	err = pebs_perfdata_writer__add_attr(w, &a, &id, 1,
					     PEBS_OBJECTS_ALLOC_EVENT);
	/* the others: IP, TID, TIME, ADDR and PERIOD */
	a.sample_type &= ~(uint64_t)(PERF_SAMPLE_CALLCHAIN |
				     PERF_SAMPLE_WEIGHT);
	for (size_t i = 0; !err && i < sizeof(rest) / sizeof(*rest); i++) {
		id = rest[i].id;
		err = pebs_perfdata_writer__add_attr(w, &a, &id, 1,
						     rest[i].name);
	}
	return err;
}
