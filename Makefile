# faultline — see README.md.
#
#   make          build ./faultline (and build/faultline-wcache, the iSCSI lab's write cache,
#                 and build/faultline-disk, the FUSE layer that fails a lab server's disk)
#   make deps     install the Debian packages the build, tests, demo and benchmarks need
#   make check    the quick tier (the README's test command): the layers, the shape, unit and
#                 CLI tests, one lab test per lab kind (iscsi, gluster, ceph), plain then again
#                 under ASan+UBSan, the reports' schema; then the ten slowest tests, and the
#                 last line counts: N passed, N failed, N skipped
#   make check-full  the full tier (what .ci/run runs): every unit, CLI and lab test in both
#                 passes, tests/lab/scenarios.sh (every shipped scenario) in the plain one only
#   make unit, make check-asan  one pass of TIER (quick; TIER=full for every test): the plain
#                 build's tests, the ASan+UBSan build's
#   make demo     the iSCSI lab, a controller killed during a verified run, the report
#   make demo-file  a local file, damaged afterwards, and what verify finds
#   make bench-all  every ratio bench below but bench-scale, one after another, then one
#                 table: measure, faultline, peer, ratio, goal, spread, verdict (bench/all.sh;
#                 ROUNDS, 5 at least; BENCH_SMOKE=1 for a quick look that judges nothing)
#   make bench    faultline vs fio on the same tmpfs file (bench/vs-fio.sh)
#   make bench-iscsi  faultline's iSCSI backend vs iscsi-perf on the lab (bench/iscsi.sh)
#   make bench-files  the files backend vs fio on small files (bench/files.sh)
#   make bench-meta  metadata streams alone vs fio's filecreate and filedelete, tmpfs and a
#                 loop XFS (bench/meta.sh)
#   make bench-sweep  faultline verify's sweep vs fio's sequential read of the same file,
#                 tmpfs and a loop XFS (bench/sweep.sh)
#   make bench-clients  one client vs two MPI ranks on one file, and cross reads' cost
#   make bench-disk-layer  XFS on a loop device over faultline-disk vs straight over the
#                 image file: fio's 4 KiB random and 1 MiB sequential I/O (bench/disk-layer.sh)
#   make bench-disk-lab  a lab's faultless run with its disks on faultline-disk vs without
#                 (gluster, ceph, iscsi; bench/disk-lab.sh)
#   make bench-scale  the state map and journal on a 256 GiB sparse file: memory, setup time
#                 (not a ratio bench: not in bench-all, nor is bench/fault-latency.sh)
#   make fuzz     the libFuzzer targets (tests/fuzz/), FUZZ_SECONDS (600) each, with
#                 each one's execs, exec/s and coverage; FUZZ_TARGETS picks some
#   make docs     docs/scenario.md and man/faultline-scenario.5 anew from build/faultline,
#                 docs/report-json.md from docs/*.schema.json (docs/gen/report_doc.sh)
#   make install  faultline, faultline-wcache, faultline-disk, the manual pages, the scenarios and the bash
#                 completion under PREFIX (/usr/local), DESTDIR prepended; make uninstall

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror
STD     := -std=c11 -D_GNU_SOURCE
LIBS    := -luring -liscsi -lnftables -lnl-route-3 -lnl-3 -lpthread -lm -ldl
NLINC   := -I/usr/include/libnl3
# Only the types of <mpi.h>: libmpi itself is loaded at run time (lib/ranks.c).
MPIINC  := $(or $(shell pkg-config --cflags-only-I ompi-c 2>/dev/null),\
                -I/usr/lib/x86_64-linux-gnu/openmpi/include)
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Which build this is (harness/live/buildinfo.c: `faultline --version`, the reports' manifest):
# git describe of this checkout (none outside one: the release in buildinfo.c), the
# compiler, the flags.  build/buildinfo.txt changes only when they do, and with it only
# buildinfo.o is compiled again.
FL_VERSION := $(strip $(if $(filter $(CURDIR),$(shell git rev-parse --show-toplevel 2>/dev/null)),\
                $(shell git describe --always --dirty 2>/dev/null)))
FL_CC      := $(shell $(CC) --version 2>/dev/null | head -n 1 | tr -d "'\"\\\\")

# Everything but main.c goes into a library that the unit tests link too.
LIB_SRC := $(wildcard lib/*.c checks/*.c workloads/*.c faults/*.c faults/*/*.c) \
           $(filter-out harness/cli/main.c harness/lab/wcache/wcache.c harness/lab/disk/disk.c,$(wildcard harness/*.c harness/*/*.c))
HDRS    := $(wildcard lib/*.h checks/*.h workloads/*.h faults/*.h faults/*/*.h harness/*.h \
                      harness/*/*.h)
TESTS   := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))
# The undo-log records a transport adds register themselves (faults/undo.h,
# undo_register); nothing calls them by name, so every program is linked
# with them: any of them may replay a log that holds them.
KEEP_KINDS := -Wl,--undefined=remote_undo_kind -Wl,--undefined=disk_undo_kinds

