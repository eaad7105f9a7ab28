/* outfile.c - write to a temporary beside the destination, rename when complete (outfile.h). */
#define _GNU_SOURCE /* renameat2 */
#include "outfile.h"

#include "book.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens path itself: a device or pipe (/dev/stdout) cannot be replaced by a rename. */
static int open_direct(OutFile *o, const char *path, TsError *err) {
  if (!(o->f = fopen(path, "wb"))) {
    int e = errno;
    outfile_abort(o);
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot write: %s", strerror(e));
  }
  return TS_OK;
}

int outfile_open(OutFile *o, const char *path, TsError *err) {
  memset(o, 0, sizeof o[0]);
  if (!(o->path = strdup(path))) return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
  if (!strcmp(path, "-")) {
    o->f = stdout;
    o->is_stdout = true;
    return TS_OK;
  }
  struct stat st;
  bool exists = stat(path, &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) return open_direct(o, path, err);
  /* a symbolic link stays one: the file it names is replaced */
  char *real = exists ? realpath(path, NULL) : NULL;
  const char *target = real ? real : path;
  const char *slash = strrchr(target, '/');
  size_t dir = slash ? (size_t)(slash - target) + 1 : 0;
  size_t n = strlen(target) + 16;
  o->target = strdup(target);
  o->tmp = malloc(n);
  free(real);
  if (!o->target || !o->tmp) {
    outfile_abort(o);
    return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
  }
  snprintf(o->tmp, n, "%.*s.%s.tmpXXXXXX", (int)dir, o->target, o->target + dir);
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    int e = errno;
    free(o->tmp);
    o->tmp = NULL;
    outfile_abort(o);
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot write: %s", strerror(e));
  }
  /* mkstemp makes the file 0600: give it the mode a plain fopen would */
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "wb"))) {
    int e = errno;
    if (!o->f) close(fd);
    outfile_abort(o);
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot write: %s", strerror(e));
  }
  return TS_OK;
}

void outfile_abort(OutFile *o) {
  if (o->f && !o->is_stdout) fclose(o->f);
  if (o->tmp) unlink(o->tmp);
  free(o->tmp);
  free(o->target);
  free(o->path);
  memset(o, 0, sizeof o[0]);
}

int outfile_commit(OutFile *o, TsError *err) {
  errno = 0;
  bool bad = fflush(o->f) != 0;
  int e = errno;
  bad |= ferror(o->f) != 0;
  errno = 0;
  if (o->is_stdout) {
    o->f = NULL;
    if (bad) {
      ts_error_set(err, TS_ERR_IO, "<stdout>", 0, 0, "write failed: %s", e ? strerror(e) : "I/O error");
      outfile_abort(o);
      return TS_ERR_IO;
    }
    outfile_abort(o);
    return TS_OK;
  }
  if (fclose(o->f) != 0) {
    bad = true;
    if (!e) e = errno;
  }
  o->f = NULL;
  if (!bad && o->tmp && rename(o->tmp, o->target) != 0) {
    bad = true;
    e = errno;
  }
  if (bad) {
    ts_error_set(err, TS_ERR_IO, o->path, 0, 0, "write failed: %s", e ? strerror(e) : "I/O error");
    outfile_abort(o);
    return TS_ERR_IO;
  }
  free(o->tmp);
  o->tmp = NULL; /* renamed: nothing to remove */
  outfile_abort(o);
  return TS_OK;
}

int outfile_write_all(const char *path, const void *bytes, size_t len, TsError *err) {
  OutFile o;
  int rc = outfile_open(&o, path, err);
  if (rc) return rc;
  if (len && fwrite(bytes, 1, len, o.f) != len) {
    int e = errno;
    outfile_abort(&o);
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "write failed: %s", strerror(e));
  }
  return outfile_commit(&o, err);
}

int outfile_target_check(const char *path, const char *option, bool force, const char *const *inputs, int n,
                         TsError *err) {
  if (!strcmp(path, "-")) return TS_OK;
  struct stat st, in;
  if (stat(path, &st) != 0) return TS_OK;
  /* /dev/stdout and the like: the command's own standard output, wherever it goes */
  if (fstat(STDOUT_FILENO, &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino) return TS_OK;
  for (int i = 0; i < n; i++)
    if (inputs[i] && (!strcmp(inputs[i], path) ||
                      (stat(inputs[i], &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino)))
      return ts_error_set(err, TS_ERR_USAGE, path, 0, 0, "%s %s is the input %s: give another file (nothing written)",
                          option, path, inputs[i]);
  if (S_ISREG(st.st_mode) && !force)
    return ts_error_set(err, TS_ERR_USAGE, path, 0, 0,
                        "%s %s exists: give another name, or --force to replace it (nothing written)", option, path);
  return TS_OK;
}

int outfile_probe(const char *path, TsError *err) {
  if (!strcmp(path, "-")) return TS_OK;
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot write: %s", strerror(EISDIR));
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return TS_OK;
  OutFile o;
  int rc = outfile_open(&o, path, err);
  if (rc) return rc;
  outfile_abort(&o);
  return TS_OK;
}

void outfile_dir_remove(const char *path) { book_remove_tree(path); }


char *outfile_dir_stage(const char *dir, TsError *err) {
  char *t = book_staging_make(dir);
  if (!t) {
    ts_error_set(err, TS_ERR_IO, dir, 0, 0, "cannot create a folder beside it: %s", strerror(errno));
    return NULL;
  }
  /* mkdtemp makes it 0700: give it the mode a plain mkdir would */
  mode_t mask = umask(0);
  umask(mask);
  chmod(t, 0777 & ~mask);
  return t;
}

int outfile_dir_publish(const char *stage, const char *dir, TsError *err) {
  struct stat st;
  if (lstat(dir, &st) != 0) {
    if (rename(stage, dir) == 0) return TS_OK;
    int e = errno;
    outfile_dir_remove(stage);
    return ts_error_set(err, TS_ERR_IO, dir, 0, 0, "cannot rename into place: %s", strerror(e));
  }
  if (!S_ISDIR(st.st_mode)) {
    outfile_dir_remove(stage);
    return ts_error_set(err, TS_ERR_IO, dir, 0, 0, "cannot replace: %s", strerror(ENOTDIR));
  }
  if (renameat2(AT_FDCWD, stage, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
    outfile_dir_remove(stage); /* the old folder, now under the staging name */
    return TS_OK;
  }
  char *old = book_staging_make(dir);
  int e = errno;
  if (old) rmdir(old);
  if (!old || rename(dir, old) != 0) {
    if (old) e = errno;
    free(old);
    outfile_dir_remove(stage);
    return ts_error_set(err, TS_ERR_IO, dir, 0, 0, "cannot move the old folder aside: %s", strerror(e));
  }
  if (rename(stage, dir) != 0) {
    e = errno;
    rename(old, dir); /* if this fails too, the old folder stays under its temporary name */
    free(old);
    outfile_dir_remove(stage);
    return ts_error_set(err, TS_ERR_IO, dir, 0, 0, "cannot rename into place: %s", strerror(e));
  }
  outfile_dir_remove(old);
  free(old);
  return TS_OK;
}
