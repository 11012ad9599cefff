/* center.c: the center of a session (SPEC section 4): parsing items, resolving
 * them to occurrences (sets of contexts), suggestions for items that match
 * nothing, and the outermost rule over the union of occurrences.
 *
 * Item resolution:
 *   NAME / 'NAME' / "NAME"   frames (kind 1, or instruction frames) of every function with that name
 *   glob PAT, re REGEX       the same for every function whose name matches (SQLite GLOB, POSIX ERE)
 *   FILE:LINE                line contexts at a file whose path ends with FILE (at a '/' boundary)
 *   loop FILE:LINE           loop contexts with their header there
 *   file PATH, module PATH   frames of every function defined in the file / module (path suffix)
 *   class NAME               frames of functions whose parsed class is NAME or ends with '::NAME'
 *   namespace NAME           frames of functions whose parsed namespace is NAME or starts with 'NAME::'
 *                            (class and namespace come from the demangled name, see ingest/writer.c:
 *                            a heuristic, 'a::f' gives both class and namespace 'a')
 *   #ID                      exactly that context
 *   @N                       row N of the last view: a function row is that function (by id), a
 *                            loop / line row that loop / line scope, a file or module row that file
 *                            or module, the top row the current center (no change)
 *
 * Outermost rule: O = union of occurrences sorted by pre; O* = members with no
 * proper ancestor in O.  Inclusive values sum over O*.  Exclusive values sum
 * over the members of O that have no proper ancestor in O *within the same
 * frame*: a frame's exclusive cost already holds its lines and loops, so a
 * center {f, f.c:12} with line 12 inside f counts that line once (for centers of
 * functions only, this is all of O). */
#include "query_int.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- occurrence lists ---- */

typedef struct occlist {
  qctx *v;
  size_t n, cap;
} occlist;

static int occ_push(occlist *l, const qctx *c) {
  if (CCT_GROW(l->v, l->n + 1, l->cap)) return -1;
  l->v[l->n++] = *c;
  return 0;
}

static int by_pre(const void *a, const void *b) {
  const qctx *x = a, *y = b;
  return x->pre < y->pre ? -1 : x->pre > y->pre;
}

/* Sorts by pre and removes duplicates. */
static void occ_normalize(occlist *l) {
  if (!l->n) return;
  size_t s = 1;
  while (s < l->n && l->v[s - 1].pre <= l->v[s].pre) s++;
  if (s < l->n) qsort(l->v, l->n, sizeof *l->v, by_pre); /* index order is usually pre order already */
  size_t k = 1;
  for (size_t i = 1; i < l->n; i++)
    if (l->v[i].pre != l->v[k - 1].pre) l->v[k++] = l->v[i];
  l->n = k;
}

/* Runs st (already bound) and appends every context row. */
static int collect(const qv *q, sqlite3_stmt *st, occlist *l, cct_err *err) {
  int rc;
  (void)q;
  while ((rc = cct_step(st, err)) == CCT_STEP_ROW) {
    qctx c;
    q_read_ctx(st, &c);
    if (occ_push(l, &c)) {
      sqlite3_reset(st);
      return cct_err_set(err, CCT_ENOMEM, "out of memory");
    }
  }
  sqlite3_reset(st);
  return rc;
}

/* Appends the nodes[0..n) of the run's tree. */
static int push_nodes(const qv *q, const int32_t *nodes, size_t n, occlist *l, cct_err *err) {
  if (!n) return CCT_OK; /* (l->v may still be NULL) */
  if (CCT_GROW(l->v, l->n + n, l->cap)) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  q_tree_ctxs(&q->r->tree, nodes, n, l->v + l->n);
  l->n += n;
  return CCT_OK;
}

/* Appends the frames of function fn (from the tree image's index). */
static int frames_of(const qv *q, int64_t fn, occlist *l, cct_err *err) {
  const int32_t *nodes;
  size_t n;
  int rc = q_frames_of(q, fn, 0, &nodes, &n, err);
  return rc ? rc : push_nodes(q, nodes, n, l, err);
}

/* Appends the loops or lines (kind) without a source line inside the frames of function
 * fn, of file id file (0: of any file): what 'loop in NAME' and 'line in NAME' center on. */
static int unlined_in(const qv *q, int64_t fn, int64_t file, int kind, occlist *l, cct_err *err) {
  const int32_t *nodes;
  size_t n;
  const cct_tree *t = &q->r->tree;
  int rc = q_frames_of(q, fn, 1, &nodes, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    int32_t x = nodes[i];
    if (t->kind[x] == kind && t->line[x] < 0 && (!file || t->file[x] == file)) rc = push_nodes(q, &nodes[i], 1, l, err);
  }
  return rc;
}

/* Collects the ids of st's first column, then appends the frames of each (kind 0), or
 * the loops or lines without a line in them (kind CCT_KIND_LOOP or CCT_KIND_LINE). */
static int frames_of_ids(const qv *q, sqlite3_stmt *st, int kind, occlist *l, cct_err *err) {
  int64_t *ids = NULL;
  size_t n = 0, cap = 0;
  int rc;
  while ((rc = cct_step(st, err)) == CCT_STEP_ROW) {
    if (CCT_GROW(ids, n + 1, cap)) {
      free(ids);
      sqlite3_reset(st);
      return cct_err_set(err, CCT_ENOMEM, "out of memory");
    }
    ids[n++] = sqlite3_column_int64(st, 0);
  }
  sqlite3_reset(st);
  int res = rc;
  for (size_t i = 0; !res && i < n; i++) res = kind ? unlined_in(q, ids[i], 0, kind, l, err) : frames_of(q, ids[i], l, err);
  free(ids);
  return res;
}

/* Appends the ids (kind 0: files, 1: modules) whose path suffix-matches path. */
static int paths_matching(const qv *q, int kind, const char *path, int64_t **ids, size_t *n, cct_err *err) {
  sqlite3_stmt *st = q_stmt(q, kind ? ST_MODULES : ST_FILES, err);
  if (!st) return CCT_ESQL;
  size_t cap = 0;
  *ids = NULL;
  *n = 0;
  int rc;
  while ((rc = cct_step(st, err)) == CCT_STEP_ROW) {
    const char *p = (const char *)sqlite3_column_text(st, 1);
    if (!p || !q_suffix_match(p, path)) continue;
    if (CCT_GROW(*ids, *n + 1, cap)) {
      sqlite3_reset(st);
      return cct_err_set(err, CCT_ENOMEM, "out of memory");
    }
    (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
  }
  sqlite3_reset(st);
  return rc;
}

/* ---- suggestions ---- */

typedef struct suggest {
  char *name[4];
  int score[4];
} suggest;

/* Offers name with score (lower is closer) to the best-four list. */
static void suggest_offer(suggest *s, const char *name, int score) {
  for (int i = 0; i < 4; i++)
    if (s->name[i] && !strcmp(s->name[i], name)) return;
  int worst = -1;
  for (int i = 0; i < 4; i++) {
    if (!s->name[i]) {
      worst = i;
      break;
    }
    if (worst < 0 || s->score[i] > s->score[worst]) worst = i;
  }
  if (s->name[worst] && s->score[worst] <= score) return;
  free(s->name[worst]);
  s->name[worst] = strdup(name);
  s->score[worst] = score;
}

/* Writes "; did you mean 'a', 'b'?" (best first) into buf and frees s. */
static void suggest_format(suggest *s, char *buf, size_t size) {
  buf[0] = 0;
  size_t len = 0;
  for (int round = 0; round < 4; round++) {
    int best = -1;
    for (int i = 0; i < 4; i++)
      if (s->name[i] && (best < 0 || s->score[i] < s->score[best])) best = i;
    if (best < 0) break;
    len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s'%s'", round ? ", " : "; did you mean ",
                            s->name[best]);
    free(s->name[best]);
    s->name[best] = NULL;
  }
  if (len && len + 2 < size) memcpy(buf + len, "?", sizeof "?");
}

