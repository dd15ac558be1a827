/* st_build.h: test helper that assembles safetensors bytes from a JSON
 * header written in the test, so each case shows exactly what the file
 * holds. Shared by test_safetensors.c and test_bind.c. */
#ifndef ST_BUILD_H
#define ST_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* malloc'd: u64 LE header length, header, data. *len gets the total. */
static inline unsigned char *st_build(const char *json, const void *data,
                                      size_t dlen, size_t *len) {
  size_t n = strlen(json);
  *len = 8 + n + dlen;
  unsigned char *b = malloc(*len ? *len : 1);
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)((uint64_t)n >> (8 * i));
  memcpy(b + 8, json, n);
  if (dlen) memcpy(b + 8 + n, data, dlen);
  return b;
}

#endif
