# pebs-shim top-level Makefile.
#
#   make            library, tool, tests, workloads, VM binaries, and the
#                   module when kernel headers are installed
#   make kmod       the module for the running kernel
#                   (/lib/modules/$(uname -r)/build), else the newest
#                   /usr/src/linux-headers-*-amd64 (or KDIR=...), with W=1;
#                   a W=1 warning is an error in CI (KMOD_WERROR=y)
#   make check      installs missing packages (as root), builds everything,
#                   then runs every suite through prove: unit, live, CLI,
#                   fuzz, the same unit/live tests under ASan+UBSan, and
#                   the module tests inside a qemu guest
#   make check-layers  lib/'s folders keep the direction of lib/README.md
#                   (scripts/check-layers.py on the sources and objects)
#   make check-unit | check-live | check-cli | check-fuzz | check-vm |
#        check-san  one suite
#   make check-vm-stress  the heavy module runs in qemu (SMP readers,
#                   CPU hotplug, 200 load/unload cycles under load: ~15 min)
#   make check-debug  the VM suite in a KASAN + lockdep debug kernel built
#                   from linux-source-6.1 (the first build takes long)
#   make bench      the benchmarks (figures, not pass/fail) into
#                   bench/results/ (BENCH_QUICK=1: a short smoke run);
#                   make bench-build builds their programs only
#   make bench-vm   the module's cost per context switch vs. perf's (qemu)
#   make deps       install the Debian packages (root) or print the line
#   make install    tool, library, pkg-config file, headers, man pages
#                   (PREFIX, DESTDIR, LIBDIR...); make uninstall undoes it
#   make abi-dump   abi/libpebsshim.abi, the ABI abi.t compares with
#   make man        the generated man pages (build/man: a page per object
#                   family and per command, a link per function)
#   make dkms-install | dkms-uninstall  the module under DKMS, its udev
#                   rule (root:pebs 0440) and modprobe options
#   make deb        the Debian packages (build/deb), lintian-clean
#   make check-packages  make deb, then install them in a fresh Debian
#                   root (mmdebstrap) and use them there, then boot that
#                   root in qemu for DKMS, modprobe and udev (heavy, not
#                   in make check)
#
# Build output goes to $(B) (build/, or build-san/ with SAN=1).

SAN ?=
ifeq ($(SAN),1)
B ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=undefined
else
B ?= build
SANFLAGS :=
endif

CC ?= gcc
CLANG ?= clang
PREFIX ?= /usr/local
OPT ?= -O2
# the module is built with W=1; KMOD_WERROR=y (the default in CI) makes a
# warning an error
KMOD_WERROR ?= $(if $(CI),y,n)
# the newest Debian headers: the kernel the qemu guest boots (vm.t and
# scripts/vm-kernel.sh use them whatever the host runs)
VM_KDIR := $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
KDIR ?= $(or $(wildcard /lib/modules/$(shell uname -r)/build),$(VM_KDIR))

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2
CPPFLAGS += -Iinclude -Ilib/include -Ilib -D_GNU_SOURCE \
	-DPEBS_SHIM_VERSION='"$(VERSION)"'
CFLAGS ?= $(OPT) -g
CFLAGS += -std=gnu11 $(WARN) -fPIC -fvisibility=hidden $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
LDLIBS := -lpfm -ldw -lelf -lz -lzstd -lpthread -lm -liberty
# a static link also needs what libdw.a's libdwfl decompresses with (and
# glibc warns there of libdwfl's dlopen of libdebuginfod: never reached,
# lib/symbols/unwind.c asks for no debug files)
STATIC_LDLIBS := $(LDLIBS) -lbz2 -llzma

