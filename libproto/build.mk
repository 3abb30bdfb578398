# libproto: the wire codec, as a static library for userspace (the kernel
# module compiles proto.c itself).
LIBPROTO := $(BUILD)/lib/libaifsproto.a
LIBPROTO_SRCS := libproto/proto.c libproto/user/crc32c.c
LIBPROTO_LIBS := -lisal

$(LIBPROTO): $(LIBPROTO_SRCS:%.c=$(BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^