/* Whether function fn has a frame in the run (a filtered run keeps the
 * functions whose frames it removed). */
static int has_frames(const qv *q, int64_t fn) {
  if (q->r->ft) { /* a filtered run: its own tree, not the archive's contexts */
    const int32_t *v = NULL;
    size_t n = 0;
    return q_frames_of(q, fn, 0, &v, &n, NULL) || n > 0;
  }
  sqlite3_stmt *st = q_stmt(q, ST_OCC_FUNCTION, NULL);
  if (!st) return 1;
  sqlite3_bind_int64(st, 2, fn);
  int has = cct_step(st, NULL) != CCT_STEP_ROW || sqlite3_column_int64(st, 0) > 0;
  sqlite3_reset(st);
  return has;
}

/* Suggests function names close to name; an error reading them lands in e. */
static void suggest_functions(const qv *q, const char *name, char *buf, size_t size, cct_err *e_) {
  suggest s = {{0}, {0}};
  cct_err e = CCT_ERR_INIT;
  sqlite3_stmt *st = q_stmt(q, ST_FUNCTION_NAMES, &e);
  int limit = (int)strlen(name) / 3 + 2;
  while (st && cct_step(st, &e) == CCT_STEP_ROW) { /* hints only: a failure just ends them */
    const char *f = (const char *)sqlite3_column_text(st, 1);
    if (!f) continue;
    char plain[256]; /* 'NAME [module]' is suggested as 'NAME', which covers it */
    const char *deco = f[0] && f[strlen(f) - 1] == ']' ? strstr(f, " [") : NULL;
    if (deco && deco > f && (size_t)(deco - f) < sizeof plain) {
      snprintf(plain, sizeof plain, "%.*s", (int)(deco - f), f);
      f = plain;
    }
    int d = (int)cct_levenshtein(name, f, 99); /* case-insensitive */
    if (!strncmp(f, name, strlen(name)) || (strlen(f) >= 3 && strstr(name, f) == name)) d = d < 2 ? d : 2;
    else if (strstr(f, name)) d = d < 3 ? d : 3;
    if (d <= limit && (!q->tree || has_frames(q, sqlite3_column_int64(st, 0)))) suggest_offer(&s, f, d);
  }
  if (st) sqlite3_reset(st);
  suggest_format(&s, buf, size);
  if (e.code) cct_err_set(e_, e.code, "%s", e.msg);
}

static char *quote_name(const char *name);

/* Whether name is hpcprof's name for the frame that stands for a call site of
 * inlined code (classic '<inline>', or a nameless alien before 2020). */
static int inline_placeholder(const char *name) { return !name || !*name || !strcmp(name, "<inline>"); }

/* Appends to buf (size bytes, NUL-terminated; *len its length) what to type for
 * file:line when it is where code was inlined: hpcprof's '<inline>' frames
 * there (function contexts, relation inlined) and the function inlined in the
 * first; FILE:LINE names line contexts only (SPEC section 4), so these are
 * '#ID' items.  Returns whether there are any. */
static int describe_inlined(const qv *q, int64_t file, const char *base, long long line, char *buf, size_t size,
                            size_t *len) {
  const cct_tree *t = &q->r->tree;
  int32_t ids[3], n = 0;
  for (int32_t i = 1; i < t->n; i++)
    if (t->kind[i] == CCT_KIND_FUNCTION && t->relation[i] == CCT_REL_INLINED && t->file[i] == file &&
        t->line[i] == line) {
      const fninfo *f = NULL;
      cct_err e = CCT_ERR_INIT;
      if (q_function(q, t->function[i], &f, &e) || !f || !inline_placeholder(f->name)) continue;
      if (n < 3) ids[n] = i;
      n++;
    }
  if (!n) return 0;
  const char *callee = NULL; /* the function inlined in the first frame */
  for (int32_t c = cct_tree_first(t, ids[0]); c >= 0 && !callee; c = cct_tree_next(t, ids[0], c)) {
    const fninfo *f = NULL;
    cct_err e = CCT_ERR_INIT;
    if (t->kind[c] == CCT_KIND_FUNCTION && !q_function(q, t->function[c], &f, &e) && f && !inline_placeholder(f->name))
      callee = f->name;
  }
  char *item = callee ? quote_name(callee) : NULL;
  *len += (size_t)snprintf(buf + *len, *len < size ? size - *len : 0, "; %s:%lld holds no line of its own: %s%s is inlined there, in frame%s",
                           base, line, callee ? callee : "code", callee ? "" : " of another function", n == 1 ? "" : "s");
  for (int32_t k = 0; k < n && k < 3; k++)
    *len += (size_t)snprintf(buf + *len, *len < size ? size - *len : 0, "%s #%lld", k ? "," : "", (long long)t->id[ids[k]]);
  *len += (size_t)snprintf(buf + *len, *len < size ? size - *len : 0, "%s (center #%lld", n > 3 ? ", ..." : "",
                           (long long)t->id[ids[0]]);
  for (int32_t k = 1; k < n && k < 3; k++)
    *len += (size_t)snprintf(buf + *len, *len < size ? size - *len : 0, "; center + #%lld", (long long)t->id[ids[k]]);
  char calls[40];
  snprintf(calls, sizeof calls, n == 1 ? "that call" : n <= 3 ? "those calls" : "3 of those %d calls", (int)n);
  *len += (size_t)snprintf(buf + *len, *len < size ? size - *len : 0, " for %s%s%s%s)", calls, item ? ", or center " : "",
                           item ? item : "", item ? " for every call of it" : "");
  free(item);
  return 1;
}

/* Appends to buf (size bytes, NUL-terminated) what is at file:line (file id)
 * instead of what was asked for (a loop: loop = 1, else a line context): a
 * source line or call site, a loop header, functions defined there, each with
 * the center item that names it. */
