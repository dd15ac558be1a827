/* check_main.h: what every Check program's main() does: run the suite,
 * exit non-zero on any failure. */
#ifndef OXP_CHECK_MAIN_H
#define OXP_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int oxp_check_run(Suite *s) {
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