# build: gcc make libc6-dev liburing-dev libiscsi-dev libnl-3-dev libnl-route-3-dev
# libnftables-dev libcmocka-dev; lab: tgt; tests: jq, mount (losetup, mount), e2fsprogs
# (mkfs.ext4), mawk, iproute2 and nftables (to look at the lab from outside), tcpdump (the
# independent observer of recovery times), libxml2-utils (xmllint for junit.xml);
# ssh: openssh-server (an sshd per lab host) and openssh-client (faults over ssh);
# the ha lab: corosync, pacemaker and pacemaker-cli-utils (crm_mon, cibadmin) and
# resource-agents (IPaddr2, iSCSITarget, iSCSILogicalUnit, anything);
# many clients: openmpi-bin (mpirun) and libopenmpi-dev (<mpi.h>; libmpi is loaded at run
# time), libfuse3-dev (tests/fuse/stalefs, a client cache that serves stale data);
# bench: fio, libiscsi-bin (iscsi-perf); time (/usr/bin/time: tests/cli/scale.sh, bench-scale);
# fuzzing: clang and libclang-rt-14-dev (libFuzzer); the manual pages (tests/cli/docs.sh):
# mandoc (mandoc -T lint), groff-base (groff -ww), man-db (man); python3-jsonschema
# (tests/schema.sh: report.json against docs/*.schema.json; python3 for tests/cli/links.sh)
DEB_PACKAGES := gcc make libc6-dev pkg-config liburing-dev libiscsi-dev libnl-3-dev \
                libnl-route-3-dev libnftables-dev libcmocka-dev tgt jq mount e2fsprogs mawk \
                iproute2 nftables fio libiscsi-bin tcpdump libxml2-utils python3-jsonschema \
                glusterfs-server glusterfs-client xfsprogs fuse3 util-linux tar \
                openssh-server openssh-client openmpi-bin libopenmpi-dev libfuse3-dev time \
                clang libclang-rt-14-dev ceph-mon ceph-osd ceph-mds ceph-mgr ceph-fuse \
                ceph-common mandoc groff-base man-db corosync pacemaker pacemaker-cli-utils \
                resource-agents
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps check check-full unit cli check-asan demo demo-file bench bench-all bench-iscsi \
        bench-vs-fio bench-files bench-meta bench-sweep bench-clients bench-scale bench-disk-layer bench-disk-lab fuzz fuzz-build docs install \
        uninstall clean FORCE
.SECONDARY:

all: faultline build/faultline-wcache build/faultline-disk

