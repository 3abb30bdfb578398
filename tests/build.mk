# Test helpers built with the userspace parts.
USER_PROGS += $(BIN)/aifs-try-mount

$(BIN)/aifs-try-mount: $(BUILD)/obj/tests/helpers/try_mount.o
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^

USER_PROGS += $(BIN)/aifs-put

$(BUILD)/obj/tests/helpers/aifs_put.o: private USER_CFLAGS += $(LIBAIFS_CFLAGS)

$(BIN)/aifs-put: $(BUILD)/obj/tests/helpers/aifs_put.o $(LIBAIFS) $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS)

USER_PROGS += $(BIN)/aifs-fsx

$(BIN)/aifs-fsx: $(BUILD)/obj/tests/helpers/aifs_fsx.o
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^

# The data servers' syncs, logged for tests/servers/ds-durability.c: a
# library preloaded into them (not instrumented in the AddressSanitizer
# build either: it only passes the calls on).
USER_PROGS += $(BUILD)/lib/aifs-sync-log.so

$(BUILD)/lib/aifs-sync-log.so: tests/helpers/sync_log.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fPIC \
		-shared -o $@ $< -ldl