static void describe_line(const qv *q, int64_t file, const char *base, long long line, int loop, char *buf,
                          size_t size) {
  cct_err e = CCT_ERR_INIT;
  size_t len = strlen(buf);
  sqlite3_stmt *st = q_stmt(q, ST_CONTEXTS_AT, &e);
  if (st) {
    sqlite3_bind_int64(st, 2, file);
    sqlite3_bind_int64(st, 3, line);
    sqlite3_bind_int(st, 4, loop ? CCT_KIND_LINE : CCT_KIND_LOOP);
    int callsite = 0, found = 0;
    while (cct_step(st, &e) == CCT_STEP_ROW) found = 1, callsite |= sqlite3_column_int(st, 8); /* hints only */
    sqlite3_reset(st);
    if (found)
      len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "; %s:%lld is %s (center %s%s:%lld)", base,
                              line, !loop ? "a loop header" : callsite ? "a call site" : "a source line",
                              loop ? "" : "loop ", base, line);
  }
  int inlined = !loop && len < size && describe_inlined(q, file, base, line, buf, size, &len);
  st = len < size ? q_stmt(q, ST_FUNCTIONS_AT, &e) : NULL;
  if (!st) return;
  sqlite3_bind_int64(st, 2, file);
  sqlite3_bind_int64(st, 3, line);
  for (int k = 0; k < 3 && len < size && cct_step(st, &e) == CCT_STEP_ROW; k++) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    if (inlined && inline_placeholder(name)) continue; /* said above, better */
    char *item = quote_name(name);
    if (item)
      len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "; function %s is defined at %s:%lld (center %s)",
                              item, base, line, item);
    free(item);
  }
  sqlite3_reset(st);
}

/* Writes into buf what is at path:line instead of the loop (loop = 1) or line
 * context asked for (describe_line), then suggests loop headers (or lines)
 * with cost near line in the files matching path, never line itself, or close
 * file names when no file matches; an error lands in e_. */
static void suggest_lines(const qv *q, const char *path, long long line, int loop, char *buf, size_t size,
                          cct_err *e_) {
  suggest s = {{0}, {0}};
  cct_err e = CCT_ERR_INIT;
  int64_t *ids = NULL;
  size_t n = 0;
  char there[1500] = "";
  paths_matching(q, 0, path, &ids, &n, &e);
  for (size_t i = 0; i < n; i++) {
    const char *p = NULL;
    q_path(q, 0, ids[i], &p, &e);
    if (!p || !q->r->ncols) break;
    describe_line(q, ids[i], cct_basename(p), line, loop, there, sizeof there);
    sqlite3_stmt *st = q_stmt(q, loop ? ST_LOOP_COSTS : ST_LINE_COSTS, &e);
    if (!st) break;
    sqlite3_bind_int64(st, 2, ids[i]);
    sqlite3_bind_int64(st, 3, q->r->cols[q->disp].id);
    while (cct_step(st, &e) == CCT_STEP_ROW) { /* hints only */
      long long l = cct_scope_source_line(sqlite3_column_int64(st, 0)); /* (a scope line: cct_scope_line) */
      if (l < 0 || l == line) continue; /* none; the item that was just rejected */
      char name[512];
      snprintf(name, sizeof name, "%s%s:%lld", loop ? "loop " : "", cct_basename(p), l);
      long long d = l > line ? l - line : line - l;
      suggest_offer(&s, name, d > 1000000 ? 1000000 : (int)d);
    }
    sqlite3_reset(st);
  }
  free(ids);
  if (!n) {
    sqlite3_stmt *st = q_stmt(q, ST_FILES, &e);
    while (st && cct_step(st, &e) == CCT_STEP_ROW) { /* hints only */
      const char *p = (const char *)sqlite3_column_text(st, 1);
      if (!p) continue;
      int d = (int)cct_levenshtein(cct_basename(path), cct_basename(p), 99);
      if (d <= (int)strlen(cct_basename(path)) / 3 + 1) suggest_offer(&s, cct_basename(p), d);
    }
    if (st) sqlite3_reset(st);
  }
  size_t len = (size_t)snprintf(buf, size, "%s", there);
  if (len < size) suggest_format(&s, buf + len, size - len);
  else suggest_format(&s, buf, 1);
  if (e.code) cct_err_set(e_, e.code, "%s", e.msg);
}

/* Suggests, for a loop item with an address that matches nothing, the loops with an
 * address at path:line (line -1: those without a line), as their rows read; an error
 * lands in e_. */
static void suggest_addresses(const qv *q, const char *path, long long line, long long offset, char *buf, size_t size,
                              cct_err *e_) {
  suggest s = {{0}, {0}};
  cct_err e = CCT_ERR_INIT;
  int64_t *ids = NULL;
  size_t n = 0;
  paths_matching(q, 0, path, &ids, &n, &e);
  for (size_t i = 0; i < n && !e.code; i++) {
    const char *p = NULL;
    const int32_t *nodes;
    size_t nn = 0;
    if (q_path(q, 0, ids[i], &p, &e) || q_nodes_at(q, ids[i], line, CCT_KIND_LOOP, &nodes, &nn, &e)) break;
    for (size_t k = 0; k < nn; k++) {
      long long key = q_node_scope_line(&q->r->tree, nodes[k]), off = cct_scope_offset(key);
      char *name = off >= 0 ? q_scope_label(1, p, key, NULL, 1) : NULL;
      long long d = off > offset ? off - offset : offset - off;
      if (name) suggest_offer(&s, name, d > 1000000 ? 1000000 : (int)d);
      free(name);
    }
  }
  free(ids);
  size_t len = strlen(buf);
  suggest_format(&s, buf + len, size - len);
  if (e.code) cct_err_set(e_, e.code, "%s", e.msg);
}

/* ---- parsing ---- */

/* Copies s without surrounding white space and one level of matching quotes. */
static char *unquote(const char *s, size_t n) {
  while (n && isspace((unsigned char)*s)) s++, n--;
  while (n && isspace((unsigned char)s[n - 1])) n--;
  if (n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0]) s++, n -= 2;
  return strndup(s, n);
}

/* Splits "FILE:LINE"; returns 1 with *file malloc'd and *line set when arg has that form. */
static int split_file_line(const char *arg, char **file, long long *line) {
  const char *c = strrchr(arg, ':');
  if (!c || c == arg || c[-1] == ':' || !c[1]) return 0;
  for (const char *p = c + 1; *p; p++)
    if (!isdigit((unsigned char)*p)) return 0;
  *line = atoll(c + 1);
  *file = strndup(arg, (size_t)(c - arg));
  return *file != NULL;
}

/* The address of a loop item as its label reads it (q_scope_label): 'FILE:LINE
 * (+0x1a2b)' or 'FILE+0x1a2b'.  Returns 1 with *rest the part before it ('FILE:LINE',
 * 'FILE'; malloc'd) and *offset set, 0 when arg names no address (*offset -1), -1 when
 * out of memory. */
static int split_address(const char *arg, char **rest, long long *offset) {
  *offset = -1;
  *rest = NULL;
  size_t n = strlen(arg);
  int paren = n && arg[n - 1] == ')';
  const char *p = NULL;
  for (const char *h = strstr(arg, "+0x"); h; h = strstr(h + 1, "+0x")) p = h; /* the last one */
  if (!p || p == arg || (paren && (p - arg < 3 || strncmp(p - 2, " (", 2)))) return 0;
  const char *d = p + 3, *end = arg + n - (paren ? 1 : 0);
  if (d == end) return 0;
  for (const char *x = d; x < end; x++)
    if (!isxdigit((unsigned char)*x)) return 0;
  unsigned long long v = strtoull(d, NULL, 16);
  if (v == 0 || v >= (1ULL << CCT_SCOPE_OFFSET_BITS)) return 0; /* no point key has it (cct_scope_line) */
  if (!(*rest = strndup(arg, (size_t)(p - arg) - (paren ? 2 : 0)))) return -1;
  *offset = (long long)v;
  return 1;
}