# $(1): build directory, $(2): extra flags
define build_rules
$(1)/obj/%.o: %.c $(HDRS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(STD) $$(WARN) $$(NLINC) $$(MPIINC) $$(CFLAGS) $(2) $$(BUILD_DEFS) -c $$< -o $$@

$(1)/obj/harness/live/buildinfo.o: build/buildinfo.txt
$(1)/obj/harness/live/buildinfo.o: BUILD_DEFS = -DFL_VERSION='"$$(FL_VERSION)"' -DFL_CC='"$$(FL_CC)"' \
                                           -DFL_CFLAGS='"$$(strip $$(CFLAGS) $(2))"'

$(1)/libfaultline.a: $$(patsubst %.c,$(1)/obj/%.o,$$(LIB_SRC))
	@rm -f $$@
	ar rcs $$@ $$^

$(1)/faultline: $(1)/obj/harness/cli/main.o $(1)/libfaultline.a
	$$(CC) $(2) $$(CFLAGS) $$(KEEP_KINDS) -o $$@ $$^ $$(LIBS)

$(1)/tests/%: $(1)/obj/tests/unit/%.o $(1)/libfaultline.a
	@mkdir -p $$(dir $$@)
	$$(CC) $(2) $$(CFLAGS) $$(KEEP_KINDS) -o $$@ $$^ -lcmocka $$(LIBS)
endef

$(eval $(call build_rules,build,))
$(eval $(call build_rules,build/asan,$(SAN)))

# A new file renamed into place, not the old one overwritten: a lab that is up runs
# this very binary as each gluster and ceph server's init (`faultline lab init`).
faultline: build/faultline
	cp build/faultline $@.new && mv -f $@.new $@

build/buildinfo.txt: FORCE
	@mkdir -p build
	@echo '$(FL_VERSION) | $(FL_CC) | $(CFLAGS) | $(SAN)' > $@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi

FORCE:

# The iSCSI lab's controller write cache ([lab] write_cache = on): a program of its own (libfuse3),
# found next to faultline.
build/faultline-wcache: harness/lab/wcache/wcache.c
	@mkdir -p build
	$(CC) $(STD) $(WARN) $(CFLAGS) $$(pkg-config --cflags fuse3) $< -o $@ \
	    $$(pkg-config --libs fuse3) -lpthread

# The FUSE layer under a lab server's disk, which fails it on command (lib/diskctl.h: the
# language it is told in, the one part of the library it links): a program of its own
# (libfuse3), found next to faultline.
build/faultline-disk: harness/lab/disk/disk.c lib/diskctl.c lib/diskctl.h lib/rng.h
	@mkdir -p build
	$(CC) $(STD) $(WARN) $(CFLAGS) $$(pkg-config --cflags fuse3) $< lib/diskctl.c -o $@ \
	    $$(pkg-config --libs fuse3) -lpthread

# A test's tool, not part of faultline: a FUSE layer that serves one client stale data.
build/stalefs: tests/fuse/stalefs.c
	@mkdir -p build
	$(CC) $(STD) $(WARN) $(CFLAGS) $$(pkg-config --cflags fuse3) $< -o $@ \
	    $$(pkg-config --libs fuse3) -lpthread

# --- fuzzing (tests/fuzz/README: one target per parser of what faultline reads back) ---
# The library once more with clang, instrumented for libFuzzer (fuzzer-no-link) and
# ASan+UBSan; each tests/fuzz/fuzz_T.c links against it, so a target runs the real code.
FUZZ_CC      := clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# clang's -Wmissing-field-initializers (in -Wextra) also fires on positional initializers
# that leave trailing fields zero on purpose (the key and metric tables); gcc's does not,
# and the gcc builds keep every warning.
FUZZ_WARN    := $(WARN) -Wno-missing-field-initializers
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))

build/fuzz/obj/%.o: %.c $(HDRS) tests/fuzz/fuzz.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(STD) $(FUZZ_WARN) $(NLINC) $(MPIINC) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	    -c $< -o $@

build/fuzz/libfaultline.a: $(patsubst %.c,build/fuzz/obj/%.o,$(LIB_SRC))
	@rm -f $@
	ar rcs $@ $^

build/fuzz/fuzz_%: build/fuzz/obj/tests/fuzz/fuzz_%.o build/fuzz/obj/tests/fuzz/fuzz.o \
                   build/fuzz/libfaultline.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $(KEEP_KINDS) -o $@ $^ $(LIBS)

fuzz-build: $(addprefix build/fuzz/fuzz_,$(FUZZ_TARGETS))

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' \
	    || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "deps: everything is installed"; else \
	    echo "deps: installing" $$missing; \
	    $(SUDO) apt-get update -qq || echo "deps: apt-get update failed; trying the install anyway"; \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; fi

