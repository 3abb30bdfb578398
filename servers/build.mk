# servers: the runtime shared by aifs-mds and aifs-ds (servers/common), and
# the test programs built on it (tests/servers: run by 'make test-servers').
LIBSERVER := $(BUILD)/lib/libaifsserver.a
LIBSERVER_SRCS := $(addprefix servers/common/,log.c config.c loop.c tcp.c rdma.c \
	peer.c handshake.c workers.c server.c program.c fail.c ec.c \
	metrics.c metrics_http.c)
# Jerasure's headers include each other by bare name (no .pc file says so)
EC_CFLAGS := -I/usr/include/jerasure
LIBSERVER_CFLAGS := -Iservers/common/include $(EC_CFLAGS) $(LIBAIFS_CFLAGS)
# Link a server with: $(LIBSERVER) $(LIBAIFS) $(LIBPROTO) $(LIBSERVER_LIBS)
LIBSERVER_LIBS := -linih -lsystemd -lmicrohttpd -lJerasure -lgf_complete $(LIBAIFS_LIBS)
SERVER_LINK := $(LIBSERVER) $(LIBAIFS) $(LIBPROTO)

$(LIBSERVER_SRCS:%.c=$(BUILD)/obj/%.o): private USER_CFLAGS += $(LIBSERVER_CFLAGS)

$(LIBSERVER): $(LIBSERVER_SRCS:%.c=$(BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# The erasure code's unit test, from source with the sanitizers.
UNIT_TESTS += $(BUILD)/tests/unit/ec-codec

$(BUILD)/tests/unit/ec-codec: tests/unit/ec/ec_test.c servers/common/ec.c \
		servers/common/include/aifs/ec.h tests/unit/test.h
	@mkdir -p $(dir $@)
	$(CC) $(PROTO_TEST_CFLAGS) -Iservers/common/include $(EC_CFLAGS) -o $@ \
		$(filter %.c,$^) -lJerasure -lgf_complete -lpthread

# Test programs: the echo server and the protocol conformance peer in
# build/bin (aifs-NAME from tests/servers/NAME.c, '-' for '_'), the C tests
# that scripts/run-tests finds in build/tests/servers (NAME from NAME.c
# and testutil.c, which the DS and MDS harnesses build on too).
SERVER_TEST_DIR := $(BUILD)/tests/servers
TEST_UTIL := $(BUILD)/obj/tests/servers/testutil.o
DS_HARNESS := $(BUILD)/obj/tests/servers/ds-harness.o $(TEST_UTIL)
MDS_HARNESS := $(BUILD)/obj/tests/servers/mds_harness.o $(TEST_UTIL)
SERVER_TEST_PROGS := echo-server proto-peer
SERVER_TESTS := libaifs-client libaifs-messages
USER_PROGS += $(SERVER_TEST_PROGS:%=$(BIN)/aifs-%) \
	$(SERVER_TESTS:%=$(SERVER_TEST_DIR)/%)
server_test_obj = $(BUILD)/obj/tests/servers/$(subst -,_,$(1)).o

$(BUILD)/obj/tests/servers/%.o: private USER_CFLAGS += $(LIBSERVER_CFLAGS)
$(BUILD)/obj/bench/mds_bench.o: private USER_CFLAGS += $(LIBAIFS_CFLAGS)

define SERVER_TEST_PROG_RULE
$(BIN)/aifs-$(1): $(call server_test_obj,$(1)) $(SERVER_LINK)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(USER_CFLAGS) -o $$@ $$^ $$(LIBSERVER_LIBS)
endef

define SERVER_TEST_RULE
$(SERVER_TEST_DIR)/$(1): $(call server_test_obj,$(1)) $(TEST_UTIL) \
		$(LIBAIFS) $(LIBPROTO)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(USER_CFLAGS) -o $$@ $$^ $$(LIBAIFS_LIBS)
endef

$(foreach p,$(SERVER_TEST_PROGS),$(eval $(call SERVER_TEST_PROG_RULE,$(p))))
$(foreach t,$(SERVER_TESTS),$(eval $(call SERVER_TEST_RULE,$(t))))

# aifs-ds, the data server (servers/ds; Documentation/ds.md).
DS_SRCS := $(addprefix servers/ds/,main.c identity.c store.c crc.c block.c \
	io.c replicate.c resync.c scrub.c sync.c statfs.c mds_link.c ec.c \
	undo.c intent.c metrics.c repair.c held.c)
USER_PROGS += $(BIN)/aifs-ds

$(DS_SRCS:%.c=$(BUILD)/obj/%.o): private USER_CFLAGS += $(LIBSERVER_CFLAGS)

$(BIN)/aifs-ds: $(DS_SRCS:%.c=$(BUILD)/obj/%.o) $(SERVER_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBSERVER_LIBS)

# aifs-mds, the metadata server (Documentation/mds.md).
MDS_SRCS := $(addprefix servers/mds/,main.c db.c reply.c perm.c inode.c \
	dir.c namei.c rename.c xattr.c open.c layout.c clustermap.c writer.c \
	replycache.c check.c repair.c fsck.c bg.c chunkq.c recovery.c acl.c \
	archive.c metrics.c space.c)
USER_PROGS += $(BIN)/aifs-mds

$(MDS_SRCS:%.c=$(BUILD)/obj/%.o): private USER_CFLAGS += $(LIBSERVER_CFLAGS)

$(BIN)/aifs-mds: $(MDS_SRCS:%.c=$(BUILD)/obj/%.o) $(SERVER_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBSERVER_LIBS) -llmdb

# The aifs-ds tests (tests/servers/ds-*.c), each with the shared harness.
DS_TESTS := $(addprefix $(SERVER_TEST_DIR)/,ds-io ds-replication ds-integrity \
	ds-enospc ds-forward ds-punch ds-rdma ds-scrub ds-fail ds-durability)
USER_PROGS += $(DS_TESTS)

$(DS_TESTS): $(SERVER_TEST_DIR)/%: $(BUILD)/obj/tests/servers/%.o \
		$(DS_HARNESS) $(LIBAIFS) $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS)

# The EC stripe test checks the parity with the codec itself.
USER_PROGS += $(SERVER_TEST_DIR)/ds-ec

$(SERVER_TEST_DIR)/ds-ec: $(BUILD)/obj/tests/servers/ds-ec.o $(DS_HARNESS) \
		$(BUILD)/obj/servers/common/ec.o $(LIBAIFS) $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS) -lJerasure -lgf_complete

