/*
 * embed.c - writes the C file of the desk's files (serve.h's SERVE_ASSETS) at
 * build time: embed OUT.c URL FILE TYPE ...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 5 || (argc - 2) % 3) {
    fprintf(stderr, "usage: embed OUT.c URL FILE TYPE [URL FILE TYPE]...\n");
    return 2;
  }
  FILE *out = fopen(argv[1], "w");
  if (!out) {
    perror(argv[1]);
    return 3;
  }
  int n_assets = (argc - 2) / 3;
  long size[64];
  if (n_assets > 64) return 2;
  fprintf(out, "/* made at build time by serve/embed.c */\n#include \"serve.h\"\n");
  for (int a = 0; a < n_assets; a++) {
    const char *file = argv[3 + 3 * a];
    FILE *in = fopen(file, "rb");
    if (!in) {
      perror(file);
      return 3;
    }
    fprintf(out, "static const unsigned char A%d[] = {", a);
    long n = 0;
    for (int c; (c = getc(in)) != EOF; n++) fprintf(out, "%s%d", n == 0 ? "\n" : n % 32 ? "," : ",\n", c);
    fprintf(out, "%s0};\n", n ? "," : "");
    fclose(in);
    size[a] = n;
  }
  fprintf(out, "const ServeAsset SERVE_ASSETS[] = {\n");
  for (int a = 0; a < n_assets; a++)
    fprintf(out, "    {\"%s\", \"%s\", A%d, %ld},\n", argv[2 + 3 * a], argv[4 + 3 * a], a, size[a]);
  fprintf(out, "};\nconst size_t SERVE_ASSETS_N = %d;\n", n_assets);
  if (fclose(out) != 0) {
    perror(argv[1]);
    return 3;
  }
  return 0;
}
