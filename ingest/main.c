/* main.c: the cctingest program, a thin command line over cct_ingest(). */
#include "cct_ingest.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "usage: cctingest [--title TEXT] [--replace] [--quiet] DB_DIR OUT.sqlite\n"
    "       cctingest --all DIR OUT.sqlite\n"
    "       cctingest --list ARCHIVE.sqlite\n"
    "       cctingest --remove N ARCHIVE.sqlite\n"
    "       cctingest --reindex ARCHIVE.sqlite\n"
    "Flattens an HPCToolkit database (classic experiment.xml or v4 meta.db) into a\n"
    "cctq archive; an existing archive gets a new run.\n"
    "  --title TEXT  name the run (default: the database directory's name)\n"
    "  --replace     replace a run ingested from the same database content\n"
    "  --all         ingest every database below DIR (up to 4 levels, as HPCToolkit's test\n"
    "                data holds them), one run each, titled by its path below DIR\n"
    "  --quiet       no progress line and no summary\n"
    "  --list        list the runs of an archive\n"
    "  --remove N    remove run N from an archive\n"
    "  --reindex     add the tree images to an archive of an older cctq (schema version 4)\n";

/* ---- databases below a directory (issue 27 item 14) ---- */

/* Whether dir is an HPCToolkit database (its own meta.db or experiment.xml). */
static int is_database(const char *dir) {
  static const char *const marks[] = {"meta.db", "experiment.xml"};
  for (size_t k = 0; k < 2; k++) {
    char p[PATH_MAX];
    struct stat st;
    if (snprintf(p, sizeof p, "%s/%s", dir, marks[k]) < (int)sizeof p && !stat(p, &st) && S_ISREG(st.st_mode)) return 1;
  }
  return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Appends to *v the databases at most depth levels below dir (not dir itself),
 * each a malloc'd path, in name order; a database's own subdirectories are not
 * searched.  Returns 0, or -1 when out of memory. */
static int find_databases(const char *dir, int depth, char ***v, size_t *n) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  char **names = NULL;
  size_t nn = 0;
  struct dirent *e;
  int rc = 0;
  while (!rc && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *p = malloc(strlen(dir) + strlen(e->d_name) + 2);
    char **g = p ? realloc(names, (nn + 1) * sizeof *g) : NULL;
    if (!g) {
      free(p);
      rc = -1;
      break;
    }
    names = g;
    memcpy(p, dir, strlen(dir));
    p[strlen(dir)] = '/';
    memcpy(p + strlen(dir) + 1, e->d_name, strlen(e->d_name) + 1);
    names[nn++] = p;
  }
  closedir(d);
  if (nn) qsort(names, nn, sizeof *names, by_name);
  for (size_t i = 0; i < nn; i++) {
    struct stat st;
    if (!rc && !stat(names[i], &st) && S_ISDIR(st.st_mode)) {
      if (is_database(names[i])) {
        char **g = realloc(*v, (*n + 1) * sizeof *g);
        if (!g) rc = -1;
        else *v = g, (*v)[(*n)++] = names[i], names[i] = NULL;
      } else if (depth > 1) {
        rc = find_databases(names[i], depth - 1, v, n);
      }
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

/* Says which databases dir holds below it and how to ingest them, after an
 * error that dir itself is none. */
static void list_below(const char *dir) {
  char **v = NULL;
  size_t n = 0;
  if (find_databases(dir, 4, &v, &n) == 0 && n) {
    fprintf(stderr, "cctingest: '%s' holds %zu database%s below it:\n", dir, n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) fprintf(stderr, "  %s\n", v[i]);
    fprintf(stderr, "ingest one with 'cctingest %s OUT.sqlite', or each as a run with 'cctingest --all %s OUT.sqlite'\n",
            v[0], dir);
  }
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

/* Says how many trace records of database db named a context that is not in
 * its tree (stored as idle: the metric 'trace (sec)' leaves them out). */
static void strays_note(const char *db, const cct_ingest_stats *st) {
  if (st->trace_strays > 0)
    fprintf(stderr, "cctingest: note: %s: %lld of %lld trace records name contexts that are not in the tree; "
            "they are stored as idle (trace_run.strays)\n", db, st->trace_strays, st->trace_records);
}

/* Prints the summary line of one ingested run. */
static void summary(const cct_ingest_stats *st) {
  fprintf(stderr,
          "cctingest: run %d (%s): %lld contexts (%lld functions, %lld loops, %lld lines, %lld instructions), "
          "%lld metric columns, %lld profiles in %.2f s\n",
          st->run, st->format, st->contexts, st->by_kind[1], st->by_kind[2], st->by_kind[3], st->by_kind[4], st->metrics,
          st->profiles, st->seconds);
}

/* --all: every database below opt->db_dir into opt->out_path, one run each
 * (titled by its path below the directory); a database that fails is named and
 * the others still go in.  Returns the exit status. */
static int ingest_all(cct_ingest_options opt, int quiet) {
  const char *dir = opt.db_dir;
  char **v = NULL;
  size_t n = 0, ok = 0;
  if (find_databases(dir, 4, &v, &n)) return fputs("cctingest: error: out of memory\n", stderr), 1;
  if (!n) {
    fprintf(stderr, "cctingest: error: no HPCToolkit database (meta.db or experiment.xml) below '%s'\n", dir);
    return 1;
  }
  for (size_t i = 0; i < n; i++) {
    cct_err err = CCT_ERR_INIT;
    cct_ingest_stats st;
    opt.db_dir = v[i];
    opt.title = v[i] + strlen(dir) + (dir[strlen(dir) - 1] != '/'); /* the path below DIR */
    if (cct_ingest(&opt, &st, &err)) {
      fprintf(stderr, "cctingest: error: %s\n", err.msg);
    } else {
      ok++;
      if (st.warning[0]) fprintf(stderr, "cctingest: warning: %s: %s\n", v[i], st.warning);
      strays_note(v[i], &st);
      if (!quiet) summary(&st);
    }
    free(v[i]);
  }
  free(v);
  if (!quiet || ok < n) fprintf(stderr, "cctingest: %zu of %zu databases ingested into '%s'\n", ok, n, opt.out_path);
  return ok == n ? 0 : 1;
}

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
  int quiet = 0, list = 0, remove = 0, reindex = 0, all = 0;
  const char *pos[2];
  int npos = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--title") && i + 1 < argc) opt.title = argv[++i];
    else if (!strcmp(argv[i], "--replace")) opt.replace = 1;
    else if (!strcmp(argv[i], "--list")) list = 1;
    else if (!strcmp(argv[i], "--all")) all = 1;
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
    if (all) fprintf(stderr, "cctingest: error: --all needs DIR and OUT.sqlite\n%s", usage);
    else
    fprintf(stderr, "cctingest: error: need DB_DIR and OUT.sqlite\n%s", usage);
    return 2;
  }
  opt.db_dir = pos[0];
  opt.out_path = pos[1];
  opt.progress = !quiet;
  if (all) return ingest_all(opt, quiet);
  cct_ingest_stats st;
  int rc = cct_ingest(&opt, &st, &err);
  if (rc) {
    fprintf(stderr, "cctingest: error: %s\n", err.msg);
    if (rc == CCT_EFORMAT) list_below(opt.db_dir); /* a folder of databases (HPCToolkit's test data) */
    return rc == CCT_EUSAGE ? 2 : 1;
  }
  if (st.warning[0]) fprintf(stderr, "cctingest: warning: %s\n", st.warning);
  strays_note(opt.db_dir, &st);
  if (!quiet) summary(&st);
  return 0;
}
