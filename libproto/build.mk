# libproto: the wire codec, as a static library for userspace (the kernel
# module compiles proto.c itself), its unit tests and its fuzz targets.
LIBPROTO := $(BUILD)/lib/libaifsproto.a
LIBPROTO_SRCS := libproto/proto.c libproto/user/crc32c.c
LIBPROTO_LIBS := -lisal

$(LIBPROTO): $(LIBPROTO_SRCS:%.c=$(BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# Tests and fuzz targets compile the codec from source with the sanitizers
# (the library objects have none), so they list their headers themselves.
PROTO_HDRS := $(wildcard libproto/include/aifs/*.h) libproto/fuzz/samples.h \
	libproto/fuzz/fuzz.h
PROTO_SAMPLES := libproto/fuzz/samples.c
PROTO_TEST_CFLAGS := $(filter-out -MMD -MP,$(USER_CFLAGS)) -Ilibproto/fuzz -Itests/unit \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

UNIT_TESTS += $(BUILD)/tests/unit/proto-codec $(BUILD)/tests/unit/proto-frame

$(BUILD)/tests/unit/proto-%: tests/unit/proto/%_test.c $(PROTO_SAMPLES) \
		$(LIBPROTO_SRCS) $(PROTO_HDRS) tests/unit/test.h
	@mkdir -p $(dir $@)
	$(CC) $(PROTO_TEST_CFLAGS) -o $@ $(filter %.c,$^) $(LIBPROTO_LIBS)

# libFuzzer targets (clang), and the writer of their seed corpora.
FUZZ_CC := clang
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -Wall -Wextra -Werror -D_GNU_SOURCE \
	-Ilibproto/include -Ilibproto/fuzz

FUZZ_PROGS += $(BUILD)/fuzz/fuzz_msg $(BUILD)/fuzz/fuzz_frame \
	$(BUILD)/fuzz/proto-seeds

$(BUILD)/fuzz/fuzz_%: libproto/fuzz/fuzz_%.c $(LIBPROTO_SRCS) $(PROTO_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) $(LIBPROTO_LIBS)

$(BUILD)/fuzz/proto-seeds: libproto/fuzz/seeds.c $(PROTO_SAMPLES) \
		$(LIBPROTO_SRCS) $(PROTO_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(USER_CFLAGS)) -Ilibproto/fuzz -o $@ \
		$(filter %.c,$^) $(LIBPROTO_LIBS)
