# SPDX-License-Identifier: GPL-2.0
#
# pmswap: build the patched 6.12 kernel, boot it under QEMU with an emulated
# NVDIMM and run the tests. See README.md.
#
#   make run            build what is missing, boot, show pmswap at work
#   make test           host checks + kernel + guest tests (what CI runs)
#   make kernel         [STOCK=1] [DEBUG=1]; make print-kernel prints its path
#   make shell          boot the guest with an interactive shell
#   make upstream-baseline   record which upstream mm selftests fail on stock
#   make deb-pkg        [DEB_CONFIG=] Debian packages of the patched kernel

REPO       := $(CURDIR)
BUILD      ?= $(REPO)/build
KSRC       ?= /usr/src/linux-source-6.12.tar.xz
STOCK      ?= 0
DEBUG      ?= 0
BENCH      ?= 0
QUICK      ?= 0
space      := $(subst ,, )

PRISTINE   := $(BUILD)/linux
VARIANT    := $(if $(filter 1,$(STOCK)),stock,pmswap)$(if $(filter 1,$(DEBUG)),-debug)$(if $(filter 1,$(BENCH)),-bench)
OBJ        := $(BUILD)/obj-$(VARIANT)
BZIMAGE    := $(OBJ)/arch/x86/boot/bzImage
LOGS       := $(BUILD)/logs
TESTBIN    := $(BUILD)/testbin
SELFTESTBIN := $(BUILD)/selftests-bin
INITRAMFS  := $(BUILD)/initramfs.cpio
TOOLBIN    := $(BUILD)/tools
HDRS       := $(BUILD)/headers
KSFT       := $(PRISTINE)/tools/testing/selftests

CC         ?= gcc
TEST_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	       -I$(REPO)/tests/lib -I$(KSFT) -static -pthread
TEST_SUMMARIES := host.out.summary config.out.summary feature.out.summary feature-zram.out.summary tools.out.summary \
		  upstream.out.summary cxl.out.summary devdax.out.summary feature-debug.out.summary soak.out.summary
# Expected skips: tests/expected-skips/TAG.txt, made from a run's logs by
# tests/expected-skips/update.sh LOGDIR. A list that exists is always
# checked; STRICT_SKIPS=1 also fails a suite that has none. It is on by
# itself once every suite of make test has its list.
SKIP_TAGS  := feature feature-zram feature-debug tools upstream soak
SKIP_LISTS := $(wildcard $(patsubst %,$(REPO)/tests/expected-skips/%.txt,$(SKIP_TAGS)))
STRICT_SKIPS ?= $(if $(filter $(words $(SKIP_TAGS)),$(words $(SKIP_LISTS))),1,0)
export PMSWAP_STRICT_SKIPS := $(STRICT_SKIPS)
RUNGUEST   := PMSWAP_KERNEL=$(BZIMAGE) PMSWAP_INITRAMFS=$(INITRAMFS) $(REPO)/tests/run-guest.sh -o $(LOGS)

# Upstream mm selftests built from the same source (statically).
# khugepaged.c of 6.12.118 uses KSFT_SKIP without including kselftest.h
# (mainline includes it): every test is built with -include kselftest.h,
# which the others include anyway.
UPSTREAM_TESTS := cow madv_populate mkdirty mremap_test pagemap_ioctl \
		  soft-dirty split_huge_page_test uffd-unit-tests transhuge-stress \
		  khugepaged migration ksm_tests ksm_functional_tests

