/* outfile.c - write to a temporary beside the destination, rename when complete (outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int outfile_open(OutFile *o, const char *path, TsError *err) {
  memset(o, 0, sizeof o[0]);
  const char *slash = strrchr(path, '/');
  size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
  size_t n = strlen(path) + 16;
  o->path = strdup(path);
  o->tmp = malloc(n);
  if (!o->path || !o->tmp) {
    outfile_abort(o);
    return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
  }
  snprintf(o->tmp, n, "%.*s.%s.tmpXXXXXX", (int)dir, path, path + dir);
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
  free(o->path);
  memset(o, 0, sizeof o[0]);
}

int outfile_commit(OutFile *o, TsError *err) {
  errno = 0;
  bool bad = fflush(o->f) != 0;
  int e = errno;
  bad |= ferror(o->f) != 0;
  errno = 0;
  int rc = fclose(o->f);
  o->f = NULL;
  if (rc != 0 && !e) e = errno;
  if (!bad && rc == 0 && rename(o->tmp, o->path) != 0) {
    bad = true;
    e = errno;
  }
  if (bad || rc != 0) {
    ts_error_set(err, TS_ERR_IO, o->path, 0, 0, "write failed: %s", e ? strerror(e) : "I/O error");
    outfile_abort(o);
    return TS_ERR_IO;
  }
  free(o->tmp);
  o->tmp = NULL;
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
