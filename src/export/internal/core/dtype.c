/* dtype.c: element types, one table that drives every conversion
 * (ONNX number, size, torch's printed name, torch.ScalarType number). */
#include <string.h>

#include "oxp.h"

typedef struct {
  int dt;
  size_t size;
  const char *name;       /* numpy-style, for messages */
  const char *torch;      /* TorchScript tensor type prefix */
  int scalar_type;        /* torch.ScalarType, -1 if none */
} dtype_info;

static const dtype_info DTYPES[] = {
    {OXP_DT_UINT8, 1, "uint8", "Byte", 0},
    {OXP_DT_INT8, 1, "int8", "Char", 1},
    {OXP_DT_INT16, 2, "int16", "Short", 2},
    {OXP_DT_INT32, 4, "int32", "Int", 3},
    {OXP_DT_INT64, 8, "int64", "Long", 4},
    {OXP_DT_FLOAT16, 2, "float16", "Half", 5},
    {OXP_DT_FLOAT, 4, "float32", "Float", 6},
    {OXP_DT_DOUBLE, 8, "float64", "Double", 7},
    {OXP_DT_COMPLEX64, 8, "complex64", "ComplexFloat", 9},
    {OXP_DT_COMPLEX128, 16, "complex128", "ComplexDouble", 10},
    {OXP_DT_BOOL, 1, "bool", "Bool", 11},
    {OXP_DT_BFLOAT16, 2, "bfloat16", "BFloat16", 15},
    {OXP_DT_UINT16, 2, "uint16", "UInt16", -1},
    {OXP_DT_UINT32, 4, "uint32", "UInt32", -1},
    {OXP_DT_UINT64, 8, "uint64", "UInt64", -1},
    {OXP_DT_STRING, 0, "string", NULL, -1},
    {OXP_DT_FLOAT8E4M3FN, 1, "float8_e4m3fn", "Float8_e4m3fn", -1},
    {OXP_DT_FLOAT8E4M3FNUZ, 1, "float8_e4m3fnuz", "Float8_e4m3fnuz", -1},
    {OXP_DT_FLOAT8E5M2, 1, "float8_e5m2", "Float8_e5m2", -1},
    {OXP_DT_FLOAT8E5M2FNUZ, 1, "float8_e5m2fnuz", "Float8_e5m2fnuz", -1},
};
enum { NDTYPES = sizeof DTYPES / sizeof DTYPES[0] };

static const dtype_info *info(int dt) {
  for (int i = 0; i < NDTYPES; i++)
    if (DTYPES[i].dt == dt) return &DTYPES[i];
  return NULL;
}

size_t oxp_dtype_size(int dt) {
  const dtype_info *d = info(dt);
  return d ? d->size : 0;
}

const char *oxp_dtype_name(int dt) {
  const dtype_info *d = info(dt);
  return d ? d->name : "undefined";
}

const char *oxp_dtype_torch_name(int dt) {
  const dtype_info *d = info(dt);
  return d && d->torch ? d->torch : "Tensor";
}

int oxp_dtype_from_torch_name(const char *s, size_t n) {
  for (int i = 0; i < NDTYPES; i++) {
    const char *t = DTYPES[i].torch;
    if (t && strlen(t) == n && memcmp(t, s, n) == 0) return DTYPES[i].dt;
  }
  return 0;
}

int oxp_dtype_from_scalar_type(int64_t st) {
  for (int i = 0; i < NDTYPES; i++)
    if (DTYPES[i].scalar_type == st && st >= 0) return DTYPES[i].dt;
  return 0;
}

int64_t oxp_dtype_to_scalar_type(int dt) {
  const dtype_info *d = info(dt);
  return d ? d->scalar_type : -1;
}

bool oxp_dtype_is_float(int dt) {
  return dt == OXP_DT_FLOAT || dt == OXP_DT_DOUBLE || dt == OXP_DT_FLOAT16 ||
         dt == OXP_DT_BFLOAT16;
}

bool oxp_dtype_is_int(int dt) {
  return dt == OXP_DT_UINT8 || dt == OXP_DT_INT8 || dt == OXP_DT_INT16 ||
         dt == OXP_DT_INT32 || dt == OXP_DT_INT64 || dt == OXP_DT_UINT16 ||
         dt == OXP_DT_UINT32 || dt == OXP_DT_UINT64;
}