LIB_SRCS := $(sort $(wildcard lib/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
LIB_A := $(B)/libpebsshim.a
# the release (pebs-shim --version, the .pc file, debian/changelog) and
# the shared library's names: real file, SONAME, link-time name
VERSION := 0.1.0
SONAME := libpebsshim.so.0
LIB_SO := $(B)/libpebsshim.so.$(VERSION)
LIB_LINKS := $(B)/$(SONAME) $(B)/libpebsshim.so
TOOL_SRCS := $(sort $(wildcard tools/*.c))
TOOL_OBJS := $(TOOL_SRCS:%.c=$(B)/%.o)
TOOL := $(B)/pebs-shim
# the allocation interposer `record --objects` preloads (not part of
# libpebsshim: a small .so of its own, installed to $(LIBDIR)/pebs-shim)
OBJECTS_SO := $(B)/libpebsshim-objects.so

# tests/helpers.c: the feature probes (helpers.h) of every C test and of
# tests/probe, which the shell tests run through tap.sh's need
T_HELPERS := $(B)/tests/helpers.o
PROBE := $(B)/tests/probe
UNIT := $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(wildcard tests/unit/*.c))
LIVE := $(patsubst tests/live/%.c,$(B)/tests/live/%,$(wildcard tests/live/*.c))
WORKLOADS := $(patsubst tests/workloads/%.c,$(B)/workloads/%,\
	     $(wildcard tests/workloads/*.c))
EXAMPLES := $(patsubst examples/%.c,$(B)/examples/%,$(wildcard examples/*.c))
# static binaries for the qemu guest (busybox userland, no shared libs)
VMBINS := $(patsubst tests/vm/%.c,$(B)/vm/%,$(wildcard tests/vm/*.c)) \
	  $(B)/vm/pebs-shim
FUZZ := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(wildcard tests/fuzz/*.c))
BENCHES := $(patsubst bench/%.c,$(B)/bench/%,$(wildcard bench/*.c)) \
	   $(B)/bench/libforward.so

DEPS := build-essential libpfm4-dev dkms libcmocka-dev linux-libc-dev linux-perf \
	clang libclang-rt-14-dev qemu-system-x86 qemu-utils \
	linux-headers-amd64 busybox-static cpio xz-utils patch kmod \
	linux-source-6.1 libelf-dev zlib1g-dev libzstd-dev libiberty-dev time \
	abigail-tools pkg-config libdw-dev libbz2-dev liblzma-dev libc6-dbg libxml2-utils librsvg2-bin \
	chromium chromium-driver jq golang-go heaptrack protobuf-compiler
# what `make demo` needs: build, record, report, perf report
DEMO_DEPS := build-essential libpfm4-dev linux-libc-dev linux-perf \
	libelf-dev zlib1g-dev libzstd-dev libiberty-dev libdw-dev

.PHONY: all lib tool tests kmod vmbins fuzz check check-unit check-live \
	check-layers check-cli check-fuzz check-vm check-vm-stress check-debug \
	check-san check-patch bench bench-build bench-vm deps install uninstall clean

all: lib tool tests $(WORKLOADS) $(EXAMPLES) $(BENCHES) vmbins man \
	$(if $(KDIR),kmod)

lib: $(LIB_A) $(LIB_SO) $(LIB_LINKS)
tool: $(TOOL) $(OBJECTS_SO)
tests: $(UNIT) $(LIVE) $(WORKLOADS) $(PROBE)
vmbins: $(VMBINS)
fuzz: $(FUZZ)

$(B)/%.o: %.c $(wildcard include/*.h lib/*/*.h lib/include/*.h \
		 lib/include/pebsshim/*.h tools/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIB_SO): $(LIB_OBJS) lib/libpebsshim.map
	$(CC) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script=lib/libpebsshim.map $(LDFLAGS) \
		-o $@ $(LIB_OBJS) $(LDLIBS)
$(B)/$(SONAME): $(LIB_SO)
	ln -sf $(notdir $<) $@
$(B)/libpebsshim.so: $(B)/$(SONAME)
	ln -sf $(notdir $<) $@

$(TOOL): $(TOOL_OBJS) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $(TOOL_OBJS) $(LIB_A) $(LDLIBS)

# frame pointers: its stack walk starts from the hooks' own frames
$(OBJECTS_SO): $(wildcard tools/objects/*.c tools/objects/*.h) \
	       lib/record/objects-proto.h lib/record/objects-ring.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(OPT) -g -fPIC -shared -Ilib \
		-fno-omit-frame-pointer -fvisibility=hidden -D_GNU_SOURCE \
		$(LDFLAGS) -o $@ $(filter %.c,$^) -ldl -lm -lpthread
# where an installed pebs-shim finds it (rebuilt when LIBDIR changes)
OBJECTS_LIB_PATH = $(LIBDIR)/pebs-shim/libpebsshim-objects.so
$(B)/lib/record/record-objects.o: CPPFLAGS += \
	-DPEBS_OBJECTS_LIB='"$(OBJECTS_LIB_PATH)"'
$(B)/lib/record/record-objects.o: lib/record/objects-proto.h \
	lib/record/objects-ring.h \
	$(B)/objects-lib-path
$(B)/lib/record/record-objects-ns.o: lib/record/objects-proto.h
$(B)/objects-lib-path: FORCE
	@mkdir -p $(@D)
	@echo '$(OBJECTS_LIB_PATH)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

$(B)/tests/unit/%: $(B)/tests/unit/%.o $(T_HELPERS) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $< $(T_HELPERS) $(LIB_A) -lcmocka $(LDLIBS)
$(B)/tests/live/%: $(B)/tests/live/%.o $(T_HELPERS) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $< $(T_HELPERS) $(LIB_A) -lcmocka $(LDLIBS)
$(PROBE): $(B)/tests/probe.o $(T_HELPERS) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(B)/tests/%.o: tests/%.c $(wildcard include/*.h lib/*/*.h lib/include/*.h \
		 lib/include/pebsshim/*.h tests/*.h tests/vm/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -c -o $@ $<
# the interposer's set, built into its unit test (an intermediate, as
# the other tests' objects: none is left beside the tests, whose names
# prove takes by glob)
$(B)/tests/unit/test-objects-set.o: tools/objects/objects-set.c \
	tools/objects/interpose.h
.INTERMEDIATE: $(B)/tests/unit/test-objects-set.o

# Workloads keep their symbols and frames so that reports can name them.
$(B)/workloads/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) -O1 -g -fno-omit-frame-pointer -fno-inline \
		-D_GNU_SOURCE -o $@ $< -lpthread -lm

$(B)/examples/%: examples/%.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS)

# an interposer that only forwards (the objects bench's floor)
$(B)/bench/libforward.so: bench/preload/forward.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(OPT) -g -fPIC -shared -D_GNU_SOURCE \
		$(LDFLAGS) -o $@ $< -ldl

$(B)/bench/%: bench/%.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) \
		$(LDLIBS)

# Static guest binaries (the guest has no shared libs), linked from the
# library's own objects: no sanitizers there (make SAN=1 builds no vmbins)
$(B)/vm/%: $(B)/tests/vm/%.o $(T_HELPERS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) -static -o $@ $< $(T_HELPERS) $(LIB_A) $(STATIC_LDLIBS)
$(B)/vm/pebs-shim: $(TOOL_OBJS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) -static -o $@ $(TOOL_OBJS) $(LIB_A) $(STATIC_LDLIBS)

# libFuzzer targets: clang, over the library's objects built once with
# the fuzzer's coverage and the sanitizers
FUZZ_FLAGS := -fsanitize=address,undefined
FUZZ_OBJS := $(LIB_SRCS:lib/%.c=$(B)/fuzz/obj/%.o)
$(B)/fuzz/obj/%.o: lib/%.c $(wildcard include/*.h lib/*/*.h \
		   lib/include/*.h lib/include/pebsshim/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(CPPFLAGS) -std=gnu11 -g -O1 $(FUZZ_FLAGS) \
		-fsanitize=fuzzer-no-link -c -o $@ $<
# kept (not intermediate): a rebuilt target reuses them
.SECONDARY: $(FUZZ_OBJS) $(patsubst %,$(B)/%.o,$(basename $(wildcard tests/vm/*.c)))
$(B)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJS)
	@mkdir -p $(@D)
	$(CLANG) $(CPPFLAGS) -std=gnu11 -g -O1 $(FUZZ_FLAGS) \
		-fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(LDLIBS)

kmod:
	@test -n "$(KDIR)" || { echo "make kmod: no kernel headers in" \
	  "/usr/src: run 'make deps' (linux-headers-amd64) or set KDIR=" >&2; \
	  exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod W=1 KMOD_WERROR=$(KMOD_WERROR) \
		modules

# ---- tests -------------------------------------------------------------
# Every suite is a TAP producer run by prove; scripts/run-test adds a
# timeout and turns on cmocka's TAP output.
# Every skip is logged with its reason ($(SKIP_LOG)) and listed after
# the run, so that a host that cannot run a test says which and why.
# Every failure is logged too ($(FAIL_LOG)) and listed last, so that a
# log cut to its tail still says which test failed and how.
SKIP_LOG := $(abspath $(B))/skipped.txt
FAIL_LOG := $(abspath $(B))/failed.txt
PROVE := PEBS_BUILD=$(abspath $(B)) PEBS_SRC=$(CURDIR) \
	PEBS_SKIP_LOG=$(SKIP_LOG) PEBS_FAIL_LOG=$(FAIL_LOG) \
	prove --exec $(CURDIR)/scripts/run-test --timer
list-results = if [ -s $(SKIP_LOG) ]; then echo "Skipped here, and why:"; \
	  sort $(SKIP_LOG) | uniq -c | sed 's/^/  /'; fi; \
	if [ -s $(FAIL_LOG) ]; then echo "Failed here:"; \
	  sed 's/^/  /' $(FAIL_LOG); fi
# $(call prove-list,FILES): prove them, then list the skips and failures,
# keep the status
prove-list = rm -f $(SKIP_LOG) $(FAIL_LOG); $(PROVE) $(1); rc=$$?; \
	$(list-results); exit $$rc
CLI_T := $(sort $(wildcard tests/cli/*.t))
FUZZ_T := $(sort $(wildcard tests/fuzz/*.t))
VM_T := $(sort $(wildcard tests/vm/*.t))
PATCH_T := $(sort $(wildcard patches/*.t))

# the builds use every CPU
JOBS ?= -j$(shell nproc)
# make check's tests: first those that time or measure the machine, one
# at a time; then the qemu suite (TCG with thread=single keeps one CPU)
# beside the fuzzers and the sanitized build's suites, which take the
# other and time nothing.  check-layers runs after the build (deps
# installs what the build needs).
check: deps
	$(MAKE) $(JOBS) all fuzz
	$(MAKE) check-layers
	$(MAKE) $(JOBS) SAN=1 tests
	@rm -f $(SKIP_LOG) $(FAIL_LOG); \
	$(PROVE) $(UNIT) $(LIVE) $(CLI_T) $(PATCH_T); rc=$$?; \
	$(PROVE) -j2 $(VM_T) $(FUZZ_T) \
		$(patsubst $(B)/%,build-san/%,$(UNIT) $(LIVE)) || rc=1; \
	$(list-results); exit $$rc

# the includes and calls between lib/'s folders against lib/README.md
check-layers: lib
	python3 scripts/check-layers.py --src . --build $(B)
check-unit: tests
	@$(call prove-list,$(UNIT))
check-live: tests
	@$(call prove-list,$(LIVE))
check-cli: all
	@$(call prove-list,$(CLI_T))
check-fuzz: fuzz
	@export PEBS_FUZZ_TIME=$${PEBS_FUZZ_TIME:-60}; $(call prove-list,$(FUZZ_T))
check-vm: all
	@$(call prove-list,$(VM_T))
# the heavy VM runs (not in make check): readers and CPU hotplug for a
# minute each on 4 vCPUs under multi-threaded TCG, then 200 module
# load/unload cycles under switching load with thread=single (switching
# a tracepoint under load hangs multi-threaded TCG: /work/shared/NOTES.md)
VM_STRESS_SMP := --tcg multi --smp 4 --timeout 900 \
	--append pebs_stress_ms=60000 --append pebs_hotplug_ms=60000 \
	--append pebs_hotplug_rounds=24
VM_STRESS_CYCLES := --smp 4 --timeout 1700 --script-timeout 1600 \
	--append pebs_cycles=200
check-vm-stress: all
	@export VM_ONLY='^1[45]-' VM_ARGS='$(VM_STRESS_SMP)'; \
		$(call prove-list,tests/vm/vm.t)
	@export VM_ONLY='^16-' VM_ARGS='$(VM_STRESS_CYCLES)' \
		PEBS_TEST_TIMEOUT=1800; $(call prove-list,tests/vm/vm.t)
# the whole VM suite in a KASAN + lockdep + PROVE_RCU + DEBUG_ATOMIC_SLEEP
# kernel built from linux-source-6.1 (scripts/vm-debug-kernel.sh, cached
# in $(B)/kernel/debug); any splat in dmesg fails vm.t's last test
DEBUG_KDIR = $(abspath $(B))/kernel/debug
VM_DEBUG := --kernel $(DEBUG_KDIR)/arch/x86/boot/bzImage --timeout 2200 \
	--script-timeout 900 --append pebs_history_ms=2000
check-debug: all
	$(call install-pkgs,flex bison bc)
	PEBS_BUILD=$(abspath $(B)) scripts/vm-debug-kernel.sh -j 2 >/dev/null
	@export KDIR=$(DEBUG_KDIR) PEBS_TEST_TIMEOUT=2400 \
		VM_ARGS='$(VM_DEBUG)'; $(call prove-list,tests/vm/vm.t)
	$(MAKE) kmod
# the module's cost per context switch beside perf's, in the guest
bench-vm: all
	PEBS_BUILD=$(abspath $(B)) PEBS_SRC=$(CURDIR) bench/vm-switch.sh
check-patch:
	@$(call prove-list,$(PATCH_T))
check-san:
	$(MAKE) SAN=1 tests
	$(MAKE) SAN=1 B=build-san check-unit check-live

# the benchmarks' programs (never installed), the tool and what they run
bench-build: $(BENCHES) $(TOOL) $(PROBE) $(WORKLOADS)
bench: bench-build
	PEBS_BUILD=$(abspath $(B)) PEBS_SRC=$(CURDIR) bench/run.sh

# the README's main command: record memwalk with the best event here,
# then pebs-shim report (and perf report); scripts/demo.sh builds first
.PHONY: demo
demo:
	$(call install-pkgs,$(DEMO_DEPS))
	B=$(abspath $(B)) scripts/demo.sh

# $(call install-pkgs,PACKAGES): install the missing ones as root, else
# print the apt-get line and fail
define install-pkgs
	@missing=$$(for p in $(1); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
	  grep -q '^install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "make: installing$$(echo $$missing | sed 's/^/ /')"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -q --no-install-recommends $$missing; \
	else \
	  echo "make: missing packages; run as root:" >&2; \
	  echo "  apt-get install --no-install-recommends" $$missing >&2; \
	  exit 1; \
	fi
endef

deps:
	$(call install-pkgs,$(DEPS))

# ---- install -------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=] [LIBDIR=] ...; make uninstall
# with the same variables removes exactly the files install wrote
# (INSTALLED lists them), never a directory.
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PC := $(B)/libpebsshim.pc
MAN1 := $(sort $(wildcard man/*.1))
MAN3 := $(sort $(wildcard man/*.3))
MAN4 := $(sort $(wildcard man/*.4))
# generated pages (scripts/man-gen.py): man3 per object family and a .so
# link per function, from libpebsshim.3; pebs-shim-<command>.1 from
# pebs-shim.1; $(MAN_LIST) names them (relative to $(B)/man)
MAN_LIST := $(B)/man/pages
# the module headers pebsshim.h includes (installed into pebsshim/)
PUB_HDRS := $(sort $(wildcard lib/include/pebsshim/*.h))
INSTALLED := $(BINDIR)/pebs-shim \
	$(addprefix $(LIBDIR)/,libpebsshim.a $(notdir $(LIB_SO) $(LIB_LINKS))) \
	$(LIBDIR)/pkgconfig/libpebsshim.pc \
	$(LIBDIR)/pebs-shim/libpebsshim-objects.so \
	$(INCLUDEDIR)/pebsshim.h $(INCLUDEDIR)/pebs_map.h \
	$(patsubst lib/include/%,$(INCLUDEDIR)/%,$(PUB_HDRS)) \
	$(patsubst man/%,$(MANDIR)/man1/%,$(MAN1)) \
	$(patsubst man/%,$(MANDIR)/man3/%,$(MAN3)) \
	$(patsubst man/%,$(MANDIR)/man4/%,$(MAN4))

.PHONY: man
man: $(MAN_LIST)
$(MAN_LIST): scripts/man-gen.py man/libpebsshim.3 man/pebs-shim.1 \
	     $(wildcard tools/*.c man/examples/*.c examples/*.c)
	@rm -rf $(B)/man/man1 $(B)/man/man3 && mkdir -p $(B)/man
	@python3 scripts/man-gen.py man3 $(VERSION) $(B)/man >$@.tmp
	@python3 scripts/man-gen.py man1 $(VERSION) $(B)/man >>$@.tmp
	@sed 's|^$(B)/man/||' $@.tmp >$@ && rm $@.tmp

# the pkg-config file for these directories (written when they change)
.PHONY: pc
pc: $(PC)
$(PC): lib/libpebsshim.pc.in FORCE
	@mkdir -p $(@D)
	@sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(VERSION)|' \
	    -e 's|@LIBS_PRIVATE@|$(LDLIBS)|' $< >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
.PHONY: FORCE
FORCE:

install: lib tool $(PC) $(MAN_LIST)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/pebsshim $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man4
	install -m 0755 $(TOOL) $(DESTDIR)$(BINDIR)/pebs-shim
	install -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	install -D -m 0644 $(OBJECTS_SO) \
		$(DESTDIR)$(LIBDIR)/pebs-shim/libpebsshim-objects.so
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libpebsshim.so
	install -m 0644 $(PC) $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 0644 lib/include/pebsshim.h include/pebs_map.h \
		$(DESTDIR)$(INCLUDEDIR)/
	install -m 0644 $(PUB_HDRS) $(DESTDIR)$(INCLUDEDIR)/pebsshim/
	install -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/
	$(if $(MAN4),install -m 0644 $(MAN4) $(DESTDIR)$(MANDIR)/man4/)
	cd $(B)/man && for f in $$(cat pages); do \
	  install -m 0644 $$f $(DESTDIR)$(MANDIR)/$$f || exit 1; done

.PHONY: uninstall
uninstall: $(MAN_LIST)
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/,$(shell cat $(MAN_LIST)))

# ---- the module for DKMS ----------------------------------------------------
# make dkms-install [DESTDIR=] [KVER=]: the module's sources with dkms.conf
# in /usr/src/pebs-map-$(VERSION), the udev rule (/dev/pebs_map root:pebs
# 0440) and the modprobe.d options (unprivileged=1); without DESTDIR also
# the pebs group, dkms add, build and install for KVER (default: the
# running kernel), and a udev reload. make dkms-uninstall undoes it all
# but the group.
DKMS_SRC := /usr/src/pebs-map-$(VERSION)
UDEVRULESDIR ?= /etc/udev/rules.d
MODPROBEDIR ?= /etc/modprobe.d
KMOD_FILES := kmod/Kbuild $(filter-out %.mod.c,$(wildcard kmod/*.c)) \
	$(wildcard kmod/*.h)
DKMS_FILES := $(DKMS_SRC)/dkms.conf $(addprefix $(DKMS_SRC)/,$(KMOD_FILES)) \
	$(DKMS_SRC)/include/pebs_map.h $(UDEVRULESDIR)/99-pebs-map.rules \
	$(MODPROBEDIR)/pebs_map.conf
.PHONY: dkms-install dkms-uninstall
dkms-install:
	install -d $(DESTDIR)$(DKMS_SRC)/kmod $(DESTDIR)$(DKMS_SRC)/include
	install -m 0644 dkms.conf $(DESTDIR)$(DKMS_SRC)/
	install -m 0644 $(KMOD_FILES) $(DESTDIR)$(DKMS_SRC)/kmod/
	install -m 0644 include/pebs_map.h $(DESTDIR)$(DKMS_SRC)/include/
	install -D -m 0644 kmod/99-pebs-map.rules \
		$(DESTDIR)$(UDEVRULESDIR)/99-pebs-map.rules
	install -D -m 0644 kmod/pebs_map.modprobe.conf \
		$(DESTDIR)$(MODPROBEDIR)/pebs_map.conf
	$(if $(DESTDIR),,getent group pebs >/dev/null || groupadd --system pebs)
	$(if $(DESTDIR),,dkms add pebs-map/$(VERSION))
	$(if $(DESTDIR),,dkms install pebs-map/$(VERSION) $(if $(KVER),-k $(KVER)))
	$(if $(DESTDIR),,-udevadm control --reload)
dkms-uninstall:
	$(if $(DESTDIR),,-dkms remove pebs-map/$(VERSION) --all)
	rm -f $(addprefix $(DESTDIR),$(DKMS_FILES))
	-rmdir $(DESTDIR)$(DKMS_SRC)/kmod $(DESTDIR)$(DKMS_SRC)/include \
		$(DESTDIR)$(DKMS_SRC)

# ---- Debian packages ---------------------------------------------------------
# make deb: libpebsshim0, libpebsshim-dev, pebs-shim and pebs-map-dkms
# (debian/), built with dpkg-buildpackage -us -uc -b from a copy of the
# tree's files (git's, untracked ones included) in $(DEB_DIR), where the
# .deb files land; lintian must find no error. make check-packages
# (heavy, not part of make check) installs them in a fresh Debian root
# and uses them there, then boots that root in qemu (TCG) to load the
# module DKMS rebuilt there (tests/packages/packages.t; qemu optional:
# the probe says whether the boot can run).
DEB_DIR := $(abspath $(B))/deb
PKG_DEPS := dpkg-dev debhelper dh-dkms lintian mmdebstrap python3 \
	pkg-config libpfm4-dev libelf-dev zlib1g-dev libzstd-dev libiberty-dev
.PHONY: deb check-packages
deb:
	$(call install-pkgs,$(PKG_DEPS))
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/pebs-shim-$(VERSION)
	git ls-files -co --exclude-standard | while read -r f; do \
	  [ -e "$$f" ] && echo "$$f"; done | \
	  tar -cf - -T - | tar -xf - -C $(DEB_DIR)/pebs-shim-$(VERSION)
	cd $(DEB_DIR)/pebs-shim-$(VERSION) && dpkg-buildpackage -us -uc -b
	lintian --fail-on error --suppress-tags bad-distribution-in-changes-file \
		$(DEB_DIR)/*.changes
	@ls $(DEB_DIR)/*.deb
check-packages: deb $(PROBE)
	@DEB_DIR=$(DEB_DIR) VERSION=$(VERSION) $(PROVE) tests/packages/deb.t \
		tests/packages/packages.t

# ---- ABI -----------------------------------------------------------------
# abi/libpebsshim.abi: the exported functions and the public types they
# reach (those of lib/include and include), as libabigail's abidw sees
# them; tests/cli/abi.t compares the built library with it (abidiff).
# Regenerate it when the ABI changes on purpose (a new function listed
# in lib/libpebsshim.map, a grown public struct).
ABIDW := abidw --headers-dir lib/include --headers-dir include \
	--drop-private-types --no-corpus-path --no-comp-dir-path \
	--short-locs --type-id-style hash
.PHONY: abi-dump
abi-dump: $(LIB_SO)
	@mkdir -p abi
	$(ABIDW) --out-file abi/libpebsshim.abi $(LIB_SO)

clean:
	rm -rf build build-san
	-$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean)