# The MDS's tests: build/tests/servers/mds-*, run by scripts/run-tests.
MDS_TESTS := ops crash close dsid opens acl
USER_PROGS += $(MDS_TESTS:%=$(SERVER_TEST_DIR)/mds-%)
.SECONDARY: $(MDS_HARNESS) $(MDS_TESTS:%=$(BUILD)/obj/tests/servers/mds_%.o)

$(SERVER_TEST_DIR)/mds-%: $(BUILD)/obj/tests/servers/mds_%.o $(MDS_HARNESS) \
		$(LIBAIFS) $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS)

# The load generator of bench/ds-bench (a benchmark, never a test).
USER_PROGS += $(BUILD)/bench/ds-load

$(BUILD)/bench/ds-load: $(BUILD)/obj/bench/ds-load.o $(LIBAIFS) $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS)

$(BUILD)/obj/bench/ds-load.o: private USER_CFLAGS += $(LIBAIFS_CFLAGS)

# bench/mds-bench runs this (not a test).
USER_PROGS += $(BIN)/aifs-mds-bench

$(BIN)/aifs-mds-bench: $(BUILD)/obj/bench/mds_bench.o $(MDS_HARNESS) \
		$(LIBAIFS) $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS)

# The tests of aifs-mds and aifs-ds together (tests/servers/cluster-*.c).
CLUSTER_TESTS := $(addprefix $(SERVER_TEST_DIR)/,cluster-chunkq \
	cluster-truncate cluster-resync \
	cluster-membership cluster-drain cluster-sync cluster-rebuild \
	cluster-fsck cluster-mapepoch cluster-nemesis)
USER_PROGS += $(CLUSTER_TESTS)

$(CLUSTER_TESTS): $(SERVER_TEST_DIR)/%: $(BUILD)/obj/tests/servers/%.o \
		$(BUILD)/obj/tests/servers/cluster-harness.o $(DS_HARNESS) \
		$(MDS_HARNESS) $(LIBAIFS) $(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS)

# cluster-ec and cluster-archive check the fragments with the codec itself.
CLUSTER_EC_TESTS := $(addprefix $(SERVER_TEST_DIR)/,cluster-ec cluster-archive)
USER_PROGS += $(CLUSTER_EC_TESTS)

$(CLUSTER_EC_TESTS): $(SERVER_TEST_DIR)/%: $(BUILD)/obj/tests/servers/%.o \
		$(BUILD)/obj/tests/servers/cluster-harness.o $(DS_HARNESS) \
		$(MDS_HARNESS) $(BUILD)/obj/servers/common/ec.o $(LIBAIFS) \
		$(LIBPROTO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ $(LIBAIFS_LIBS) -lJerasure -lgf_complete

# cluster-fsck plants damage in the MDS's tables with LMDB itself.
$(BUILD)/obj/tests/servers/cluster-fsck.o: private USER_CFLAGS += \
	$(LIBSERVER_CFLAGS)
$(SERVER_TEST_DIR)/cluster-fsck: private LIBAIFS_LIBS += -llmdb

# bench/ec-bench runs this (not a test): the codec next to ISA-L.
USER_PROGS += $(BUILD)/bench/ec-bench

$(BUILD)/obj/bench/ec_bench.o: private USER_CFLAGS += $(LIBSERVER_CFLAGS)

$(BUILD)/bench/ec-bench: $(BUILD)/obj/bench/ec_bench.o $(LIBSERVER)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ -lJerasure -lgf_complete -lisal -lpthread