static const struct {
  const char *word;
  int type;
} keywords[] = {{"glob", IT_GLOB},   {"re", IT_RE},       {"loop", IT_LOOP},       {"line", IT_LINE}, {"file", IT_FILE},
                {"module", IT_MODULE}, {"class", IT_CLASS}, {"namespace", IT_NAMESPACE}};

/* Parses item text into it (text, type, arg, line, id).  Returns CCT_OK or CCT_EUSAGE. */
static int parse_item(const char *text, citem *it, cct_err *err) {
  memset(it, 0, sizeof *it);
  it->offset = -1;
  while (isspace((unsigned char)*text)) text++;
  size_t n = strlen(text);
  while (n && isspace((unsigned char)text[n - 1])) n--;
  if (!n) return cct_err_set(err, CCT_EUSAGE, "empty center item");
  it->text = strndup(text, n);
  if (!it->text) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  const char *t = it->text;
  if (t[0] == '#' || t[0] == '@') {
    char *end = NULL;
    long long v = strtoll(t + 1, &end, 10);
    if (!t[1] || *end || v < 0)
      return cct_err_set(err, CCT_EUSAGE, "bad item '%s': expected %cNUMBER", t, t[0]);
    it->type = t[0] == '#' ? IT_CTX : -1; /* -1: '@N', resolved by the caller */
    it->id = v;
    return CCT_OK;
  }
  if (t[0] != '\'' && t[0] != '"') {
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++) {
      size_t w = strlen(keywords[k].word);
      if (!strncmp(t, keywords[k].word, w) && isspace((unsigned char)t[w])) {
        it->type = keywords[k].type;
        it->arg = unquote(t + w, n - w);
        if (!it->arg) return cct_err_set(err, CCT_ENOMEM, "out of memory");
        if (!*it->arg) return cct_err_set(err, CCT_EUSAGE, "bad item '%s': '%s' needs an argument", t, keywords[k].word);
        if ((it->type == IT_LOOP || it->type == IT_LINE) && !strncmp(it->arg, "in ", 3)) {
          char *name = unquote(it->arg + 3, strlen(it->arg + 3)); /* 'loop in NAME', as such a row reads */
          if (!name) return cct_err_set(err, CCT_ENOMEM, "out of memory");
          free(it->arg);
          it->arg = name;
          it->type = it->type == IT_LOOP ? IT_LOOP_IN : IT_LINE_IN;
          if (!*name) return cct_err_set(err, CCT_EUSAGE, "bad item '%s': expected '%s in FUNCTION'", t, keywords[k].word);
        } else if (it->type == IT_LOOP || it->type == IT_LINE) { /* 'line FILE:LINE' is FILE:LINE */
          char *file = NULL;
          const char *a = it->arg + (it->type == IT_LOOP && !strncmp(it->arg, "at ", 3) ? 3 : 0); /* as a row reads */
          char *at = NULL; /* 'loop at f.c:12 (+0x1a2b)', 'loop at [libfoo.so]+0x1a2b' */
          int addr = it->type == IT_LOOP ? split_address(a, &at, &it->offset) : 0;
          if (addr < 0) return cct_err_set(err, CCT_ENOMEM, "out of memory");
          if (addr && a[strlen(a) - 1] != ')') { /* 'loop at [libfoo.so]+0x1a2b': a loop without a line */
            file = at, at = NULL, it->line = -1;
          } else if (!split_file_line(at ? at : a, &file, &it->line)) {
            free(at);
            return cct_err_set(err, CCT_EUSAGE, "bad item '%s': expected '%s FILE:LINE'%s", t, keywords[k].word,
                               it->type == IT_LOOP ? " or 'loop at FILE+0xOFFSET'" : "");
          }
          free(at);
          free(it->arg);
          it->arg = file;
          char label[600]; /* the item's name as rows read it: 'loop at f.c:12', 'f.c:12' (the file as typed) */
          if (it->offset >= 0 && it->line < 0) snprintf(label, sizeof label, "loop at %s+0x%llx", file, it->offset);
          else if (it->offset >= 0) snprintf(label, sizeof label, "loop at %s:%lld (+0x%llx)", file, it->line, it->offset);
          else snprintf(label, sizeof label, "%s%s:%lld", it->type == IT_LOOP ? "loop at " : "", file, it->line);
          free(it->text);
          if (!(it->text = strdup(label))) return cct_err_set(err, CCT_ENOMEM, "out of memory");
        }
        return CCT_OK;
      }
    }
    char *file = NULL;
    if (split_file_line(t, &file, &it->line)) {
      it->type = IT_LINE;
      it->arg = file;
      return CCT_OK;
    }
  }
  it->type = IT_NAME;
  it->arg = unquote(t, n);
  if (!it->arg) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  if (!*it->arg) return cct_err_set(err, CCT_EUSAGE, "empty center item");
  return CCT_OK;
}

static void item_free(citem *it) {
  free(it->text);
  free(it->arg);
  free(it->occ);
  memset(it, 0, sizeof *it);
}

/* Appends contexts of kind at (file ids matching path or file id, line), with offset >= 0
 * the loops among them whose scope line has that address (line -1: loops without a line). */
static int contexts_at(const qv *q, const int64_t *files, size_t nfiles, long long line, int kind, long long offset,
                       occlist *l, cct_err *err) {
  const cct_tree *t = &q->r->tree;
  for (size_t i = 0; i < nfiles; i++) {
    const int32_t *nodes;
    size_t n = 0;
    if (line < 0 && offset < 0) continue;
    int rc = q_nodes_at(q, files[i], line, kind, &nodes, &n, err);
    for (size_t k = 0; !rc && k < n; k++)
      if (offset < 0 || cct_scope_offset(q_node_scope_line(t, nodes[k])) == offset) rc = push_nodes(q, &nodes[k], 1, l, err);
    if (rc) return rc;
  }
  return CCT_OK;
}

/* Whether name[0..len) ends with arg, blanks aside ('eval<1,1,1>' is 'eval<1, 1, 1>'),
 * the match starting name or following '::'. */
static int ends_with(const char *name, size_t len, const char *arg) {
  size_t i = len, j = strlen(arg);
  for (;;) {
    while (i && name[i - 1] == ' ') i--;
    while (j && arg[j - 1] == ' ') j--;
    if (!j) return i == 0 || (i >= 2 && name[i - 1] == ':' && name[i - 2] == ':');
    if (!i || name[i - 1] != arg[j - 1]) return 0;
    i--, j--;
  }
}

/* Whether name, cut at its first '(' or at its first '<' (a C++ parameter list or
 * template arguments), is arg or ends with '::' arg (blanks aside). */
static int names_function(const char *name, const char *arg) {
  for (int k = 0; k < 2; k++) {
    const char *cut = strchr(name, k ? '<' : '(');
    if (cut && ends_with(name, (size_t)(cut - name), arg)) return 1;
  }
  return 0;
}

/* The frames of the functions a NAME item names by its part before '(' or '<'
 * (SPEC section 4 names need the full C++ parameter list; issue 27 item 11):
 * when they all have one name, their frames go into l; several names are
 * CCT_ENOTFOUND listing them; none leaves l empty.  Returns CCT_OK or an error. */
