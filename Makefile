# aifs: a distributed file system for AI training.
#
#   make              build the kernel module and the userspace parts
#   make deps         install every package building, testing and the demo need
#   make test         unit, server, VM and fault tests; ends "N passed, N failed"
#   make test-unit | test-servers | test-vm | test-faults   one layer
#   make bench        benchmarks, side by side with peers (Documentation/performance.md)
#   make demo         the main job, shown
#   make install      install (DESTDIR honoured)
#   make vm-shell     an interactive shell in the test guest

KVER := $(shell scripts/kver.sh 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build
BUILD := $(CURDIR)/build
BIN := $(BUILD)/bin
RESULTS := $(BUILD)/test-results.txt

CC ?= cc
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-fstack-protector-strong $(CFLAGS)

# Test-only kernel modules, never installed.
TEST_KMODS := tests/harness/kmod

USER_PROGS := $(BIN)/aifs-try-mount

.PHONY: all kmod user test-kmods deps test test-unit test-servers test-vm \
	test-faults bench demo install clean vm-shell check-kernel-headers

all: kmod user

check-kernel-headers:
	@test -f "$(KDIR)/Makefile" || { \
		echo "no kernel headers at $(KDIR): run 'make deps' or set KDIR" >&2; \
		exit 1; }

# W=1 and -Werror: the module builds with no warning at all.
kmod: check-kernel-headers
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod W=1 KCFLAGS=-Werror modules

test-kmods: check-kernel-headers
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(TEST_KMODS) W=1 KCFLAGS=-Werror modules

user: $(USER_PROGS)

$(BIN)/aifs-try-mount: tests/helpers/try_mount.c
	@mkdir -p $(BIN)
	$(CC) $(USER_CFLAGS) -o $@ $<

deps:
	@scripts/deps.sh

# Every layer runs even when an earlier one fails; the summary judges.
test: deps
	@mkdir -p $(BUILD); rm -f $(RESULTS)
	@if $(MAKE) --no-print-directory all test-kmods >$(BUILD)/build.log 2>&1; then \
		echo "PASS: build" | tee -a $(RESULTS); \
		for layer in unit servers vm faults; do \
			AIFS_RESULTS=$(RESULTS) scripts/run-tests $$layer; \
		done; \
	else \
		tail -n 40 $(BUILD)/build.log; \
		echo "FAIL: build (see $(BUILD)/build.log)" | tee -a $(RESULTS); \
	fi
	@scripts/test-summary $(RESULTS)

test-unit: all
	@scripts/run-tests unit

test-servers: all
	@scripts/run-tests servers

test-vm: all test-kmods
	@scripts/run-tests vm

test-faults: all
	@scripts/run-tests faults

bench: deps all
	@scripts/run-bench

demo: deps all
	@scripts/demo.sh

vm-shell: all
	@scripts/vm/shell

install: all
	@scripts/install.sh "$(DESTDIR)"

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean >/dev/null 2>&1
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/$(TEST_KMODS) clean >/dev/null 2>&1
	rm -rf $(BUILD)
