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

# Test programs: the echo server and the protocol conformance peer in
# build/bin (aifs-NAME from tests/servers/NAME.c, '-' for '_'), the C tests
# that scripts/run-tests finds in build/tests/servers (NAME from NAME.c
# and testutil.c).
SERVER_TEST_DIR := $(BUILD)/tests/servers
SERVER_TEST_PROGS := echo-server proto-peer
SERVER_TESTS := libaifs-client libaifs-messages
USER_PROGS += $(SERVER_TEST_PROGS:%=$(BIN)/aifs-%) \
	$(SERVER_TESTS:%=$(SERVER_TEST_DIR)/%)
server_test_obj = $(BUILD)/obj/tests/servers/$(subst -,_,$(1)).o

$(BUILD)/obj/tests/servers/%.o: private USER_CFLAGS += $(LIBSERVER_CFLAGS)

define SERVER_TEST_PROG_RULE
$(BIN)/aifs-$(1): $(call server_test_obj,$(1)) $(SERVER_LINK)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(USER_CFLAGS) -o $$@ $$^ $$(LIBSERVER_LIBS)
endef

define SERVER_TEST_RULE
$(SERVER_TEST_DIR)/$(1): $(call server_test_obj,$(1)) \
		$(BUILD)/obj/tests/servers/testutil.o $(LIBAIFS) $(LIBPROTO)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(USER_CFLAGS) -o $$@ $$^ $$(LIBAIFS_LIBS)
endef

$(foreach p,$(SERVER_TEST_PROGS),$(eval $(call SERVER_TEST_PROG_RULE,$(p))))
$(foreach t,$(SERVER_TESTS),$(eval $(call SERVER_TEST_RULE,$(t))))
