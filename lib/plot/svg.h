/* SPDX-License-Identifier: MIT */
/* svg.h - the plots' private view of the SVG writer (lib/plot/svg.c). */
#ifndef PEBSSHIM_SVG_H
#define PEBSSHIM_SVG_H

#include "core/internal.h"
#include "pebsshim/plot.h"

/* the public declaration, with its format checked in the library */
void pebs_svg__printf(struct pebs_svg *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* PEBSSHIM_SVG_H */