static int name_prefix(const qv *q, const char *arg, occlist *l, cct_err *err) {
  sqlite3_stmt *st = q_stmt(q, ST_FUNCTION_NAMES, err);
  if (!st) return CCT_ESQL;
  int64_t *ids = NULL;
  char *names[8] = {0}; /* the distinct names, the first 8 */
  size_t nids = 0, cap = 0, nnames = 0;
  int rc = CCT_OK, step;
  while (!rc && (step = cct_step(st, err)) == CCT_STEP_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 1);
    if (!name || !names_function(name, arg)) continue;
    size_t k = 0;
    while (k < nnames && k < 8 && strcmp(names[k], name)) k++;
    if (k == nnames) {
      if (nnames < 8 && !(names[nnames] = strdup(name))) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      nnames++;
    }
    if (!rc && CCT_GROW(ids, nids + 1, cap)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    if (!rc) ids[nids++] = sqlite3_column_int64(st, 0);
  }
  if (!rc && step != CCT_STEP_DONE) rc = step;
  sqlite3_reset(st);
  if (!rc && nnames > 1) {
    char list[900] = "";
    size_t len = 0;
    for (size_t k = 0; k < nnames && k < 8 && len < sizeof list; k++)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s'", k ? ", " : "", names[k]);
    rc = cct_err_set(err, CCT_ENOTFOUND, "'%s' names %zu functions in run %d: %s%s; center one by its full name", arg,
                     nnames, q->shown_run, list, nnames > 8 ? ", ..." : "");
  }
  for (size_t i = 0; !rc && nnames == 1 && i < nids; i++) rc = frames_of(q, ids[i], l, err);
  for (size_t k = 0; k < nnames && k < 8; k++) free(names[k]);
  free(ids);
  return rc;
}

/* Resolves it in the current run into it->occ.  An item that matches nothing
 * returns CCT_ENOTFOUND with a message and suggestions. */
