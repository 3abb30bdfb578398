/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A minimal test harness: CHECK() and CHECK_EQ() report a failure with its
 * place and the message being tested (test_ctx), and carry on;
 * test_result() is the exit status.
 */
#ifndef AIFS_TEST_H
#define AIFS_TEST_H

#include <stdio.h>

static int test_failures;
static int test_checks;
static char test_ctx[256];

#define TEST_CTX(...) snprintf(test_ctx, sizeof(test_ctx), __VA_ARGS__)

#define CHECK_EQ(a, b)							\
do {									\
	long long _a = (long long)(a), _b = (long long)(b);		\
									\
	test_checks++;							\
	if (_a != _b) {							\
		fprintf(stderr, "%s:%d: [%s] %s is %lld, expected %s = %lld\n", \
			__FILE__, __LINE__, test_ctx, #a, _a, #b, _b);	\
		test_failures++;					\
	}								\
} while (0)

#define CHECK(cond)	CHECK_EQ(!!(cond), 1)

static inline int test_result(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, test_checks, test_failures);
	return test_failures ? 1 : 0;
}

#endif /* AIFS_TEST_H */
