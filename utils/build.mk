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

$(BUILD)/obj/utils/aifs/%.o: private USER_CFLAGS += $(LIBAIFS_CFLAGS)

$(BIN)/aifs: $(BUILD)/obj/utils/aifs/aifs.o $(BUILD)/obj/utils/aifs/layout.o \
		$(BUILD)/obj/utils/aifs/archive.o \
		$(LIBAIFS) $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS)
