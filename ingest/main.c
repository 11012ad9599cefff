/* main.c: the cctingest program, a thin command line over cct_ingest(). */
#include "cct_ingest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: cctingest [--title TEXT] [--replace] [--quiet] DB_DIR OUT.sqlite\n"
    "       cctingest --list ARCHIVE.sqlite\n"
    "       cctingest --remove N ARCHIVE.sqlite\n"
    "       cctingest --reindex ARCHIVE.sqlite\n"
    "Flattens an HPCToolkit database (classic experiment.xml or v4 meta.db) into a\n"
    "cctq archive; an existing archive gets a new run.\n"
    "  --title TEXT  name the run (default: the database directory's name)\n"
    "  --replace     replace a run ingested from the same database content\n"
    "  --quiet       no progress line and no summary\n"
    "  --list        list the runs of an archive\n"
    "  --remove N    remove run N from an archive\n"
    "  --reindex     add the tree images to an archive of an older cctq (schema version 4)\n";

static void print_run(void *arg, const cct_run_info *r) {
  int *n = arg;
  if (!(*n)++) printf("%-4s %-24s %-20s %-11s %10s %8s %7s  %s\n", "run", "title", "ingested", "format", "contexts",
                      "profiles", "metrics", "path");
  printf("%-4d %-24s %-20s %-11s %10lld %8lld %7lld  %s\n", r->run, r->title, r->ingested_at, r->format, r->contexts,
         r->profiles, r->metrics, r->path);
  if (r->elided > 0) /* normal hpcprof output: a note, not a warning */
    printf("     note: %lld context ids of profile.db are not in %s (instructions hpcprof elides); their cost "
           "is in their ancestors' values\n",
           r->elided, strcmp(r->format, "prof2") ? "meta.db" : "experiment.xml");
}

int main(int argc, char **argv) {
  cct_ingest_options opt = {0};
  int quiet = 0, list = 0, remove = 0, reindex = 0;
  const char *pos[2];
  int npos = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--title") && i + 1 < argc) opt.title = argv[++i];
    else if (!strcmp(argv[i], "--replace")) opt.replace = 1;
    else if (!strcmp(argv[i], "--list")) list = 1;
    else if (!strcmp(argv[i], "--reindex")) reindex = 1;
    else if (!strcmp(argv[i], "--remove")) {
      char *end = NULL;
      long n = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
      if (!end || end == argv[i + 1] || *end || n < 1 || n > INT_MAX) {
        fprintf(stderr, "cctingest: error: --remove needs a run number (1 or more, see --list), not '%s'\n%s",
                i + 1 < argc ? argv[i + 1] : "", usage);
        return 2;
      }
      remove = (int)n;
      i++;
    }
    else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) quiet = 1;
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(usage, stdout), 0;
    else if (!strcmp(argv[i], "--version")) return puts("cctingest " CCT_VERSION), 0;
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "cctingest: error: unknown option '%s'\n%s", argv[i], usage);
      return 2;
    } else if (npos < 2) pos[npos++] = argv[i];
    else {
      fprintf(stderr, "cctingest: error: unexpected argument '%s'\n%s", argv[i], usage);
      return 2;
    }
  }
  cct_err err = CCT_ERR_INIT;
  if (reindex && npos == 1 && !list && !remove) {
    int rc = cct_archive_reindex(pos[0], &err);
    if (rc) fprintf(stderr, "cctingest: error: %s\n", err.msg);
    else if (!quiet) fprintf(stderr, "cctingest: '%s' has the tree images of every run\n", pos[0]);
    return rc ? 1 : 0;
  }
  if ((list || remove) && npos == 1) {
    int n = 0, rc = list ? cct_archive_list(pos[0], print_run, &n, &err) : cct_archive_remove(pos[0], remove, &err);
    if (rc) fprintf(stderr, "cctingest: error: %s\n", err.msg);
    else if (remove && !quiet) fprintf(stderr, "cctingest: removed run %d from '%s'\n", remove, pos[0]);
    return rc ? 1 : 0;
  }
  if (npos != 2 || list || remove || reindex) {
    fprintf(stderr, "cctingest: error: need DB_DIR and OUT.sqlite\n%s", usage);
    return 2;
  }
  opt.db_dir = pos[0];
  opt.out_path = pos[1];
  opt.progress = !quiet;
  cct_ingest_stats st;
  int rc = cct_ingest(&opt, &st, &err);
  if (rc) {
    fprintf(stderr, "cctingest: error: %s\n", err.msg);
    return rc == CCT_EUSAGE ? 2 : 1;
  }
  if (st.warning[0]) fprintf(stderr, "cctingest: warning: %s\n", st.warning);
  if (!quiet)
    fprintf(stderr,
            "cctingest: run %d (%s): %lld contexts (%lld functions, %lld loops, %lld lines, %lld instructions), "
            "%lld metric columns, %lld profiles in %.2f s\n",
            st.run, st.format, st.contexts, st.by_kind[1], st.by_kind[2], st.by_kind[3], st.by_kind[4], st.metrics,
            st.profiles, st.seconds);
  return 0;
}
