/*
 * outfile.h - output files that appear complete or not at all.
 *
 * An OutFile is written under a temporary name in the destination's own
 * directory (".NAME.tmpXXXXXX") and renamed to NAME only by outfile_commit,
 * after every byte was written and the file closed without error. A command
 * that fails, finds nothing to write, or is killed never leaves a cut file
 * under NAME (a killed one may leave the hidden temporary; an existing NAME
 * stays as it was until the commit replaces it).
 *
 *   OutFile o;
 *   if (outfile_open(&o, "k.sfen", &err)) return cli_fail(cmd, &err);
 *   fprintf(o.f, ...);                      // write through o.f
 *   if (nothing_written) outfile_abort(&o); // no file at all
 *   else if (outfile_commit(&o, &err)) return cli_fail(cmd, &err);  // exit 3
 *
 * Errors are TS_ERR_IO naming NAME and the system's reason (a full disk:
 * "No space left on device"); the temporary is removed on every failure.
 * NAME that is a symbolic link stays one (the file it names is replaced);
 * NAME that exists and is not a regular file (/dev/stdout, a fifo) is written
 * directly, as it cannot be replaced.
 */
#ifndef TSUME_OUTFILE_H
#define TSUME_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"

typedef struct {
  FILE *f;        /* write here; NULL once committed or aborted */
  bool is_stdout; /* the path "-": standard output, flushed at the commit, never closed */
  char *path;     /* the name given, for messages */
  char *target;   /* the file replaced: path, or the file its symbolic link names */
  char *tmp;      /* temporary name beside target; NULL when path is a device or
                     a pipe (/dev/stdout), written directly */
} OutFile;

/* Creates the temporary beside path and opens o->f on it (binary, mode
 * 0666 less the umask, as fopen would). The path "-" is standard output. */
int outfile_open(OutFile *o, const char *path, TsError *err);
/* Flushes, checks, closes and renames the temporary to the final name. On
 * failure the temporary is removed and the final name left untouched. */
int outfile_commit(OutFile *o, TsError *err);
/* Closes and removes the temporary (nothing appears); safe after a commit. */
void outfile_abort(OutFile *o);

/* Whether path can be written as an OutFile later, without writing it: its
 * folder exists and takes a new file (a temporary is made there and removed).
 * A folder fails; a path that exists and is another kind of file is not
 * opened (a fifo would block) and passes. TS_OK or TS_ERR_IO naming path and the system's reason. */
int outfile_probe(const char *path, TsError *err);

/*
 * The one rule of every output file a command writes, checked before it starts:
 * "-" is standard output (always allowed); a path naming the same file as one
 * of inputs[0..n) (the command's own input, a database) is refused, as the
 * input would be lost; a regular file that exists is refused unless force
 * (a device or a pipe, /dev/null, is written as it is). `option` names the
 * option in the message ("--out"). TS_OK, or TS_ERR_USAGE with the reason.
 */
int outfile_target_check(const char *path, const char *option, bool force, const char *const *inputs, int n,
                         TsError *err);

/* The whole of bytes[0..len) as the file path, through an OutFile. */
int outfile_write_all(const char *path, const void *bytes, size_t len, TsError *err);

/*
 * Output folders that appear whole or not at all, the same way: a folder is
 * built as a staging folder beside DIR (".DIR.tmpXXXXXX") and becomes DIR
 * only at outfile_dir_publish, which replaces an existing DIR whole (in one
 * exchange where the system allows it, the old folder then removed). A
 * failed or killed command leaves DIR as it was.
 *
 *   char *stage = outfile_dir_stage("works", &err);   // NULL: err says why
 *   ... write stage/<name> ...
 *   if (failed) outfile_dir_remove(stage);
 *   else rc = outfile_dir_publish(stage, "works", &err);
 *   free(stage);
 */
/* Makes the staging folder beside dir (mode 0777 less the umask); the caller frees it. */
char *outfile_dir_stage(const char *dir, TsError *err);
/* Renames stage to dir, replacing a dir that exists (which must be a folder).
 * On failure stage is removed and dir left as it was. */
int outfile_dir_publish(const char *stage, const char *dir, TsError *err);
/* Removes path and everything under it (symbolic links are removed, not followed). */
void outfile_dir_remove(const char *path);

#endif
