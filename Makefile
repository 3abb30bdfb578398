# aifs: a distributed file system for AI training.
#
#   make              build the kernel module and the userspace parts
#   make deps         install every package building and testing need
#   make deps-demo    and those of make demo and make bench (PyTorch, matplotlib)
#   make test         unit, server, VM and fault tests; ends "N passed, N failed"
#   make test-unit | test-servers | test-vm | test-faults   one layer
#   make test-servers-asan   the servers layer on AddressSanitizer builds
#   make test-long    aifs-fsx, 200,000 ops per mode, on the host and on aifs
#                     in the VM (Documentation/testing-tools.md), and the
#                     VM groups and fsx again on Debian's 6.12 and 7.3; the
#                     replica kill test on 1 GiB files; the nemesis tests
#                     with 12 random seeds each (hours)
#   make kmod-matrix  aifs.ko against the host's kernel and Debian's 6.12 and
#                     7.3 (their headers fetched once into build/kernels/)
#   make bench        the benchmark suite: aifs, NFS and tmpfs side by side in one guest
#                     boot (Documentation/performance.md);
#                     QUICK=1 a short run, ONLY="read-bench ec-bench" others, ONLY=all
#   make demo         the main job, shown
#   make install      install (DESTDIR honoured; the module as DKMS source,
#                     scripts/install.sh, Documentation/admin-guide.md)
#   make vm-shell     an interactive shell in the test guest

KVER := $(shell scripts/kver.sh 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build
BUILD := $(CURDIR)/build
BIN := $(BUILD)/bin
RESULTS := $(BUILD)/test-results.txt

CC ?= cc
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-fstack-protector-strong -MMD -MP -Ilibproto/include $(CFLAGS)

# Test-only kernel modules, never installed.
TEST_KMODS := tests/harness/kmod

# Each part adds its programs and libraries in its own build.mk:
#   USER_PROGS   programs in build/bin (built by 'make')
#   UNIT_TESTS   C unit test programs in build/tests/unit (run by test-unit)
#   FUZZ_PROGS   libFuzzer targets in build/fuzz (run briefly by test-unit)
USER_PROGS :=
UNIT_TESTS :=
FUZZ_PROGS :=
.DEFAULT_GOAL := all
include libproto/build.mk
include utils/build.mk
include servers/build.mk
include bench/build.mk
include tests/build.mk

.PHONY: all kmod kmod-matrix user fuzz asan test-kmods deps deps-demo test test-unit test-servers \
	test-servers-asan test-vm test-faults test-long bench demo install clean vm-shell \
	check-kernel-headers

all: kmod user

check-kernel-headers:
	@test -f "$(KDIR)/Makefile" || { \
		echo "no kernel headers at $(KDIR): run 'make deps' or set KDIR" >&2; \
		exit 1; }

# W=1 and -Werror: the module builds with no warning at all.
kmod: check-kernel-headers
	@kmod/configure $(KDIR)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod W=1 KCFLAGS=-Werror modules

# aifs.ko against every kernel of scripts/kernels/kernels and the host's,
# a line each (Documentation/kernel-client.md, "Kernels").
kmod-matrix:
	@scripts/kmod-matrix

test-kmods: check-kernel-headers
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(TEST_KMODS) W=1 KCFLAGS=-Werror modules

user: $(USER_PROGS) $(UNIT_TESTS)

fuzz: $(FUZZ_PROGS)

# The userspace parts and the server tests again with AddressSanitizer, in
# build/asan, for the servers layer's second run (scripts/run-tests
# servers-asan): a use after free or a bad free in a server fails a test
# even when the test would not notice the server's death.
asan:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/asan \
		CFLAGS="-fsanitize=address -fno-omit-frame-pointer" user

# Objects of userspace sources, mirrored under build/obj.
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -c -o $@ $<

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

deps:
	@scripts/deps.sh

deps-demo:
	@scripts/deps.sh demo

# Every layer runs even when an earlier one fails; the summary judges.
# The servers layer runs beside the guests (scripts/run-suite).
# The build uses every CPU (make test is one command, not a -j of its own).
NPROC := $(shell nproc 2>/dev/null || echo 1)
test: deps
	@mkdir -p $(BUILD); rm -f $(RESULTS)
	@if $(MAKE) --no-print-directory -j$(NPROC) all test-kmods fuzz asan >$(BUILD)/build.log 2>&1; then \
		echo "PASS: build" | tee -a $(RESULTS); \
		AIFS_RESULTS=$(RESULTS) scripts/run-suite || :; \
	else \
		tail -n 40 $(BUILD)/build.log; \
		echo "FAIL: build (see $(BUILD)/build.log)" | tee -a $(RESULTS); \
	fi
	@scripts/test-summary $(RESULTS)

test-unit: all fuzz
	@scripts/run-tests unit

test-servers: all
	@scripts/run-tests servers

test-servers-asan: all asan
	@scripts/run-tests servers-asan

test-vm: all test-kmods
	@scripts/run-tests vm

test-faults: all
	@scripts/run-tests faults

test-long: all test-kmods
	@AIFS_FSX_OPS=200000 tests/unit/fsx-local.sh
	@AIFS_FSX_OPS=200000 scripts/vm/run -n long -t 14400 tests/vm/write/05-fsx*.sh
	@status=0; for k in $$(awk '!/^#/ && NF { print $$1 }' scripts/kernels/kernels); do \
		tests/unit/dkms-build.sh "$$k" || status=1; \
		AIFS_VM_KERNEL=$$k scripts/run-tests vm || status=1; \
		AIFS_VM_KERNEL=$$k AIFS_FSX_OPS=200000 scripts/vm/run -n long-$$k \
			-t 14400 tests/vm/write/05-fsx*.sh || status=1; \
	done; exit $$status
	@AIFS_FAULT_MIB=1024 VM_MEM=5G scripts/vm/run -n long-faults -t 3600 \
		tests/faults/replica/01-killed.sh
	@AIFS_NEMESIS_SEEDS="$$(shuf -i 1000-999999 -n 12)" AIFS_NEMESIS_FAULTS=8 VM_MEM=5G \
		scripts/vm/run -n long-nemesis -t 3000 tests/faults/nemesis/*.sh
	@AIFS_TOP=$(CURDIR) AIFS_BUILD=$(BUILD) PATH=$(BUILD)/bin:$$PATH \
		AIFS_NEMESIS_SEEDS="$$(shuf -i 1000-999999 -n 20)" \
		$(BUILD)/tests/servers/cluster-nemesis

bench: deps-demo all
	@scripts/run-bench

demo: deps-demo all
	@scripts/demo.sh

vm-shell: all
	@scripts/vm/shell

install: all
	@scripts/install.sh "$(DESTDIR)"

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean >/dev/null 2>&1
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/$(TEST_KMODS) clean >/dev/null 2>&1
	rm -rf $(BUILD)
