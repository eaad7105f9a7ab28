#!/usr/bin/env python3
"""Runs the command blocks of README.md and docs/*.md and compares what they
print with what the page shows, so that the documents cannot drift from the
program.

A fenced block whose lines start with "$ " is a session: each "$ command" is
run (through bash, in a scratch folder kept for the whole page, so a later
block reads what an earlier one wrote) and its standard output and error are
compared with the lines shown under it, up to the next "$ " line (its standard output,
or that with its standard error before or after it, as the page shows it):

  - a line "..." alone stands for any number of lines;
  - "..." inside a line stands for any text (a time, a rate);
  - a command with no line under it is run, its output not compared;
  - "$ echo $?" prints the exit status of the command before it.

A ```sh block without "$ " lines is a list of commands, each run and required
to exit 0. Other blocks (file contents, formats, C) are not commands. A block
right after a line "<!-- not-run -->" is skipped (a run too long for the test
suite, or one that needs MPI hosts); so are the commands that install and
build the program (tools/install-deps.sh, cmake, ctest), which is what this
test runs in. "tsume" and "build/tools/tsume" are the binary under test.

  docs_test.py TSUME REPO_DIR [PAGE...]
"""
import os
import re
import subprocess
import sys
import tempfile

TIMEOUT = 300


def blocks(text):
    """(first line number, info string, lines, skipped) of each fenced block."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        prev = next((lines[k].strip() for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        out.append((i + 2, m.group(1), lines[i + 1:j], prev == "<!-- not-run -->"))
        i = j + 1
    return out


def sessions(body):
    """[(command, expected lines)] of a block with "$ " lines."""
    out = []
    for line in body:
        if line.startswith("$ "):
            out.append([line[2:], []])
        elif out:
            out[-1][1].append(line)
    for s in out:
        while s[1] and not s[1][-1].strip():
            s[1].pop()
    return out


def build_command(cmd):
    return cmd.startswith(("tools/install-deps.sh", "cmake ", "ctest "))


def line_match(want, got):
    if "..." not in want:
        return want.rstrip() == got.rstrip()
    parts = [re.escape(p) for p in want.rstrip().split("...")]
    return re.fullmatch(".*".join(parts), got.rstrip()) is not None


def lines_match(want, got):
    """Whether got fits want, "..." lines matching any number of lines."""
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(want):
            r = j == len(got)
        elif want[i].strip() == "...":
            r = any(go(i + 1, k) for k in range(j, len(got) + 1))
        else:
            r = j < len(got) and line_match(want[i], got[j]) and go(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return go(0, 0)


def split(b):
    t = b.decode("utf-8", "replace").rstrip("\n")
    return t.split("\n") if t else []


def run(cmd, cwd, env):
    """Exit status, standard output and standard error (as lists of lines)."""
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=TIMEOUT)
    return p.returncode, split(p.stdout), split(p.stderr)


def main():
    tsume, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    pages = sys.argv[3:] or ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(repo, "docs"))
                                                     if f.endswith(".md"))
    passed = failed = 0
    for page in pages:
        text = open(os.path.join(repo, page), encoding="utf-8").read()
        with tempfile.TemporaryDirectory(prefix="tsume-docs.") as work:
            bindir = os.path.join(work, ".bin")
            os.makedirs(os.path.join(work, "build", "tools"))
            os.makedirs(bindir)
            os.symlink(tsume, os.path.join(bindir, "tsume"))
            os.symlink(tsume, os.path.join(work, "build", "tools", "tsume"))
            for d in ("data", "tools"):
                os.symlink(os.path.join(repo, d), os.path.join(work, d))
            env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C.UTF-8")
            for first, info, body, skipped in blocks(text):
                where = "%s:%d" % (page, first)
                ss = sessions(body)
                if skipped or (not ss and info != "sh"):
                    continue
                if not ss:  # a list of commands
                    ss = [(c, None) for c in body if c.strip() and not c.lstrip().startswith("#")]
                status = 0
                for cmd, want in ss:
                    if build_command(cmd):
                        continue
                    if cmd.strip() == "echo $?":
                        st, got, err = 0, [str(status)], []
                    else:
                        try:
                            status, got, err = run(cmd, work, env)
                        except subprocess.TimeoutExpired:
                            print("FAIL %s: %s: no end in %d s" % (where, cmd, TIMEOUT))
                            failed += 1
                            break
                        st = status
                    if want is None:
                        ok = st == 0
                        why = "exit %d" % st
                    elif not want:
                        ok, why = True, ""
                    else:  # what the page shows: standard output, or with standard error before or after it
                        ok = any(lines_match(want, g) for g in (got, err + got, got + err))
                        why = "prints\n    " + "\n    ".join((err + got)[:40])
                    if ok:
                        passed += 1
                        print("ok %s: %s" % (where, cmd[:100]))
                    else:
                        failed += 1
                        print("FAIL %s: %s: %s" % (where, cmd[:100], why))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
