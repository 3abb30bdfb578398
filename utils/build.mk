# utils: libaifs, the userspace client library of the wire protocol (the
# admin tools will join it here).
LIBAIFS := $(BUILD)/lib/libaifs.a
LIBAIFS_SRCS := $(addprefix utils/libaifs/,secret.c auth.c addr.c frame.c \
	handshake.c stream.c conn.c ops.c rdma.c)
LIBAIFS_CFLAGS := -Iutils/libaifs/include
# Link a libaifs user with: $(LIBAIFS) $(LIBPROTO) $(LIBAIFS_LIBS)
LIBAIFS_LIBS := -lcrypto -lrdmacm -libverbs -lpthread $(LIBPROTO_LIBS)

$(LIBAIFS_SRCS:%.c=$(BUILD)/obj/%.o): private USER_CFLAGS += $(LIBAIFS_CFLAGS)

$(LIBAIFS): $(LIBAIFS_SRCS:%.c=$(BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# mount.aifs, the mount(8) helper.
USER_PROGS += $(BIN)/mount.aifs

$(BUILD)/obj/utils/mount/%.o: private USER_CFLAGS += $(LIBAIFS_CFLAGS)

$(BIN)/mount.aifs: $(BUILD)/obj/utils/mount/mount_aifs.o $(LIBAIFS) $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS)

# aifs, the administration command.
USER_PROGS += $(BIN)/aifs

# It reads the module's statistics over generic netlink (libnl-genl) and
# prints JSON with json-c.
AIFS_CLI_CFLAGS := $(LIBAIFS_CFLAGS) \
	$(shell pkg-config --cflags libnl-genl-3.0 json-c 2>/dev/null)
AIFS_CLI_LIBS := $(shell pkg-config --libs libnl-genl-3.0 json-c 2>/dev/null)
AIFS_CLI_OBJS := $(addprefix $(BUILD)/obj/utils/aifs/,aifs.o layout.o \
	archive.o status.o stats.o genl.o mounts.o latency.o repairs.o)

$(BUILD)/obj/utils/aifs/%.o: private USER_CFLAGS += $(AIFS_CLI_CFLAGS)

$(BIN)/aifs: $(AIFS_CLI_OBJS) $(LIBAIFS) $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS) $(AIFS_CLI_LIBS)

# The percentiles of the latency histograms, tested on their own.
UNIT_TESTS += $(BUILD)/tests/unit/cli-latency

$(BUILD)/tests/unit/cli-latency: tests/unit/cli/latency_test.c \
		utils/aifs/latency.c utils/aifs/latency.h \
		libproto/include/aifs/aifs_genl.h tests/unit/test.h
	@mkdir -p $(dir $@)
	$(CC) $(PROTO_TEST_CFLAGS) -o $@ $(filter %.c,$^)
