# servers: the runtime shared by aifs-mds and aifs-ds (servers/common), and
# the test programs built on it (tests/servers: run by 'make test-servers').
LIBSERVER := $(BUILD)/lib/libaifsserver.a
LIBSERVER_SRCS := $(addprefix servers/common/,log.c config.c loop.c tcp.c \
	peer.c handshake.c workers.c server.c)
LIBSERVER_CFLAGS := -Iservers/common/include $(LIBAIFS_CFLAGS)
# Link a server with: $(LIBSERVER) $(LIBAIFS) $(LIBPROTO) $(LIBSERVER_LIBS)
LIBSERVER_LIBS := -linih -lsystemd $(LIBAIFS_LIBS)
SERVER_LINK := $(LIBSERVER) $(LIBAIFS) $(LIBPROTO)

$(LIBSERVER_SRCS:%.c=$(BUILD)/obj/%.o): private USER_CFLAGS += $(LIBSERVER_CFLAGS)

$(LIBSERVER): $(LIBSERVER_SRCS:%.c=$(BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# Test programs: the echo server in build/bin, the C tests that
# scripts/run-tests finds in build/tests/servers.
SERVER_TEST_DIR := $(BUILD)/tests/servers
USER_PROGS += $(BIN)/aifs-echo-server $(SERVER_TEST_DIR)/libaifs-client

$(BUILD)/obj/tests/servers/%.o: private USER_CFLAGS += $(LIBSERVER_CFLAGS)

$(BIN)/aifs-echo-server: $(BUILD)/obj/tests/servers/echo_server.o $(SERVER_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBSERVER_LIBS)

$(SERVER_TEST_DIR)/libaifs-client: $(BUILD)/obj/tests/servers/libaifs_client.o \
		$(LIBAIFS) $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS)