# tests/run.sh: unit, CLI and lab tests of one build, every result in a file.  TIER picks
# the scripts: quick (make check's) or full (make check-full's: every one); each script's
# "# tier:" and "# passes:" lines say where it belongs (tests/run.sh, docs/testing.md).
TIER ?= quick
UNIT_DEPS := $(addprefix build/tests/,$(TESTS)) faultline build/faultline-wcache \
             build/faultline-disk build/stalefs
unit: $(UNIT_DEPS)
	@sh tests/run.sh build build/results-plain.txt $(TIER)

# Full stacks for every allocation, so that the one suppression of a leak
# inside libiscsi (tests/lsan.supp) matches by function name.
check-asan: export ASAN_OPTIONS = fast_unwind_on_malloc=0
check-asan: export LSAN_OPTIONS = suppressions=$(CURDIR)/tests/lsan.supp
# tests that check timing expectations allow for the sanitizers' slowness
check-asan: export FL_SANITIZED = 1
ASAN_DEPS := $(addprefix build/asan/tests/,$(TESTS)) build/asan/faultline build/faultline-wcache \
             build/faultline-disk build/stalefs
check-asan: $(ASAN_DEPS)
	@sh tests/run.sh build/asan build/results-asan.txt $(TIER)

# deps first, on its own: nothing can compile before liburing and cmocka are in.
# Both passes run even when the first fails; the summary of both decides (a
# pass that never wrote its results, e.g. a failed build, counts as failed).
# The layers first: no folder includes one above it (tests/layers.sh); then the
# shape: no long file or function, no circle of files (tests/shape.sh).  Both
# builds are made first with every core (NPROC jobs); the tests then run one at
# a time, in a make without -j (a test that runs make gets no jobserver).
# $(call check_tier,TIER): make check is the quick tier, make check-full the full one.
NPROC := $(shell nproc 2>/dev/null || echo 1)
define check_tier
	@rm -f build/results-layers.txt build/results-plain.txt build/results-asan.txt
	@$(MAKE) --no-print-directory deps
	@mkdir -p build
	@echo "== layers"
	@if sh tests/layers.sh; then echo "pass tests/layers.sh"; else echo "fail tests/layers.sh"; \
	    fi >> build/results-layers.txt
	@echo "== shape"
	@if { $(MAKE) --no-print-directory -j$(NPROC) build/libfaultline.a > build/shape-build.log 2>&1 || \
	      { cat build/shape-build.log; false; }; } && sh tests/shape.sh build; then echo "pass tests/shape.sh"; else echo "fail tests/shape.sh"; \
	    fi >> build/results-layers.txt
	@echo "== build (plain and ASan+UBSan)"
	@$(MAKE) --no-print-directory -j$(NPROC) $(UNIT_DEPS) $(ASAN_DEPS) > build/check-build.log 2>&1 || \
	    { tail -n 30 build/check-build.log; echo "the build failed: build/check-build.log"; }
	@echo "== the $(1) tier"
	@$(MAKE) --no-print-directory unit TIER=$(1) || true
	@$(MAKE) --no-print-directory check-asan TIER=$(1) || true
	@sh tests/summary.sh build/results-layers.txt build/results-plain.txt build/results-asan.txt
endef

check:
	$(call check_tier,quick)

check-full:
	$(call check_tier,full)

demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory faultline
	@sh scenarios/demo.sh

demo-file:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory faultline
	@sh scenarios/demo-file.sh

# Each bench: the packages, this build, then its script (bench-NAME runs
# bench/NAME.sh; make bench is bench/vs-fio.sh).
BENCHES := bench-iscsi bench-files bench-meta bench-sweep bench-all bench-clients bench-scale \
           bench-disk-layer bench-disk-lab
bench: bench-vs-fio
bench-vs-fio $(BENCHES): bench-%:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory faultline
	@sh bench/$*.sh