static int resolve_item(const qv *q, citem *it, cct_err *err) {
  occlist l = {0};
  int rc = CCT_OK;
  sqlite3_stmt *st = NULL;
  int64_t *ids = NULL;
  size_t nids = 0;
  switch (it->type) {
  case IT_NAME:
    if (!(st = q_stmt(q, ST_FUNCTIONS_BY_NAME, err))) return CCT_ESQL;
    sqlite3_bind_text(st, 2, it->arg, -1, SQLITE_TRANSIENT);
    rc = frames_of_ids(q, st, 0, &l, err);
    if (!rc && !l.n) rc = name_prefix(q, it->arg, &l, err); /* 'CommSend' for 'CommSend(int, double*)' */
    break;
  case IT_GLOB:
    if (!(st = q_stmt(q, ST_FUNCTIONS_BY_GLOB, err))) return CCT_ESQL;
    sqlite3_bind_text(st, 2, it->arg, -1, SQLITE_TRANSIENT);
    rc = frames_of_ids(q, st, 0, &l, err);
    break;
  case IT_RE: {
    regex_t re;
    char m[300];
    if (cct_regcomp(&re, it->arg, REG_EXTENDED | REG_NOSUB, m, sizeof m)) return cct_err_set(err, CCT_EUSAGE, "%s", m);
    if (!(st = q_stmt(q, ST_FUNCTION_NAMES, err))) {
      regfree(&re);
      return CCT_ESQL;
    }
    size_t cap = 0, seen = 0;
    int step = CCT_STEP_DONE;
    double t0 = cct_seconds();
    while (!rc && (step = cct_step(st, err)) == CCT_STEP_ROW) { /* an interrupt stops the next step */
      const char *name = (const char *)sqlite3_column_text(st, 1);
      seen++;
      if (cct_seconds() - t0 > CCT_RE_BUDGET_S) {
        rc = cct_err_set(err, CCT_EUSAGE, "regular expression '%s' took more than %d s over %zu names: give a simpler one",
                         it->arg, CCT_RE_BUDGET_S, seen);
        break;
      }
      if (!name || !cct_regmatch(&re, name)) continue;
      if (CCT_GROW(ids, nids + 1, cap)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      if (!rc) ids[nids++] = sqlite3_column_int64(st, 0);
    }
    if (!rc) rc = step;
    sqlite3_reset(st);
    regfree(&re);
    for (size_t i = 0; !rc && i < nids; i++) rc = frames_of(q, ids[i], &l, err);
    break;
  }
  case IT_LINE:
  case IT_LOOP:
    rc = paths_matching(q, 0, it->arg, &ids, &nids, err);
    if (!rc)
      rc = contexts_at(q, ids, nids, it->line, it->type == IT_LOOP ? CCT_KIND_LOOP : CCT_KIND_LINE, it->offset, &l, err);
    break;
  case IT_LINE_ID:
  case IT_LOOP_ID:
    rc = contexts_at(q, &it->id, 1, it->line, it->type == IT_LOOP_ID ? CCT_KIND_LOOP : CCT_KIND_LINE, it->offset, &l, err);
    break;
  case IT_LOOP_IN:
  case IT_LINE_IN:
    if (!(st = q_stmt(q, ST_FUNCTIONS_BY_NAME, err))) return CCT_ESQL;
    sqlite3_bind_text(st, 2, it->arg, -1, SQLITE_TRANSIENT);
    rc = frames_of_ids(q, st, it->type == IT_LOOP_IN ? CCT_KIND_LOOP : CCT_KIND_LINE, &l, err);
    break;
  case IT_LOOP_IN_ID:
  case IT_LINE_IN_ID:
    rc = unlined_in(q, it->id2, it->id, it->type == IT_LOOP_IN_ID ? CCT_KIND_LOOP : CCT_KIND_LINE, &l, err);
    break;
  case IT_FILE:
  case IT_MODULE:
    rc = paths_matching(q, it->type == IT_MODULE, it->arg, &ids, &nids, err);
    for (size_t i = 0; !rc && i < nids; i++) {
      if (!(st = q_stmt(q, it->type == IT_MODULE ? ST_FUNCTIONS_BY_MODULE : ST_FUNCTIONS_BY_FILE, err))) {
        rc = CCT_ESQL;
        break;
      }
      sqlite3_bind_int64(st, 2, ids[i]);
      rc = frames_of_ids(q, st, 0, &l, err);
    }
    break;
  case IT_FILE_ID:
  case IT_MODULE_ID:
    if (!(st = q_stmt(q, it->type == IT_MODULE_ID ? ST_FUNCTIONS_BY_MODULE : ST_FUNCTIONS_BY_FILE, err)))
      return CCT_ESQL;
    sqlite3_bind_int64(st, 2, it->id);
    rc = frames_of_ids(q, st, 0, &l, err);
    break;
  case IT_CLASS:
  case IT_NAMESPACE:
    if (!(st = q_stmt(q, it->type == IT_CLASS ? ST_FUNCTIONS_BY_CLASS : ST_FUNCTIONS_BY_NAMESPACE, err)))
      return CCT_ESQL;
    sqlite3_bind_text(st, 2, it->arg, -1, SQLITE_TRANSIENT);
    rc = frames_of_ids(q, st, 0, &l, err);
    break;
  case IT_FUNCTION_ID:
    rc = frames_of(q, it->id, &l, err);
    break;
  case IT_INSTR:
    if (!(st = q_stmt(q, ST_INSTRUCTIONS_AT, err))) return CCT_ESQL;
    sqlite3_bind_int64(st, 2, it->id);
    sqlite3_bind_int64(st, 3, it->id2);
    rc = collect(q, st, &l, err);
    break;
  case IT_CTX: {
    qctx c;
    rc = q_load_ctx(q, it->id, &c, err);
    if (rc == CCT_ENOTFOUND) rc = CCT_OK;
    else if (!rc && occ_push(&l, &c)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    break;
  }
  default:
    rc = cct_err_set(err, CCT_EUSAGE, "bad item '%s'", it->text);
  }
  free(ids);
  if (!rc && !l.n) {
    char sug[2000] = "";
    static const char *const what[] = {[IT_NAME] = "function", [IT_GLOB] = "function matching",
                                       [IT_RE] = "function matching", [IT_LINE] = "line context at",
                                       [IT_LOOP] = "loop at", [IT_FILE] = "function in file",
                                       [IT_MODULE] = "function in module", [IT_CLASS] = "function of class",
                                       [IT_NAMESPACE] = "function of namespace", [IT_CTX] = "context",
                                       [IT_FUNCTION_ID] = "frame of", [IT_FILE_ID] = "function in",
                                       [IT_MODULE_ID] = "function in", [IT_LINE_ID] = "line context at",
                                       [IT_LOOP_ID] = "loop at", [IT_INSTR] = "instruction context at",
                                       [IT_LOOP_IN] = "loop without a source line in",
                                       [IT_LINE_IN] = "line without a source line in",
                                       [IT_LOOP_IN_ID] = "loop", [IT_LINE_IN_ID] = "line"};
    cct_err se = CCT_ERR_INIT; /* reading the hints failed: that error, not 'no such item' */
    if (it->type == IT_NAME) suggest_functions(q, it->arg, sug, sizeof sug, &se);
    else if (it->type == IT_LOOP && it->offset >= 0) suggest_addresses(q, it->arg, it->line, it->offset, sug, sizeof sug, &se);
    else if (it->type == IT_LINE || it->type == IT_LOOP) suggest_lines(q, it->arg, it->line, it->type == IT_LOOP, sug, sizeof sug, &se);
    if (se.code) {
      free(l.v);
      return cct_err_set(err, se.code, "%s", se.msg);
    }
    char at[600];
    const char *shown = it->type == IT_CTX ? it->text + 1
                        : it->type == IT_NAME || it->type == IT_LOOP_IN || it->type == IT_LINE_IN ? it->arg
                                                                                                 : it->text;
    if ((it->type == IT_LINE || it->type == IT_LOOP) && it->offset < 0)
      snprintf(at, sizeof at, "%s:%lld", it->arg, it->line), shown = at;
    else if (it->type == IT_LOOP) shown = it->text + strlen("loop at "); /* its address too */
    rc = cct_err_set(err, CCT_ENOTFOUND, "no %s '%s' in run %d%s%s", what[it->type], shown, q->shown_run,
                     q->nfilters ? " as filtered ('filter' lists the filters)" : "", sug);
  }
  if (rc) {
    free(l.v);
    return rc;
  }
  occ_normalize(&l);
  free(it->occ);
  it->occ = l.v;
  it->nocc = l.n;
  return CCT_OK;
}

/* Quotes name for an item text when it has white space or starts with a keyword-like word. */
static char *quote_name(const char *name) {
  int plain = *name && !strpbrk(name, " \t'\"") && name[0] != '#' && name[0] != '@';
  size_t n = strlen(name) + 3;
  char *s = malloc(n);
  if (s) snprintf(s, n, plain ? "%s" : strchr(name, '\'') ? "\"%s\"" : "'%s'", name);
  return s;
}

/* Turns '@N' into a concrete item from the last view.  Returns CCT_OK,
 * CCT_EUSAGE, or -1 for the top row (no change). */
static int resolve_handle(const qv *q, citem *it, const lastrow *facts, size_t nfacts, cct_err *err) {
  long long h = it->id;
  if (h < 1 || (size_t)h > nfacts || !facts)
    return cct_err_set(err, CCT_ENOTFOUND, "no row @%lld in the last view%s", h, nfacts ? "" : " (no view yet)");
  const lastrow *r = &facts[h - 1];
  char buf[600];
  const char *file = NULL;
  int rc = q_path(q, 0, r->file, &file, err);
  if (rc) return rc;
  free(it->text);
  it->text = NULL;
  switch (r->kind) {
  case CCT_ROW_CENTER: return -1;
  case CCT_ROW_FUNCTION:
    it->type = IT_FUNCTION_ID;
    it->id = r->function;
    it->arg = q_strdup(r->name);
    it->text = quote_name(r->name);
    break;
  case CCT_ROW_LOOP:
  case CCT_ROW_LINE:
    if (cct_scope_is_point(r->line)) { /* a loop keyed by its address: that loop, named as its row reads */
      it->type = IT_LOOP_ID;
      it->id = r->file;
      it->line = cct_scope_source_line(r->line);
      it->offset = cct_scope_offset(r->line);
      it->arg = q_strdup(file);
      it->text = q_strdup(r->name);
      break;
    }
    if (cct_scope_function(r->line) > 0) { /* one without a line: those of its function (cct_scope_line) */
      it->type = r->kind == CCT_ROW_LOOP ? IT_LOOP_IN_ID : IT_LINE_IN_ID;
      it->id = r->file;
      it->id2 = cct_scope_function(r->line);
      it->text = q_strdup(r->name);
      break;
    }
    if (!file || r->line < 0) return cct_err_set(err, CCT_ENOTFOUND, "row @%lld has no source line", h);
    it->type = r->kind == CCT_ROW_LOOP ? IT_LOOP_ID : IT_LINE_ID;
    it->id = r->file;
    it->line = r->line;
    it->arg = q_strdup(file);
    it->text = q_scope_label(r->kind == CCT_ROW_LOOP, file, r->line, NULL, 0);
    break;
  case CCT_ROW_INSTRUCTION:
    it->type = IT_INSTR;
    it->id = r->module;
    it->id2 = r->offset;
    it->text = q_strdup(r->name);
    break;
  case CCT_ROW_FILE:
  case CCT_ROW_MODULE: {
    const char *p = NULL;
    if ((rc = q_path(q, r->kind == CCT_ROW_MODULE, r->kind == CCT_ROW_MODULE ? r->module : r->file, &p, err)))
      return rc;
    it->type = r->kind == CCT_ROW_MODULE ? IT_MODULE_ID : IT_FILE_ID;
    it->id = r->kind == CCT_ROW_MODULE ? r->module : r->file;
    it->arg = q_strdup(p);
    snprintf(buf, sizeof buf, "%s %s", r->kind == CCT_ROW_MODULE ? "module" : "file", p ? p : "?");
    it->text = strdup(buf);
    break;
  }
  default: return cct_err_set(err, CCT_EUSAGE, "row @%lld cannot be a center", h);
  }
  if (!it->text) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  return CCT_OK;
}

/* ---- derived sets ---- */

static void clear_derived(cct_center *c) {
  free(c->O_own);
  free(c->outer);
  free(c->lexouter);
  for (size_t k = 0; c->cv && k < c->ncols; k++) free(c->cv[k]);
  free(c->cv);
  c->O = c->O_own = NULL;
  c->outer = c->lexouter = NULL;
  c->cv = NULL;
  c->nO = 0;
  qmap_free(&c->cfuncs);
}

cct_center *cct_center_share(const cct_center *c) {
  cct_center *s = cct_unconst(c);
  if (s && s != &q_no_center) s->owners++;
  return s;
}

void cct_center_free(cct_center *c) {
  if (!c || c == &q_no_center) return;
  if (c->owners) { /* another owner keeps it */
    c->owners--;
    return;
  }
  for (size_t i = 0; i < c->nitems; i++) item_free(&c->items[i]);
  free(c->items);
  clear_derived(c);
  free(c);
}

/* Computes c's O, O* and the exclusive set from its items (run q->r); the values
 * are read later, column by column, when a view needs them (q_center_need). */
static int center_rebuild(const qv *q, cct_center *c, cct_err *err) {
  clear_derived(c);
  c->run = q->shown_run;
  c->tree = q->tree;
  c->ncols = q->r->ncols;
  if (!c->nitems) return CCT_OK;
  occlist l = {0};
  if (c->nitems == 1) { /* already sorted and unique: the item's list as it is, not a copy (12 MB at 74,000) */
    c->O = c->items[0].occ;
    l.n = c->items[0].nocc;
  } else {
    for (size_t i = 0; i < c->nitems; i++)
      for (size_t j = 0; j < c->items[i].nocc; j++)
        if (occ_push(&l, &c->items[i].occ[j])) {
          free(l.v);
          return cct_err_set(err, CCT_ENOMEM, "out of memory");
        }
    occ_normalize(&l);
  }
  size_t n = l.n;
  if (c->nitems != 1) c->O = c->O_own = l.v;
  c->nO = n;
  c->outer = calloc(n ? n : 1, 1);
  c->lexouter = calloc(n ? n : 1, 1);
  c->cv = calloc(c->ncols ? c->ncols : 1, sizeof *c->cv);
  size_t *stack = malloc((n ? n : 1) * sizeof *stack);
  if (!c->outer || !c->lexouter || !c->cv || !stack) {
    free(stack);
    clear_derived(c);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  int rc = CCT_OK, added;
  for (size_t i = 0; !rc && i < n; i++)
    if (c->O[i].frame == c->O[i].pre && c->O[i].kind != CCT_KIND_ROOT &&
        !qmap_put(&c->cfuncs, c->O[i].function, 0, 0, 0, 0, 1, &added))
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  /* Sweep in pre order with the stack of open members (all ancestors in O). */
  size_t top = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    const qctx *x = &c->O[i];
    while (top && c->O[stack[top - 1]].last < x->pre) top--;
    c->outer[i] = top == 0;
    c->lexouter[i] = top == 0 || c->O[stack[top - 1]].frame != x->frame;
    stack[top++] = i;
  }
  free(stack);
  if (rc) clear_derived(c);
  return rc;
}

int q_center_need(const qv *q, const size_t *cols, size_t n, cct_err *err) {
  const cct_center *c = q->c;
  if (!c->nO || !n) return CCT_OK;
  size_t *miss = malloc(n * sizeof *miss), nmiss = 0; /* the columns not read yet */
  if (!miss) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  size_t tcol = q_trace_column(q->r);
  if (tcol < c->ncols && c->cv[tcol] && c->cv_window != q_window_serial(q)) { /* of another window */
    free(c->cv[tcol]);
    c->cv[tcol] = NULL;
  }
  for (size_t k = 0; k < n; k++) {
    int dup = cols[k] >= c->ncols || c->cv[cols[k]] != NULL;
    for (size_t j = 0; j < nmiss && !dup; j++) dup = miss[j] == cols[k];
    if (!dup) miss[nmiss++] = cols[k];
  }
  /* The run's primary metric is in the occurrences (qctx.pv), what q_values_many would copy
   * out of them (an archive's run, not the windowed trace column): taken from there, with
   * no copy of 3 values per occurrence; the others are read, nread columns in one call. */
  size_t *rd = malloc((nmiss + 1) * sizeof *rd), nread = 0;
  if (!rd) {
    free(miss);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  for (size_t m = 0; m < nmiss; m++) {
    int direct = !q->r->ft && miss[m] == q->r->primary && !(q->win && miss[m] == q->win->col);
    rd[m] = direct ? (size_t)-1 : nread++;
  }
  size_t *rcols = malloc((nread + 1) * sizeof *rcols);
  int64_t *pres = nread ? malloc(c->nO * sizeof *pres) : NULL;
  double *vals = nread ? malloc(c->nO * 3 * nread * sizeof *vals) : NULL;
  int rc = rcols && (!nread || (pres && vals)) ? CCT_OK : cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t m = 0; !rc && m < nmiss; m++)
    if (rd[m] != (size_t)-1) rcols[rd[m]] = miss[m];
  for (size_t i = 0; !rc && i < (nread ? c->nO : 0); i++) pres[i] = c->O[i].pre;
  if (!rc && nread)
    rc = q_values_many(q, pres, c->nO, rcols, nread, c->O[0].pv, sizeof *c->O, vals, 3 * nread, err);
  for (size_t m = 0; !rc && m < nmiss; m++) {
    double *v = calloc(c->nO * 3, sizeof *v);
    if (!v) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    /* the members of O inside an O* member follow it in pre order, up to the next O* member */
    size_t outer_idx = 0;
    for (size_t i = 0; i < c->nO; i++) {
      const double *x = rd[m] == (size_t)-1 ? c->O[i].pv : vals + 3 * nread * i + 3 * rd[m];
      if (c->outer[i]) outer_idx = i, v[3 * i] = x[0];
      if (c->lexouter[i]) v[3 * outer_idx + 1] += x[1], v[3 * outer_idx + 2] += x[2];
    }
    c->cv[miss[m]] = v; /* the cache behind the const center: filled once, never changed */
    if (miss[m] == tcol) ((cct_center *)cct_unconst(c))->cv_window = q_window_serial(q); /* the trace column: per window */
  }
  free(miss);
  free(rd);
  free(rcols);
  free(pres);
  free(vals);
  return rc;
}

void q_center_top(const cct_center *c, const size_t *vcols, size_t n, int lex, double *incl, double *excl) {
  for (size_t k = 0; k < n; k++) {
    incl[k] = excl[k] = 0;
    const double *v = vcols[k] < c->ncols ? c->cv[vcols[k]] : NULL;
    for (size_t i = 0; v && i < c->nO; i++) {
      if (!c->outer[i]) continue;
      incl[k] += v[3 * i];
      excl[k] += v[3 * i + (lex ? 2 : 1)];
    }
  }
}

char *q_scope_label(int loop, const char *path, long long line, const char *fname, int shared) {
  const char *base = path ? cct_basename(path) : "?";
  char buf[1200];
  long long off = cct_scope_offset(line), src = cct_scope_source_line(line);
  if (off >= 0 && src < 0) snprintf(buf, sizeof buf, "loop at %s+0x%llx", base, off); /* a point key (loops only) */
  else if (off >= 0 && shared) snprintf(buf, sizeof buf, "loop at %s:%lld (+0x%llx)", base, src, off);
  else if (off >= 0) snprintf(buf, sizeof buf, "loop at %s:%lld", base, src);
  else if (line >= 0) snprintf(buf, sizeof buf, "%s%s:%lld", loop ? "loop at " : "", base, line);
  else if (!fname) snprintf(buf, sizeof buf, "%s%s", loop ? "loop at " : "", base);
  else if (strstr(fname, base) || base[0] == '<' || base[0] == '~') /* (no placeholder: '<unknown file>') */
    snprintf(buf, sizeof buf, "%s in %s", loop ? "loop" : "line", fname);
  else if (base[0] == '[') snprintf(buf, sizeof buf, "%s in %s %s", loop ? "loop" : "line", fname, base);
  else snprintf(buf, sizeof buf, "%s in %s (%s)", loop ? "loop" : "line", fname, base);
  return strdup(buf);
}

const char *q_center_label(const cct_center *c) {
  if (c->nitems != 1) return "<multiple contexts>";
  return c->items[0].type == IT_NAME ? c->items[0].arg : c->items[0].text; /* a name without its quotes */
}

int q_center_has_function(const cct_center *c, int64_t fn) { return qmap_get(&c->cfuncs, fn, 0, 0, 0, 0) != NULL; }

/* A new center holding copies of base's items (with their occurrences when occ is set). */
static int center_copy(const cct_center *base, int occ, cct_center **out, cct_err *err) {
  cct_center *c = calloc(1, sizeof *c);
  *out = c;
  if (!c) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  c->run = base ? base->run : 0;
  c->tree = base ? base->tree : 0;
  if (!base || !base->nitems) return CCT_OK;
  c->items = calloc(base->nitems, sizeof *c->items);
  if (!c->items) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; i < base->nitems; i++) {
    const citem *a = &base->items[i];
    citem *b = &c->items[c->nitems++];
    *b = *a;
    b->text = q_strdup(a->text);
    b->arg = q_strdup(a->arg);
    b->occ = NULL;
    b->nocc = 0;
    if (occ && a->nocc && (b->occ = malloc(a->nocc * sizeof *b->occ))) {
      memcpy(b->occ, a->occ, a->nocc * sizeof *b->occ);
      b->nocc = a->nocc;
    }
    if ((a->text && !b->text) || (a->arg && !b->arg) || (occ && a->nocc && !b->occ))
      return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  return CCT_OK;
}

int q_center_rerun(const qv *q, const cct_center *base, cct_center **out, char **missing, cct_err *err) {
  cct_center *c = NULL;
  *out = NULL;
  if (missing) *missing = NULL;
  int rc = center_copy(base, 0, &c, err);
  size_t k = 0;
  for (size_t i = 0; !rc && i < c->nitems; i++) {
    citem *it = &c->items[i];
    cct_err e = CCT_ERR_INIT;
    int r = CCT_OK;
    if (it->type == IT_FUNCTION_ID || it->type == IT_FILE_ID || it->type == IT_MODULE_ID || it->type == IT_LINE_ID ||
        it->type == IT_LOOP_ID || it->type == IT_INSTR || it->type == IT_LOOP_IN_ID || it->type == IT_LINE_IN_ID) {
      /* ids do not carry over between runs: the item as its text reads ('@N' rows are named by label) */
      citem t;
      r = parse_item(it->text, &t, &e);
      item_free(it);
      *it = t;
      if (!r && it->type == -1) r = CCT_ENOTFOUND;
    }
    if (!r) r = resolve_item(q, it, &e);
    if (r == CCT_OK) {
      c->items[k++] = *it;
      continue;
    }
    if (r != CCT_ENOTFOUND && r != CCT_EUSAGE) { /* the archive failed: no half-resolved center */
      rc = cct_err_set(err, r, "%s", e.msg);
      break;
    }
    if (missing) { /* matches nothing in this run: left out, and named */
      sqlite3_str *m = sqlite3_str_new(NULL);
      sqlite3_str_appendf(m, "%s%s'%s'", *missing ? *missing : "", *missing ? ", " : "", it->text);
      free(*missing);
      if (!(*missing = cct_str_take(m))) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    }
    item_free(it);
  }
  if (!rc) {
    c->nitems = k;
    rc = center_rebuild(q, c, err);
  }
  if (rc) {
    if (c) { /* items [0, k) were kept, the one at k may be half done, the rest untouched */
      for (size_t i = k; i < c->nitems; i++) item_free(&c->items[i]);
      c->nitems = k;
    }
    cct_center_free(c);
    if (missing) {
      free(*missing);
      *missing = NULL;
    }
    return rc;
  }
  *out = c;
  return CCT_OK;
}

int q_center_edit(const qv *q, const cct_center *base, int op, const char *item, const lastrow *facts, size_t nfacts,
                  cct_center **out, cct_err *err) {
  *out = NULL;
  citem it;
  int rc = parse_item(item ? item : "", &it, err);
  if (!rc && it.type == -1) {
    rc = resolve_handle(q, &it, facts, nfacts, err);
    if (rc == -1) { /* the top row: the center as it is (*out NULL) */
      item_free(&it);
      return CCT_OK;
    }
  }
  if (!rc && op != CCT_CENTER_REMOVE) rc = resolve_item(q, &it, err);
  cct_center *c = NULL;
  if (!rc) rc = center_copy(op == CCT_CENTER_SET ? NULL : base, 1, &c, err);
  if (!rc && op == CCT_CENTER_REMOVE) {
    size_t i = 0;
    while (i < c->nitems && strcmp(c->items[i].text, it.text) &&
           (!it.arg || !c->items[i].arg || strcmp(c->items[i].arg, it.arg) || c->items[i].type != it.type))
      i++;
    if (i == c->nitems) {
      rc = cct_err_set(err, CCT_ENOTFOUND, "'%s' is not in the center", it.text);
    } else {
      item_free(&c->items[i]);
      memmove(c->items + i, c->items + i + 1, (c->nitems - i - 1) * sizeof *c->items);
      c->nitems--;
    }
    item_free(&it);
  } else if (!rc) {
    size_t i = 0;
    while (i < c->nitems && strcmp(c->items[i].text, it.text)) i++;
    if (i < c->nitems) { /* already there: refresh */
      item_free(&c->items[i]);
      c->items[i] = it;
    } else {
      citem *v = cct_reallocarray(c->items, c->nitems + 1, sizeof *v);
      if (!v) {
        item_free(&it);
        rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      } else {
        c->items = v;
        c->items[c->nitems++] = it;
      }
    }
  } else {
    item_free(&it);
  }
  if (!rc) rc = center_rebuild(q, c, err);
  if (rc) {
    cct_center_free(c);
    return rc;
  }
  *out = c;
  return CCT_OK;
}

size_t cct_center_size(const cct_center *c) { return c ? c->nitems : 0; }

const char *cct_center_text(const cct_center *c, size_t i) { return c && i < c->nitems ? c->items[i].text : NULL; }

long long cct_center_occ(const cct_center *c, size_t i) { return c && i < c->nitems ? (long long)c->items[i].nocc : 0; }

int cct_center_run(const cct_center *c) { return c ? c->run : 0; }
