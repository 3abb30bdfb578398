# Test helpers built with the userspace parts.
USER_PROGS += $(BIN)/aifs-try-mount

$(BIN)/aifs-try-mount: $(BUILD)/obj/tests/helpers/try_mount.o
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^