# --- the documents generated from the code's tables (no hand copy of a key anywhere) ---
# Each is what `faultline ARGS` prints, written whole or not at all; tests/cli/docs.sh
# makes them again into a directory of its own (DOCS_OUT, with DOCS_FAULTLINE the binary
# under test) and fails when a checked-in one differs.  Another one is one more
# $(call doc,...) line.
DOCS_FAULTLINE ?= build/faultline
DOCS_OUT       ?= .
# $(call doc,FILE,ARGS): $(DOCS_OUT)/FILE is `$(DOCS_FAULTLINE) ARGS`
doc = mkdir -p $(dir $(DOCS_OUT)/$(1)) && $(DOCS_FAULTLINE) $(2) > $(DOCS_OUT)/$(1).new && \
      mv -f $(DOCS_OUT)/$(1).new $(DOCS_OUT)/$(1)

docs: $(DOCS_FAULTLINE)
	$(call doc,docs/scenario.md,help scenario --format markdown)
	$(call doc,man/faultline-scenario.5,help scenario --format man)
	@mkdir -p $(DOCS_OUT)/docs
	sh docs/gen/report_doc.sh $(DOCS_OUT)/docs/report-json.md

# --- make install / make uninstall ---
# faultline finds faultline-wcache and faultline-disk next to itself (or on PATH:
# harness/lab/lab_iscsi.c), and runs itself through /proc/self/exe (a lab server's init,
# mpirun's ranks, the ssh agent's copy), so they work from any directory.  INSTALL_FAULTLINE,
# INSTALL_WCACHE and INSTALL_DISK name the programs to install: the build's, or others
# already built (tests/cli/docs.sh installs the binary under test, e.g.
# build/asan/faultline, by its absolute path, which no rule makes: nothing is built then).
PREFIX            ?= /usr/local
DESTDIR           ?=
INSTALL_FAULTLINE ?= build/faultline
INSTALL_WCACHE    ?= build/faultline-wcache
INSTALL_DISK      ?= build/faultline-disk
BINDIR     = $(DESTDIR)$(PREFIX)/bin
MANDIR     = $(DESTDIR)$(PREFIX)/share/man
SCNDIR     = $(DESTDIR)$(PREFIX)/share/faultline/scenarios
COMPDIR    = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
SCENARIOS := $(wildcard scenarios/*.scn)
THRASHES  := $(wildcard scenarios/thrash/*.scn)
HAS       := $(wildcard scenarios/ha/*.scn)

install: $(INSTALL_FAULTLINE) $(INSTALL_WCACHE) $(INSTALL_DISK)
	install -d "$(BINDIR)" "$(MANDIR)/man1" "$(MANDIR)/man5" "$(SCNDIR)/thrash" "$(SCNDIR)/ha" "$(COMPDIR)"
	install -m 0755 "$(INSTALL_FAULTLINE)" "$(BINDIR)/faultline"
	install -m 0755 "$(INSTALL_WCACHE)" "$(BINDIR)/faultline-wcache"
	install -m 0755 "$(INSTALL_DISK)" "$(BINDIR)/faultline-disk"
	install -m 0644 man/faultline.1 "$(MANDIR)/man1/faultline.1"
	install -m 0644 man/faultline-scenario.5 "$(MANDIR)/man5/faultline-scenario.5"
	install -m 0644 $(SCENARIOS) "$(SCNDIR)"
	install -m 0644 $(THRASHES) "$(SCNDIR)/thrash"
	install -m 0644 $(HAS) "$(SCNDIR)/ha"
	install -m 0644 completion/faultline.bash "$(COMPDIR)/faultline"

# Exactly what install put there, and the scenarios' directories once empty.
uninstall:
	rm -f "$(BINDIR)/faultline" "$(BINDIR)/faultline-wcache" "$(BINDIR)/faultline-disk" \
	    "$(MANDIR)/man1/faultline.1" \
	    "$(MANDIR)/man5/faultline-scenario.5" "$(COMPDIR)/faultline" \
	    $(patsubst scenarios/%,"$(SCNDIR)/%",$(SCENARIOS) $(THRASHES) $(HAS))
	rmdir "$(SCNDIR)/thrash" "$(SCNDIR)/ha" "$(SCNDIR)" "$(DESTDIR)$(PREFIX)/share/faultline" 2> /dev/null || true

clean:
	rm -rf build faultline