FEATURE_SRCS := $(wildcard tests/feature/*.c)
FEATURE_BINS := $(patsubst tests/feature/%.c,$(TESTBIN)/%,$(FEATURE_SRCS))
PROG_SRCS    := $(wildcard tests/progs/*.c)
PROG_BINS    := $(patsubst tests/progs/%.c,$(TESTBIN)/%,$(PROG_SRCS))
FUZZ_SRCS    := $(wildcard tests/fuzz/*.c)
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(TESTBIN)/%,$(FUZZ_SRCS))
LIB_SRCS     := $(wildcard tests/lib/*.c)
LIB_HDRS     := $(wildcard tests/lib/*.h)

.PHONY: all deps kernel print-kernel source testprogs tools selftests initramfs \
	check checkpatch guest-test cxl-test devdax-test debug-test soak fuzz test run shell upstream-baseline bench profile \
	series-check config-check config-test deb-pkg \
	clean help

all: kernel testprogs initramfs

help:
	@sed -n '3,12p' Makefile

deps:
	@$(REPO)/scripts/install-deps.sh

# --- kernel -----------------------------------------------------------------
kernel: deps
	@$(REPO)/scripts/build-kernel.sh $(BUILD) $(REPO) $(KSRC) $(STOCK) $(DEBUG) $(BENCH)

# Debian packages of the patched kernel (bindeb-pkg), from DEB_CONFIG
# (default: Debian's own 6.12 amd64 configuration) with configs/deb.config
# merged and checked; hours with Debian's configuration on 2 cores.
DEB_CONFIG ?= /usr/src/linux-config-6.12/config.amd64_none_amd64.xz
deb-pkg: deps
	@$(REPO)/scripts/deb-pkg.sh $(BUILD) $(REPO) $(DEB_CONFIG)

# Bisectability: build every prefix of the series (incremental, slow once).
series-check: deps
	@$(REPO)/scripts/build-each-patch.sh $(BUILD) $(REPO) $(KSRC) $(or $(FIRST),1) $(QUICK)

# Every configuration a user can pick in menuconfig: each pmswap option
# off in turn, all of pmswap off, and the core options its hooks sit next
# to (memcg, memory failure, userfaultfd, debugfs, THP, swap) off; each a
# linked bzImage, in build/obj-matrix. VARIANTS="no-pmem no-thp": a subset.
config-check: deps
	@$(REPO)/scripts/config-matrix.sh $(BUILD) $(REPO) $(KSRC) $(VARIANTS)

# The part of it make test runs: mm/ and fs/proc/ compiled (not linked)
# with pmswap off, with map in place off, and with memcg off
# (build/logs/config.out.summary).
TEST_VARIANTS ?= no-pmswap no-inplace no-memcg
config-test: deps
	@rm -f $(LOGS)/config.out.summary; mkdir -p $(LOGS)
	@CONFIG_MATRIX_QUICK=1 CONFIG_MATRIX_SUMMARY=$(LOGS)/config.out.summary \
		$(REPO)/scripts/config-matrix.sh $(BUILD) $(REPO) $(KSRC) $(TEST_VARIANTS)

print-kernel:
	@echo $(BZIMAGE)

$(PRISTINE)/.pmswap-extracted: | deps
	@$(REPO)/scripts/build-kernel.sh $(BUILD) $(REPO) $(KSRC) extract-only 0

source: $(PRISTINE)/.pmswap-extracted

# --- test programs ----------------------------------------------------------
$(TESTBIN)/%: tests/feature/%.c $(LIB_SRCS) $(LIB_HDRS) $(PRISTINE)/.pmswap-extracted
	@mkdir -p $(TESTBIN)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(LIB_SRCS)

$(TESTBIN)/%: tests/progs/%.c $(LIB_SRCS) $(LIB_HDRS) $(PRISTINE)/.pmswap-extracted
	@mkdir -p $(TESTBIN)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(LIB_SRCS)

$(TESTBIN)/%: tests/fuzz/%.c $(LIB_SRCS) $(LIB_HDRS) $(PRISTINE)/.pmswap-extracted
	@mkdir -p $(TESTBIN)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(LIB_SRCS)

testprogs: $(FEATURE_BINS) $(PROG_BINS) $(FUZZ_BINS)

# --- user-space tools -------------------------------------------------------
TOOL_SRCS := $(addprefix tools/pmswap/,pmswap.c util.c namespace.c dax.c setup.c status.c off.c run.c persist.c)
$(TOOLBIN)/pmswap: $(TOOL_SRCS) tools/pmswap/pmswap.h | deps
	@mkdir -p $(TOOLBIN)
	$(CC) -O2 -g -Wall -Wextra -o $@ $(TOOL_SRCS) -lndctl -luuid -ljson-c

tools: $(TOOLBIN)/pmswap

$(HDRS)/.stamp: $(PRISTINE)/.pmswap-extracted
	@echo "selftests: installing kernel UAPI headers"
	@$(MAKE) -s -C $(PRISTINE) O=$(HDRS) headers_install INSTALL_HDR_PATH=$(HDRS)/usr >/dev/null
	@touch $@

UPSTREAM_PATCHES := $(wildcard tests/upstream/patches/*.patch)
$(SELFTESTBIN)/.stamp: $(HDRS)/.stamp Makefile tests/upstream/build-patched.sh $(UPSTREAM_PATCHES)
	@echo "selftests: building $(UPSTREAM_TESTS)"
	@mkdir -p $(SELFTESTBIN)
	@$(MAKE) -s -C $(KSFT)/mm OUTPUT=$(SELFTESTBIN) \
		KHDR_INCLUDES="-isystem $(HDRS)/usr/include" \
		EXTRA_CFLAGS="-static -include $(KSFT)/kselftest.h" LDFLAGS=-static \
		$(addprefix $(SELFTESTBIN)/,$(UPSTREAM_TESTS)) > $(SELFTESTBIN)/build.log 2>&1 || \
		{ tail -30 $(SELFTESTBIN)/build.log; exit 1; }
	@$(REPO)/tests/upstream/build-patched.sh $(KSFT) $(SELFTESTBIN) $(HDRS)
	@rm -f $(SELFTESTBIN)/*.o
	@touch $@

selftests: $(SELFTESTBIN)/.stamp

# --- initramfs --------------------------------------------------------------
initramfs: testprogs tools selftests
	@$(REPO)/tests/mkinitramfs.sh $(INITRAMFS) $(TESTBIN) $(SELFTESTBIN) $(TOOLBIN)

# --- host-side checks -------------------------------------------------------
checkpatch: source
	@$(REPO)/scripts/checkpatch-series.sh $(PRISTINE) $(REPO)

check: source
	@$(REPO)/scripts/host-checks.sh $(PRISTINE) $(REPO) $(LOGS)

# --- guest tests ------------------------------------------------------------
guest-test: kernel initramfs
	@rm -f $(LOGS)/feature.out.summary $(LOGS)/feature-zram.out.summary \
		$(LOGS)/tools.out.summary $(LOGS)/upstream.out.summary \
		$(LOGS)/cxl.out.summary $(LOGS)/devdax.out.summary
	@rc=0; \
	$(RUNGUEST) -t 1500 feature || rc=1; \
	PMSWAP_TAG=feature-zram $(RUNGUEST) -t 1500 -s zram feature || rc=1; \
	$(RUNGUEST) -t 900 -s none tools || rc=1; \
	$(RUNGUEST) -t 3600 -R -C 4 -b $(REPO)/tests/upstream/stock-failures.txt upstream || rc=1; \
	$(CXLGUEST) || rc=1; \
	$(DEVDAXGUEST) || rc=1; \
	exit $$rc

# A suite with swap on a device-dax instance (issue 19 item 1): the
# NVDIMM as a devdax namespace, handed from device_dax to the dax_swap
# driver, swap on /dev/daxswap0.0. make test runs the devdax suite
# (tests/guest/suites/devdax, about 60 s: the driver's own checks, the
# round trip, map in place, the regressions, the fuzzer, poison and the
# unbind under load); DEVDAX_SUITE=feature runs the whole feature suite.
DEVDAX_SUITE ?= devdax
DEVDAXGUEST = PMSWAP_TAG=$(if $(filter devdax,$(DEVDAX_SUITE)),devdax,$(DEVDAX_SUITE)-devdax) $(RUNGUEST) -t 2400 -s devdax $(DEVDAX_SUITE)
devdax-test: kernel initramfs
	@$(DEVDAXGUEST)

# A suite with swap on CXL persistent memory (QEMU's CXL type-3 device on
# a q35 machine, a region made with cxl create-region, an fsdax namespace
# on it): issue 19 item 2. make test runs the small suite
# (tests/guest/suites/cxl, about 75 s): QEMU 7.2 emulates every access to
# CXL memory, and the whole feature suite takes 974 s there
# (tests/results/cxl/feature-full.out), too long for make test's budget;
# CXL_SUITE=feature runs it.
# CXL_SUITE=cxl-devdax: a devdax namespace on the CXL region, through
# dax_swap (tests/guest/suites/cxl-devdax).
CXL_SUITE ?= cxl
CXL_SWAP ?= $(if $(filter cxl-devdax,$(CXL_SUITE)),cxl-devdax,cxl)
CXLGUEST = PMSWAP_TAG=$(if $(filter cxl%,$(CXL_SUITE)),$(CXL_SUITE),$(CXL_SUITE)-cxl) $(RUNGUEST) -t 3600 -X -s $(CXL_SWAP) $(CXL_SUITE)
cxl-test: kernel initramfs
	@$(CXLGUEST)

# The feature suite again on the debug kernel (KASAN, lockdep, DEBUG_VM).
debug-test: initramfs
	@$(MAKE) --no-print-directory kernel DEBUG=1
	@PMSWAP_TAG=feature-debug PMSWAP_KERNEL=$(BUILD)/obj-pmswap-debug/arch/x86/boot/bzImage \
		PMSWAP_INITRAMFS=$(INITRAMFS) $(REPO)/tests/run-guest.sh -o $(LOGS) -t 2400 -m 1536M feature

# Soak on the debug kernel: DURATION seconds (default 600).
DURATION ?= 600
soak: initramfs
	@$(MAKE) --no-print-directory kernel DEBUG=1
	@PMSWAP_TAG=soak PMSWAP_KERNEL=$(BUILD)/obj-pmswap-debug/arch/x86/boot/bzImage \
		PMSWAP_INITRAMFS=$(INITRAMFS) $(REPO)/tests/run-guest.sh -o $(LOGS) \
		-t $$(( $(DURATION) + 900 )) -m 1536M -R -a "pmswap.soak=$(DURATION)" soak

# One fuzzer run: make fuzz [SEED=N] [DURATION=S] [DEBUG=1] [SWAP=pmem|devdax|zram]
# [FUZZ_ARGS="--flip io --weight willneed=0 ..."]. The seed replays the
# operation sequence of every worker thread (see tests/fuzz/fuzz.c).
SEED ?= 1
SWAP ?= pmem
FUZZ_ARGS ?=
fuzz: initramfs
	@$(MAKE) --no-print-directory kernel
	@PMSWAP_TAG=fuzz-$(SEED) PMSWAP_STRICT_SKIPS=0 PMSWAP_KERNEL=$(BZIMAGE) PMSWAP_INITRAMFS=$(INITRAMFS) \
		$(REPO)/tests/run-guest.sh -o $(LOGS) -t $$(( $(DURATION) + 900 )) -m 1536M \
		-s $(SWAP) -a "pmswap.fuzz=$(SEED):$(DURATION):$(subst $(space),:,$(strip $(FUZZ_ARGS)))" fuzz-one

test: deps
	@start=$$(date +%s); rc=0; rm -f $(LOGS)/*.summary; \
	$(MAKE) --no-print-directory check || rc=1; \
	$(MAKE) --no-print-directory config-test || rc=1; \
	$(MAKE) --no-print-directory guest-test || rc=1; \
	$(MAKE) --no-print-directory debug-test || rc=1; \
	$(MAKE) --no-print-directory soak DURATION=120 || rc=1; \
	echo "make test: $$(( $$(date +%s) - start ))s"; \
	python3 $(REPO)/tests/check-results.py --total $(addprefix $(LOGS)/,$(TEST_SUMMARIES)) || rc=1; \
	exit $$rc

# Benchmarks on the kernels built for measuring (BENCH=1: no DEBUG_VM,
# KASAN or lockdep; configs/bench.config), stock and pmswap from the same
# fragments: stock swap on pmem, zram (lz4, zstd), pmem as a NUMA tier,
# and pmswap (copy, huge entries off, bio, the in-place policies). One
# boot per configuration and round, RUNS rounds, alternating (bench/run.sh).
# QUICK=1: four configurations, smaller workloads, 2 rounds; results go to
# bench/results (QUICK=1, CONFIGS or ONLY: build/bench-results).
QUICK ?= 0
RUNS ?= $(if $(filter 1,$(QUICK)),2,5)
# bench/results holds the full run only: a quick run or a subset writes
# to build/ unless BENCH_OUT says otherwise
BENCH_OUT ?= $(if $(filter 1,$(QUICK))$(CONFIGS)$(ONLY),$(BUILD)/bench-results,$(REPO)/bench/results)
# CONFIGS="a b ...": only these configurations (default: all of bench/run.sh)
CONFIGS ?=
# ONLY="press-global press-redis": only these workloads (default: all)
ONLY ?=
bench: deps initramfs
	@$(MAKE) --no-print-directory kernel BENCH=1
	@$(MAKE) --no-print-directory kernel STOCK=1 BENCH=1
	@BENCH_CONFIGS="$(CONFIGS)" BENCH_ONLY="$(ONLY)" $(REPO)/bench/run.sh $(REPO) $(BUILD) $(QUICK) $(RUNS) $(BENCH_OUT)

# Where a THP round trip's time goes: ftrace function profile on the
# stock and the pmswap kernel built for measuring (bench/results/profile).
profile: deps initramfs
	@$(MAKE) --no-print-directory kernel BENCH=1
	@$(MAKE) --no-print-directory kernel STOCK=1 BENCH=1
	@$(REPO)/bench/profile.sh $(REPO) $(BUILD) $(REPO)/bench/results/profile

upstream-baseline:
	@$(MAKE) --no-print-directory kernel initramfs STOCK=1
	@PMSWAP_TAG=upstream-stock PMSWAP_STRICT_SKIPS=0 PMSWAP_KERNEL=$(BUILD)/obj-stock/arch/x86/boot/bzImage \
		PMSWAP_INITRAMFS=$(INITRAMFS) $(REPO)/tests/run-guest.sh -o $(LOGS) -t 3600 -R -C 4 upstream || true
	@$(REPO)/tests/upstream/make-baseline.sh $(LOGS)/upstream-stock.out > $(REPO)/tests/upstream/stock-failures.txt
	@echo "wrote tests/upstream/stock-failures.txt:"; cat $(REPO)/tests/upstream/stock-failures.txt

# --- interactive -------------------------------------------------------------
run: kernel initramfs
	@$(RUNGUEST) -n -p -t 1200 -s none demo | $(REPO)/tests/demo-report.sh

shell: kernel initramfs
	@$(RUNGUEST) shell

clean:
	rm -rf $(OBJ) $(TESTBIN) $(SELFTESTBIN) $(INITRAMFS) $(LOGS)
