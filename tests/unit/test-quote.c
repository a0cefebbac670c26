// SPDX-License-Identifier: MIT
/*
 * test-quote.c - pebs_csv__str and pebs_json__str: plain fields as they
 * are, RFC 4180 quoting, JSON escapes of quotes, backslashes and
 * control characters, bytes above 0x7f untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pebsshim.h"

static void check(void (*put)(FILE *, const char *), const char *in,
		  const char *want)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	put(f, in);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_csv(void **state)
{
	(void)state;
	check(pebs_csv__str, "", "");
	check(pebs_csv__str, "main [.] x+0x1", "main [.] x+0x1");
	check(pebs_csv__str, "a,b", "\"a,b\"");
	check(pebs_csv__str, "say \"hi\"", "\"say \"\"hi\"\"\"");
	check(pebs_csv__str, "two\nlines", "\"two\nlines\"");
	check(pebs_csv__str, "cr\r", "\"cr\r\"");
	check(pebs_csv__str, "tab\tand \\", "tab\tand \\");
}

static void test_json(void **state)
{
	(void)state;
	check(pebs_json__str, "", "\"\"");
	check(pebs_json__str, "a,b", "\"a,b\"");
	check(pebs_json__str, "q\"b\\", "\"q\\\"b\\\\\"");
	check(pebs_json__str, "t\tn\n\x01\x1f", "\"t\\u0009n\\u000a\\u0001\\u001f\"");
	check(pebs_json__str, "caf\xc3\xa9 \x7f", "\"caf\xc3\xa9 \x7f\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
