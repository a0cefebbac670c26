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
#   make check-unit | check-live | check-cli | check-fuzz | check-vm |
#        check-san  one suite
#   make check-vm-stress  the heavy module runs in qemu (SMP readers,
#                   CPU hotplug, 200 load/unload cycles under load: ~15 min)
#   make check-debug  the VM suite in a KASAN + lockdep debug kernel built
#                   from linux-source-6.1 (the first build takes long)
#   make bench      the benchmarks (figures, not pass/fail)
#   make bench-vm   the module's cost per context switch vs. perf's (qemu)
#   make deps       install the Debian packages (root) or print the line
#   make install    tool, library, header, man page (PREFIX, DESTDIR)
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
CPPFLAGS += -Iinclude -Ilib/include -Ilib -D_GNU_SOURCE
CFLAGS ?= $(OPT) -g
CFLAGS += -std=gnu11 $(WARN) -fPIC -fvisibility=hidden $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
LDLIBS := -lpfm -lelf -lz -lzstd -lpthread -lm -liberty

LIB_SRCS := $(sort $(wildcard lib/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
LIB_A := $(B)/libpebsshim.a
LIB_SO := $(B)/libpebsshim.so.0
TOOL_SRCS := $(sort $(wildcard tools/*.c))
TOOL_OBJS := $(TOOL_SRCS:%.c=$(B)/%.o)
TOOL := $(B)/pebs-shim

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
BENCHES := $(patsubst tests/bench/%.c,$(B)/bench/%,$(wildcard tests/bench/*.c))

DEPS := build-essential libpfm4-dev libcmocka-dev linux-libc-dev linux-perf \
	clang libclang-rt-14-dev qemu-system-x86 qemu-utils \
	linux-headers-amd64 busybox-static cpio xz-utils patch kmod \
	linux-source-6.1 libelf-dev zlib1g-dev libzstd-dev libiberty-dev time
# what `make demo` needs: build, record, report, perf report
DEMO_DEPS := build-essential libpfm4-dev linux-libc-dev linux-perf \
	libelf-dev zlib1g-dev libzstd-dev libiberty-dev

.PHONY: all lib tool tests kmod vmbins fuzz check check-unit check-live \
	check-cli check-fuzz check-vm check-vm-stress check-debug check-san \
	check-patch bench bench-vm deps \
	install clean

all: lib tool tests $(WORKLOADS) $(EXAMPLES) $(BENCHES) vmbins \
	$(if $(KDIR),kmod)

lib: $(LIB_A) $(LIB_SO)
tool: $(TOOL)
tests: $(UNIT) $(LIVE) $(WORKLOADS) $(PROBE)
vmbins: $(VMBINS)
fuzz: $(FUZZ)

$(B)/%.o: %.c $(wildcard include/*.h lib/*.h lib/include/*.h tools/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIB_SO): $(LIB_OBJS) lib/libpebsshim.map
	$(CC) -shared -Wl,-soname,libpebsshim.so.0 \
		-Wl,--version-script=lib/libpebsshim.map $(LDFLAGS) \
		-o $@ $(LIB_OBJS) $(LDLIBS)

$(TOOL): $(TOOL_OBJS) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $(TOOL_OBJS) $(LIB_A) $(LDLIBS)

$(B)/tests/unit/%: $(B)/tests/unit/%.o $(T_HELPERS) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $< $(T_HELPERS) $(LIB_A) -lcmocka $(LDLIBS)
$(B)/tests/live/%: $(B)/tests/live/%.o $(T_HELPERS) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $< $(T_HELPERS) $(LIB_A) -lcmocka $(LDLIBS)
$(PROBE): $(B)/tests/probe.o $(T_HELPERS) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(B)/tests/%.o: tests/%.c $(wildcard include/*.h lib/*.h lib/include/*.h \
		 tests/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -c -o $@ $<

# Workloads keep their symbols and frames so that reports can name them.
$(B)/workloads/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) -O1 -g -fno-omit-frame-pointer -fno-inline \
		-D_GNU_SOURCE -o $@ $< -lpthread -lm

$(B)/examples/%: examples/%.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS)

$(B)/bench/%: tests/bench/%.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) \
		$(LDLIBS)

# Static guest binaries: no sanitizers (the guest has no shared libs).
$(B)/vm/%: tests/vm/%.c tests/helpers.c $(LIB_SRCS) $(wildcard include/*.h \
	   lib/*.h lib/include/*.h tests/*.h tests/vm/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests -std=gnu11 $(WARN) -O2 -g -static -o $@ \
		$< tests/helpers.c $(LIB_SRCS) $(LDLIBS)
$(B)/vm/pebs-shim: $(TOOL_SRCS) $(LIB_SRCS) $(wildcard include/*.h lib/*.h \
		   lib/include/*.h tools/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -std=gnu11 $(WARN) -O2 -g -static -o $@ \
		$(TOOL_SRCS) $(LIB_SRCS) $(LDLIBS)

# libFuzzer targets: built with clang over the library sources.
$(B)/fuzz/%: tests/fuzz/%.c $(LIB_SRCS) $(wildcard include/*.h lib/*.h \
	     lib/include/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(CPPFLAGS) -std=gnu11 -g -O1 \
		-fsanitize=fuzzer,address,undefined -o $@ $< $(LIB_SRCS) \
		$(LDLIBS)

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
SKIP_LOG := $(abspath $(B))/skipped.txt
PROVE := PEBS_BUILD=$(abspath $(B)) PEBS_SRC=$(CURDIR) \
	PEBS_SKIP_LOG=$(SKIP_LOG) prove --exec $(CURDIR)/scripts/run-test --timer
# $(call prove-list,FILES): prove them, then list the skips, keep the status
prove-list = rm -f $(SKIP_LOG); $(PROVE) $(1); rc=$$?; \
	if [ -s $(SKIP_LOG) ]; then echo "Skipped here, and why:"; \
	  sort $(SKIP_LOG) | uniq -c | sed 's/^/  /'; fi; exit $$rc
CLI_T := $(sort $(wildcard tests/cli/*.t))
FUZZ_T := $(sort $(wildcard tests/fuzz/*.t))
VM_T := $(sort $(wildcard tests/vm/*.t))
PATCH_T := $(sort $(wildcard patches/*.t))

check: deps
	$(MAKE) all fuzz
	$(MAKE) SAN=1 tests
	@$(call prove-list,$(UNIT) $(LIVE) $(CLI_T) $(FUZZ_T) $(PATCH_T) \
		$(patsubst $(B)/%,build-san/%,$(UNIT) $(LIVE)) $(VM_T))

check-unit: tests
	@$(call prove-list,$(UNIT))
check-live: tests
	@$(call prove-list,$(LIVE))
check-cli: all
	@$(call prove-list,$(CLI_T))
check-fuzz: fuzz
	@$(call prove-list,$(FUZZ_T))
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

bench: all
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done
	$(TOOL) bench
	PEBS_BUILD=$(abspath $(B)) PEBS_SRC=$(CURDIR) bench/record-cost.sh
	PEBS_BUILD=$(abspath $(B)) PEBS_SRC=$(CURDIR) bench/report-speed.sh

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

install: lib tool
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man3
	install -m 0755 $(TOOL) $(DESTDIR)$(PREFIX)/bin/pebs-shim
	install -m 0644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libpebsshim.so.0 $(DESTDIR)$(PREFIX)/lib/libpebsshim.so
	install -m 0644 lib/include/pebsshim.h include/pebs_map.h \
		$(DESTDIR)$(PREFIX)/include/
	install -m 0644 man/pebs-shim.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 man/libpebsshim.3 $(DESTDIR)$(PREFIX)/share/man/man3/

clean:
	rm -rf build build-san
	-$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean)
