# The benchmark suite's own tools (bench/suite), run in a guest on any
# mounted file system: plain POSIX and pthreads, nothing of aifs.
BENCH_SUITE_TOOLS := $(BUILD)/bench/aifs-mdtest $(BUILD)/bench/aifs-loader
USER_PROGS += $(BENCH_SUITE_TOOLS)

$(BENCH_SUITE_TOOLS): $(BUILD)/bench/aifs-%: $(BUILD)/obj/bench/suite/%.o \
		$(BUILD)/obj/bench/suite/tool.o
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $^ -lpthread
