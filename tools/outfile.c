/* outfile.c - write to a temporary beside the destination, rename when complete (outfile.h). */
#include "outfile.h"

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
  if (o->f) fclose(o->f);
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

int outfile_probe(const char *path, TsError *err) {
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
