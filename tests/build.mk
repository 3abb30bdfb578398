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
