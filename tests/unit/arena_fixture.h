/* arena_fixture.h: the checked fixture most suites use: a fresh arena and
 * a cleared diagnostic per test (tcase_add_checked_fixture(t, setup,
 * teardown)). Included once per test program. */
#ifndef OXP_TEST_ARENA_FIXTURE_H
#define OXP_TEST_ARENA_FIXTURE_H

#include "oxp.h"

static oxp_arena *A;
static oxp_diag D;

static void setup(void) {
  A = oxp_arena_new();
  oxp_diag_clear(&D);
}

static void teardown(void) { oxp_arena_free(A); }

#endif
