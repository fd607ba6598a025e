/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_base.c -- tack_base.c: the status codes and their sentences.
 */
#include <string.h>

#include "tests.h"
#include "tack_base.h"

START_TEST(status_strings_are_distinct_and_not_empty)
{
    int i, j;

    for (i = 0; i < TACK_STATUS_COUNT; i++) {
        const char *a = tack_status_str((tack_status_t)i);

        ck_assert_msg(a != NULL, "status %d has no string", i);
        ck_assert_msg(*a != '\0', "status %d has an empty string", i);
        for (j = 0; j < i; j++) {
            const char *b = tack_status_str((tack_status_t)j);

            ck_assert_msg(strcmp(a, b) != 0,
                          "statuses %d and %d share the string \"%s\"", j, i,
                          a);
        }
    }
}
END_TEST

START_TEST(status_strings_of_unknown_values_are_not_null)
{
    static const int unknown[] = {TACK_STATUS_COUNT, TACK_STATUS_COUNT + 1,
                                  1000, -1, 0x7fffffff};
    size_t i;

    for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        const char *s = tack_status_str((tack_status_t)unknown[i]);

        ck_assert_msg(s != NULL, "status %d gives NULL", unknown[i]);
        ck_assert_msg(*s != '\0', "status %d gives \"\"", unknown[i]);
    }
}
END_TEST

START_TEST(status_ok_is_zero)
{
    ck_assert_int_eq(TACK_OK, 0);
}
END_TEST

Suite *base_suite(void)
{
    Suite *s = suite_create("base");
    TCase *status = tcase_create("status");

    tcase_add_test(status, status_strings_are_distinct_and_not_empty);
    tcase_add_test(status, status_strings_of_unknown_values_are_not_null);
    tcase_add_test(status, status_ok_is_zero);
    suite_add_tcase(s, status);
    return s;
}
