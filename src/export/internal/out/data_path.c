/* data_path.c: the external data file's name and path.
 *
 * Its own file because two stages need the same answer: the writer creates
 * the data file there (write.c), and the same-file check must know that
 * path before anything is written (same_file.c). Kept apart, neither of
 * those two calls the other. */
#include <string.h>

#include "serialize.h"

const char *oxp_default_data_name(oxp_arena *a, const char *model_path) {
  const char *slash = strrchr(model_path, '/');
  return oxp_sprintf(a, "%s.data", slash ? slash + 1 : model_path);
}

/* The data file must sit in the model's directory under a plain name:
 * that is what ONNX's location (relative to the model) can express
 * portably. (That it is not the model itself, oxp_check_output sees.) */
static oxp_status check_data_name(const char *name, oxp_diag *d) {
  if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 ||
      strcmp(name, "..") == 0)
    return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                    "external data name '%s' must be a plain file name (it "
                    "is written beside the model)",
                    name);
  return OXP_OK;
}

oxp_status oxp_data_file(oxp_arena *a, const char *model_path,
                         const oxp_options *o, const char **name,
                         const char **path, oxp_diag *d) {
  const char *slash = strrchr(model_path, '/');
  *name = o->external_data_name && *o->external_data_name
              ? o->external_data_name
              : oxp_default_data_name(a, model_path);
  if (!*name) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  oxp_status st = check_data_name(*name, d);
  if (st) return st;
  *path = slash ? oxp_sprintf(a, "%.*s/%s", (int)(slash - model_path),
                              model_path, *name)
                : *name;
  return *path ? OXP_OK
               : oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
}
