/* same_file.c: an export never writes over what it reads.
 *
 * The model and its data file are renamed over their paths (write.c), so
 * `-o model.safetensors` once replaced the weights with the model and
 * exited 0. Each output is compared with the inputs (the IR, the weights)
 * and the data file with the model, as files: by device and inode once
 * stat(2) has followed every link, never by spelling. "./w.safetensors", a
 * symlink to it and a hard link of it all name the weights, and an output
 * under any of those names is a mistake: the name the user gave an input
 * would hold the model afterwards.
 *
 * A path stat cannot resolve (not there yet, a dangling symlink) is no
 * input: inputs exist, and rename(2) replaces a link, never its target.
 * Two outputs that do not exist yet collide only by name: the data file
 * sits beside the model, its path spelled with the model's directory
 * (oxp_data_file), so the same name is the same string.
 *
 * The front ends call oxp_check_outputs before reading anything, so a
 * mistake costs no export; the writer checks again before creating each
 * file, which also covers the data file the 2 GiB limit forces. A path
 * swapped between the check and the rename is a race, not a mistake, and
 * is not guarded against. */
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "io.h"
#include "serialize.h"

typedef struct {
  const char *what, *path;
  bool exists;
  dev_t dev;
  ino_t ino;
} file_id;

static file_id identify(const char *what, const char *path) {
  file_id f = {.what = what, .path = path};
  struct stat sb;
  if (path && oxp_io_stat(path, &sb) == 0) {
    f.exists = true;
    f.dev = sb.st_dev;
    f.ino = sb.st_ino;
  }
  return f;
}

oxp_status oxp_check_output(const char *what, const char *path,
                            const char *model_path, const oxp_options *o,
                            oxp_diag *d) {
  if (model_path && strcmp(path, model_path) == 0)
    return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                    "refusing to write the %s to '%s': it is the same file "
                    "as the model '%s'", what, path, model_path);
  file_id out = identify(what, path);
  if (!out.exists) return OXP_OK;
  file_id in[3] = {identify("IR", o->ir_path),
                   identify("weights", o->weights_path),
                   identify("model", model_path)};
  for (int i = 0; i < 3; i++)
    if (in[i].exists && in[i].dev == out.dev && in[i].ino == out.ino)
      return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                      "refusing to write the %s to '%s': it is the same "
                      "file as the %s '%s'",
                      out.what, out.path, in[i].what, in[i].path);
  return OXP_OK;
}

oxp_status oxp_check_outputs(oxp_arena *a, const char *model_path,
                             const oxp_options *o, oxp_diag *d) {
  oxp_status st = oxp_check_output("model", model_path, NULL, o, d);
  if (st || o->external_data != OXP_EXT_FILE) return st;
  const char *name, *path;
  if ((st = oxp_data_file(a, model_path, o, &name, &path, d))) return st;
  return oxp_check_output("external data file", path, model_path, o, d);
}
