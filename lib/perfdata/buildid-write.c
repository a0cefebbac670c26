// SPDX-License-Identifier: MIT
/*
 * buildid-write.c - a recording's builds into perf's build-id cache, as
 * perf record 6.1 does at its end: every file, vdso and kernel of its
 * HEADER_BUILD_ID section, each through pebs_buildid_cache__add
 * (lib/symbols/buildid-cache.c, the cache's layout).
 */
#include <errno.h>
#include <string.h>

#include "pebsshim/perfdata.h"
#include "pebsshim/symbols.h"
#include "core/internal.h"
#include "symbols/dso.h"

int pebs_buildid_cache__add_perfdata(const char *path)
{
	const unsigned char *p, *end;
	struct buildid_entry e;
	struct pebs_perfdata *pd;
	const void *data;
	size_t size;
	int nr = 0, err;

	if (!path)
		return core_err(-EINVAL, "build-id cache: no recording");
	err = pebs_perfdata__open(path, &pd);
	if (err)
		return err;
	if (pebs_perfdata__feat(pd, PEBS_FEAT_BUILD_ID, &data, &size)) {
		pebs_perfdata__close(pd);
		core_err_clear();
		return 0;	/* no build id table: nothing to cache */
	}
	p = data;
	end = p + size;
	while ((err = buildid_section__next(&p, end, &e)) > 0) {
		if (e.name[0] != '/' && strcmp(e.name, "[vdso]") &&
		    strcmp(e.name, KERNEL_NAME))
			continue;
		if (!pebs_buildid_cache__add(e.name, e.bid, e.len))
			nr++;
		else
			core_err_clear();	/* gone or rebuilt: not cached */
	}
	pebs_perfdata__close(pd);
	return err < 0 ? err : nr;
}
