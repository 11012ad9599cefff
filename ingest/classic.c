/* classic.c: reader of classic HPCToolkit databases (experiment.xml DTD 2.0,
 * 2.1 and 2.2, plus the per-thread big-endian *.metric-db files).  The XML is
 * streamed with libxml2's xmlTextReader (never a whole DOM) and the tree is
 * handed to the writer in document order, which is pre-order.  Metric-db files
 * (separate, or embedded in hpcviewer's merged .mdb: see mdb.c) are read one
 * at a time, so memory does not grow with the number of threads. */
#include "cct_util.h"
#include "classic_int.h"
#include "idmap.h"
#include "ingest_int.h"

#include <dirent.h>
#include <errno.h>
#include <libxml/xmlreader.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Attributes of one element that the reader cares about (NULL when absent);
 * the strings belong to the xmlTextReader and die at the next read. */
typedef struct attrs {
  const char *i, *n, *l, *lm, *f, *a, *t, *partner, *v, *db_id, *it;
} attrs;

/* A <Metric> or <MetricDB> column: where its values go. */
typedef struct column {
  int64_t xml_id; /* Metric@i or MetricDB@db-id */
  int metric;     /* writer metric index */
  int which;      /* CCT_INCLUSIVE or CCT_EXCLUSIVE_LEX */
  int is_min;     /* a Min statistic: 2.22507e-308 means unset */
} column;

/* One open CCT element. */
typedef struct open_elem {
  int loop;         /* 1 for <L> */
  int frame;        /* 1 for <PF>, 2 for <Pr> (inlined) */
  int any_minus;    /* minus holds a non-zero value */
  int skipped;      /* 1 for a prof2 wrapper with a negative id: no context */
  int64_t lm;       /* LoadModule id of the nearest frame (PF/Pr lm), CCT_NONE when unknown */
  double *loopsum;  /* per metric: function-scope exclusive of nested loops (L only) */
  double *excl_lex; /* per metric: this element's lex-aware exclusive, as read (L, PF, Pr) */
  double *minus;    /* per metric: exclusive of inlined frames (Pr) directly inside (L, PF, Pr) */
} open_elem;

typedef struct reader {
  const char *path;      /* experiment.xml path, for messages */
  xmlTextReaderPtr xr;
  cct_writer *w;
  cct_err *err;
  cct_idmap procs;       /* Procedure@i -> index in names */
  char **names;          /* procedure names */
  size_t nnames, names_cap;
  cct_idmap fns;         /* (Procedure id, lm << 32 | f) -> 1 once declared */
  cct_idmap metric_ids;  /* Metric@i -> index in cols */
  column *cols;          /* <Metric> columns */
  size_t ncols;
  column *dbcols;        /* <MetricDB> columns */
  size_t ndbcols;
  int nmetrics;          /* writer metric columns */
  char **metric_keys;    /* per writer metric: "base\tstat", to pair I and E */
  open_elem *stack;      /* open CCT elements */
  int depth, stack_cap;
  int in_data;           /* inside SecCallPathProfileData */
  int root_open;
  long long file_size;
  int64_t max_id;        /* largest context id of the tree: a metric-db file has that many nodes */
  const cct_xml_hooks *hooks; /* prof2 (prof2.c), else NULL */
} reader;

static int fail(reader *r, int code, const char *what) {
  /* the line of the element being handled; the parser itself reads ahead */
  xmlNodePtr node = xmlTextReaderCurrentNode(r->xr);
  long line = node ? xmlGetLineNo(node) : -1;
  if (line <= 0) line = xmlTextReaderGetParserLineNumber(r->xr);
  return cct_err_set(r->err, code, "'%s' line %ld: %s", r->path, line, what);
}

static void read_attrs(xmlTextReaderPtr xr, attrs *a) {
  memset(a, 0, sizeof *a);
  while (xmlTextReaderMoveToNextAttribute(xr) == 1) {
    const char *k = (const char *)xmlTextReaderConstName(xr), *v = (const char *)xmlTextReaderConstValue(xr);
    if (!k || !v) continue;
    if (!k[1]) {
      switch (k[0]) {
      case 'i': a->i = v; break;
      case 'n': a->n = v; break;
      case 'l': a->l = v; break;
      case 'f': a->f = v; break;
      case 'a': a->a = v; break;
      case 't': a->t = v; break;
      case 'v': a->v = v; break;
      }
    } else if (!strcmp(k, "lm")) a->lm = v;
    else if (!strcmp(k, "it")) a->it = v; /* the id trace records use */
    else if (!strcmp(k, "partner")) a->partner = v;
    else if (!strcmp(k, "db-id")) a->db_id = v;
  }
  xmlTextReaderMoveToElement(xr);
}

/* Parses a decimal integer attribute.  Returns 0 and sets *out, or -1. */
static int parse_int(const char *s, int64_t *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

/* Parses an address attribute ('0x1f5a0', or decimal).  Returns 0 and sets *out, or -1. */
static int parse_vma(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-') return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

void cct_classic_split_metric(const char *name, char *base, size_t nbase, char *stat, size_t nstat, int *which) {
  size_t len = strlen(name);
  *which = -1;
  if (len >= 4 && name[len - 4] == ' ' && name[len - 3] == '(' && name[len - 1] == ')' &&
      (name[len - 2] == 'I' || name[len - 2] == 'E')) {
    *which = name[len - 2] == 'I' ? CCT_INCLUSIVE : CCT_EXCLUSIVE_LEX;
    len -= 4;
  }
  static const char *const stats[] = {":Sum", ":Mean", ":StdDev", ":CfVar", ":Min", ":Max"};
  const char *cut = NULL;
  for (size_t k = 0; k < sizeof stats / sizeof *stats; k++) {
    const char *p = name, *hit;
    size_t sl = strlen(stats[k]);
    while ((hit = strstr(p, stats[k])) && hit < name + len) {
      if ((hit[sl] == ':' || hit + sl == name + len) && (!cut || hit > cut)) cut = hit;
      p = hit + 1;
    }
  }
  size_t blen = cut ? (size_t)(cut - name) : len;
  snprintf(base, nbase, "%.*s", (int)blen, name);
  if (!cut) {
    snprintf(stat, nstat, "sum");
    return;
  }
  snprintf(stat, nstat, "%.*s", (int)(name + len - cut - 1), cut + 1);
  for (char *s = stat; *s; s++)
    if (*s >= 'A' && *s <= 'Z') *s = (char)(*s - 'A' + 'a');
}

/* Returns the writer metric for (base, stat), declaring it if new; -1 on error. */
static int metric_for(reader *r, const char *base, const char *stat) {
  char key[600];
  snprintf(key, sizeof key, "%s\t%s", base, stat);
  for (int m = 0; m < r->nmetrics; m++)
    if (!strcmp(r->metric_keys[m], key)) return m;
  char **k = cct_reallocarray(r->metric_keys, (size_t)(r->nmetrics + 1), sizeof *k);
  if (!k) return cct_err_set(r->err, CCT_ENOMEM, "out of memory"), -1;
  r->metric_keys = k;
  if (!(k[r->nmetrics] = strdup(key))) return cct_err_set(r->err, CCT_ENOMEM, "out of memory"), -1;
  int m = cct_writer_metric(r->w, base, stat, NULL, 1, r->err);
  if (m < 0) return -1;
  r->nmetrics++;
  return m;
}

/* <Metric i n t ...> or <MetricDB i n db-id ...>: a column of values. */
static int add_column(reader *r, const attrs *a, int db) {
  int64_t id;
  if (parse_int(db ? (a->db_id ? a->db_id : a->i) : a->i, &id) || !a->n)
    return fail(r, CCT_ECORRUPT, db ? "MetricDB without db-id or name" : "Metric without id or name");
  char base[512], stat[64];
  int which;
  cct_classic_split_metric(a->n, base, sizeof base, stat, sizeof stat, &which);
  if (a->t && !strcmp(a->t, "inclusive")) which = CCT_INCLUSIVE;
  else if (a->t && !strcmp(a->t, "exclusive")) which = CCT_EXCLUSIVE_LEX;
  else if (which < 0) which = CCT_INCLUSIVE; /* t="nil": a plain value, shown as inclusive */
  int m = metric_for(r, base, stat);
  if (m < 0) return r->err->code;
  column c = {id, m, which, !strncmp(stat, "min", 3)};
  column **arr = db ? &r->dbcols : &r->cols;
  size_t *n = db ? &r->ndbcols : &r->ncols;
  column *grown = cct_reallocarray(*arr, (*n + 1), sizeof **arr);
  if (!grown) return cct_err_set(r->err, CCT_ENOMEM, "out of memory");
  *arr = grown;
  if (!db) {
    int added = 0;
    if (!cct_idmap_put(&r->metric_ids, id, 0, (int64_t)*n, &added)) return cct_err_set(r->err, CCT_ENOMEM, "out of memory");
    if (!added) return fail(r, CCT_ECORRUPT, "metric id declared twice");
  }
  grown[(*n)++] = c;
  return CCT_OK;
}

/* Declares a table entry (LoadModule, File, Procedure). */
static int add_table_entry(reader *r, const char *tag, const attrs *a) {
  int64_t id;
  if (parse_int(a->i, &id) || !a->n) return fail(r, CCT_ECORRUPT, "table entry without id or name");
  if (!strcmp(tag, "LoadModule") || !strcmp(tag, "File")) { /* hpcprof's copies are named './src/...' */
    int rc = !strcmp(tag, "File") ? cct_writer_file(r->w, id, a->n, a->n) : cct_writer_module(r->w, id, a->n);
    return rc == CCT_ECORRUPT ? fail(r, rc, cct_writer_err(r->w)->msg) : rc; /* an id declared twice: here */
  }
  int added = 0;
  if (!cct_idmap_put(&r->procs, id, 0, (int64_t)r->nnames, &added)) return cct_err_set(r->err, CCT_ENOMEM, "out of memory");
  if (!added) return fail(r, CCT_ECORRUPT, "procedure id declared twice");
  if (r->nnames == r->names_cap) {
    size_t cap = r->names_cap ? r->names_cap * 2 : 256;
    char **n = cct_reallocarray(r->names, cap, sizeof *n);
    if (!n) return cct_err_set(r->err, CCT_ENOMEM, "out of memory");
    r->names = n;
    r->names_cap = cap;
  }
  if (!(r->names[r->nnames++] = strdup(a->n))) return cct_err_set(r->err, CCT_ENOMEM, "out of memory");
  return CCT_OK;
}

static int push(reader *r, int loop, int frame) {
  if (r->depth == r->stack_cap) {
    int cap = r->stack_cap ? r->stack_cap * 2 : 64;
    open_elem *s = cct_reallocarray(r->stack, (size_t)cap, sizeof *s);
    if (!s) return cct_err_set(r->err, CCT_ENOMEM, "out of memory");
    memset(s + r->stack_cap, 0, (size_t)(cap - r->stack_cap) * sizeof *s);
    r->stack = s;
    r->stack_cap = cap;
  }
  open_elem *e = &r->stack[r->depth++];
  e->loop = loop;
  e->frame = frame;
  e->any_minus = 0;
  e->skipped = 0;
  e->lm = r->depth > 1 ? e[-1].lm : CCT_NONE; /* a frame's own: set by cct_start */
  if ((loop || frame) && r->nmetrics) {
    size_t n = (size_t)r->nmetrics * sizeof(double);
    if (!e->loopsum) e->loopsum = malloc(n);
    if (!e->excl_lex) e->excl_lex = malloc(n);
    if (!e->minus) e->minus = malloc(n);
    if (!e->loopsum || !e->excl_lex || !e->minus) return cct_err_set(r->err, CCT_ENOMEM, "out of memory");
    memset(e->loopsum, 0, n);
    memset(e->excl_lex, 0, n);
    memset(e->minus, 0, n);
  }
  return CCT_OK;
}

/* Whether writer metric m is a sum (other statistics do not add up). */
static int additive(const reader *r, int m) {
  const char *t = strchr(r->metric_keys[m], '\t');
  return t && !strcmp(t + 1, "sum");
}

/* Closes the innermost CCT element and sets its function-scope exclusive.
 * hpcprof's classic exclusive of a procedure frame (<PF>, t="exclusive") holds
 * the inlined code (<Pr>) lexically inside it, whose cost is also the <Pr>'s own
 * exclusive (gauss: main's PF i=2 has 515965000 = 515827091 of its own + its
 * three <Pr> 137909); loops do not hold it, and neither does an inlined
 * frame hold the inlined frames inside it (LULESH: each of the 94 <Pr> with
 * <Pr> inside has the exclusive of its own statements alone; taking theirs off
 * made CalcForceForNodes' enclosing '<inline> (lulesh.cc:1263)' -95809).  The
 * function scope (SPEC section 3) holds neither calls nor inlined code, so an
 * inlined frame's exclusive as read is taken off its enclosing frame when that
 * frame is a <PF>.  A loop's function-scope
 * exclusive is its own plus that of the loops directly nested in it.
 * Lex-aware values stay as hpcprof wrote them (hpcviewer shows them). */
static int pop(reader *r) {
  open_elem *e = &r->stack[--r->depth];
  if (e->skipped) return CCT_OK;
  for (int d = r->depth - 1; e->frame == 2 && r->nmetrics && d >= 0; d--) {
    open_elem *p = &r->stack[d];
    if (!p->frame) continue;
    if (p->frame == 2) break; /* an inlined frame does not hold the inlined code inside it */
    for (int m = 0; m < r->nmetrics; m++)
      if (additive(r, m)) p->minus[m] += e->excl_lex[m];
    p->any_minus = 1;
    break;
  }
  if (e->loop || (e->frame && e->any_minus)) {
    open_elem *p = r->depth ? &r->stack[r->depth - 1] : NULL;
    for (int m = 0; m < r->nmetrics; m++) {
      double fx = e->excl_lex[m] - e->minus[m] + e->loopsum[m];
      if (cct_writer_value(r->w, m, CCT_EXCLUSIVE, fx) || cct_writer_value(r->w, m, CCT_EXCLUSIVE_LEX, e->excl_lex[m]))
        return cct_writer_err(r->w)->code;
      if (e->loop && p && p->loop) p->loopsum[m] += fx;
    }
  }
  return cct_writer_exit(r->w);
}

/* Reader's function id for (procedure n, lm, f): declared on first use. */
static int function_for(reader *r, const attrs *a, int64_t *fid) {
  int64_t n, lm = CCT_NONE, f = CCT_NONE, line = CCT_NONE;
  if (parse_int(a->n, &n)) return fail(r, CCT_ECORRUPT, "procedure frame without a procedure id (n)");
  if (a->lm && parse_int(a->lm, &lm)) return fail(r, CCT_ECORRUPT, "bad lm attribute");
  if (a->f && parse_int(a->f, &f)) return fail(r, CCT_ECORRUPT, "bad f attribute");
  if (a->l && parse_int(a->l, &line)) return fail(r, CCT_ECORRUPT, "bad l attribute");
  int64_t *idx = cct_idmap_get(&r->procs, n, 0);
  if (!idx) return fail(r, CCT_ECORRUPT, "reference to an undeclared procedure");
  int64_t key2 = (int64_t)((uint64_t)(lm == CCT_NONE ? 0xffffffffu : (uint32_t)lm) << 32 |
                           (uint32_t)(f == CCT_NONE ? 0xffffffffu : (uint32_t)f));
  int added = 0;
  int64_t *v = cct_idmap_put(&r->fns, n, key2, (int64_t)r->fns.count + 1, &added);
  if (!v) return cct_err_set(r->err, CCT_ENOMEM, "out of memory");
  *fid = *v;
  if (!added) return CCT_OK;
  const char *name = r->names[*idx];
  int rc = cct_writer_function(r->w, *fid, *name ? name : "<inline>", lm, f, line == 0 ? CCT_NONE : line);
  if (rc) return fail(r, rc, cct_writer_err(r->w)->msg);
  return CCT_OK;
}

/* A CCT element starts: enter a context. */
static int cct_start(reader *r, const char *tag, const attrs *a) {
  cct_context c = {0, CCT_KIND_LINE, CCT_REL_LEXICAL, CCT_NONE, CCT_NONE, CCT_NONE, CCT_NONE, 0, 0, 0};
  if (parse_int(a->i, &c.id)) return fail(r, CCT_ECORRUPT, "context element without a numeric id (i)");
  if (c.id > r->max_id) r->max_id = c.id;
  if (c.id < 0 && r->hooks) { /* prof2's synthetic wrappers: no data, children go to the parent */
    int rc = push(r, 0, 0);
    if (!rc) r->stack[r->depth - 1].skipped = 1;
    return rc;
  }
  if (a->l && parse_int(a->l, &c.line)) return fail(r, CCT_ECORRUPT, "bad l attribute");
  if (c.line == 0) c.line = CCT_NONE;
  if (a->it && parse_int(a->it, &c.trace_id)) return fail(r, CCT_ECORRUPT, "bad it attribute");
  if (!a->it && !r->hooks) c.trace_id = -1; /* classic traces name statements by S@it only */
  int loop = 0, frame = 0;
  int64_t lm = r->depth ? r->stack[r->depth - 1].lm : CCT_NONE;
  if (!strcmp(tag, "PF") || !strcmp(tag, "Pr")) {
    lm = CCT_NONE;
    if (a->lm && parse_int(a->lm, &lm)) return fail(r, CCT_ECORRUPT, "bad lm attribute");
    c.kind = CCT_KIND_FUNCTION;
    frame = tag[1] == 'F' ? 1 : 2;
    c.relation = tag[1] == 'F' ? CCT_REL_CALL : CCT_REL_INLINED;
    int rc = function_for(r, a, &c.function);
    if (rc) return rc;
    if (a->f && parse_int(a->f, &c.file)) return fail(r, CCT_ECORRUPT, "bad f attribute");
  } else if (!strcmp(tag, "L")) {
    c.kind = CCT_KIND_LOOP;
    loop = 1;
    if (a->f && parse_int(a->f, &c.file)) return fail(r, CCT_ECORRUPT, "bad f attribute");
    /* DTD 2.2: the loop header's address, in the binary of the frame it is in (prof2
     * writes v="0": none); it keeps two loops on one line apart (cct_scope_line) */
    uint64_t v; /* an address that does not parse is none: the loop is keyed by its line, as before */
    if (a->v && lm != CCT_NONE && !parse_vma(a->v, &v) && v > 0 && v <= INT64_MAX) c.module = lm, c.offset = (int64_t)v;
  } else if (!strcmp(tag, "C")) {
    c.callsite = 1;
  }
  int rc = cct_writer_enter(r->w, &c);
  if (rc) return fail(r, rc, cct_writer_err(r->w)->msg);
  if ((rc = push(r, loop, frame))) return rc;
  r->stack[r->depth - 1].lm = lm;
  return r->hooks ? r->hooks->context(r->hooks->arg, c.id) : CCT_OK;
}

/* <M n v>: a value of the innermost open context. */
static int metric_value(reader *r, const attrs *a) {
  int64_t id;
  if (parse_int(a->n, &id) || !a->v) return fail(r, CCT_ECORRUPT, "<M> without metric id or value");
  int64_t *idx = cct_idmap_get(&r->metric_ids, id, 0);
  if (!idx) return fail(r, CCT_ECORRUPT, "<M> refers to an undeclared metric");
  char *end;
  double v = strtod(a->v, &end);
  if (*end || end == a->v) return fail(r, CCT_ECORRUPT, "<M> value is not a number");
  if (!isfinite(v)) return fail(r, CCT_ECORRUPT, "<M> value is not a finite number (inf or nan)");
  const column *c = &r->cols[*idx];
  if (c->is_min && v > 0 && v < 2.3e-308) v = 0; /* DBL_MIN: Min never set */
  if (cct_writer_value(r->w, c->metric, c->which, v)) return fail(r, CCT_EUSAGE, cct_writer_err(r->w)->msg);
  if (c->which == CCT_EXCLUSIVE_LEX && r->depth && (r->stack[r->depth - 1].loop || r->stack[r->depth - 1].frame))
    r->stack[r->depth - 1].excl_lex[c->metric] = v;
  return CCT_OK;
}

static int is_cct_tag(const char *t) {
  return !strcmp(t, "PF") || !strcmp(t, "Pr") || !strcmp(t, "L") || !strcmp(t, "C") || !strcmp(t, "S");
}

static int element_start(reader *r, const char *tag) {
  attrs a;
  read_attrs(r->xr, &a);
  if (r->in_data) {
    if (!strcmp(tag, "M")) return r->root_open ? metric_value(r, &a) : CCT_OK;
    if (is_cct_tag(tag)) return cct_start(r, tag, &a);
    return fail(r, CCT_ECORRUPT, "unexpected element in the profile data");
  }
  if (!strcmp(tag, "HPCToolkitExperiment")) {
    if (!a.v && !(a.v = (const char *)xmlTextReaderGetAttribute(r->xr, (const xmlChar *)"version")))
      return fail(r, CCT_EFORMAT, "HPCToolkitExperiment without a version");
    int ok = !strncmp(a.v, "2.", 2);
    int four = !strncmp(a.v, "4.", 2);
    xmlFree(cct_unconst(a.v));
    if (r->hooks) return four ? CCT_OK : fail(r, CCT_EFORMAT, "not a prof2 experiment.xml (version 4.0)");
    if (four) return fail(r, CCT_EFORMAT, "experiment.xml version 4.0 (prof2) needs its profile.db");
    if (!ok) return fail(r, CCT_EFORMAT, "unsupported experiment.xml version; this build reads 2.0, 2.1 and 2.2");
    return CCT_OK;
  }
  if (r->hooks && (!strcmp(tag, "Metric") || !strcmp(tag, "MetricFormula") || !strcmp(tag, "MetricDB")))
    return r->hooks->header(r->hooks->arg, tag, r->xr);
  if (!strcmp(tag, "Metric")) return add_column(r, &a, 0);
  if (!strcmp(tag, "MetricDB")) return add_column(r, &a, 1);
  if (!strcmp(tag, "LoadModule") || !strcmp(tag, "File") || !strcmp(tag, "Procedure"))
    return add_table_entry(r, tag, &a);
  if (!strcmp(tag, "SecCallPathProfileData")) {
    r->in_data = 1;
    cct_context root = {r->hooks ? 0 : 1, CCT_KIND_ROOT, CCT_REL_LEXICAL, CCT_NONE, CCT_NONE, CCT_NONE, CCT_NONE, 0, 0, -1};
    int rc = cct_writer_enter(r->w, &root);
    if (rc) return fail(r, rc, cct_writer_err(r->w)->msg);
    r->root_open = 1;
    if ((rc = push(r, 0, 0))) return rc;
    return r->hooks ? r->hooks->context(r->hooks->arg, root.id) : CCT_OK;
  }
  if (!strcmp(tag, "SecFlatProfileData")) return fail(r, CCT_EFORMAT, "flat profiles (SecFlatProfile) are not supported");
  return CCT_OK;
}

static int element_end(reader *r, const char *tag) {
  if (!r->in_data) return CCT_OK;
  if (!strcmp(tag, "SecCallPathProfileData")) {
    r->in_data = 0;
    r->root_open = 0;
    return pop(r);
  }
  if (is_cct_tag(tag)) {
    int rc = pop(r);
    return rc ? fail(r, rc, cct_writer_err(r->w)->msg) : CCT_OK;
  }
  return CCT_OK;
}

/* Streams experiment.xml into the writer. */
static int read_xml(reader *r) {
  int rc = CCT_OK, ret, saw_root = 0, saw_data = 0;
  while (!rc && (ret = xmlTextReaderRead(r->xr)) == 1) {
    int type = xmlTextReaderNodeType(r->xr);
    if (type != XML_READER_TYPE_ELEMENT && type != XML_READER_TYPE_END_ELEMENT) continue;
    const char *tag = (const char *)xmlTextReaderConstName(r->xr);
    if (!tag) return fail(r, CCT_ENOMEM, "out of memory");
    if (type == XML_READER_TYPE_ELEMENT) {
      if (!saw_root && strcmp(tag, "HPCToolkitExperiment"))
        return fail(r, CCT_EFORMAT, "not an HPCToolkit experiment (root element is not HPCToolkitExperiment)");
      saw_root = 1;
      saw_data |= !strcmp(tag, "SecCallPathProfileData");
      int empty = xmlTextReaderIsEmptyElement(r->xr);
      rc = element_start(r, tag);
      if (!rc && empty) rc = element_end(r, tag);
    } else {
      rc = element_end(r, tag);
    }
    if (!rc && (r->w && (xmlTextReaderGetParserLineNumber(r->xr) & 0xfff) == 0))
      cct_writer_progress(r->w, xmlTextReaderByteConsumed(r->xr), r->file_size);
  }
  if (rc) return rc;
  if (ret < 0) {
    const xmlError *e = xmlGetLastError();
    char msg[300];
    snprintf(msg, sizeof msg, "malformed XML: %s", e && e->message ? e->message : "parse error");
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
    for (char *c = msg; *c; c++) /* libxml2 continues some messages on a second line: keep one */
      if (*c == '\n') *c = ' ';
      else if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    if (e && e->line > 0) return cct_err_set(r->err, CCT_ECORRUPT, "'%s' line %d: %s", r->path, e->line, msg);
    return fail(r, CCT_ECORRUPT, msg);
  }
  if (!saw_root) return fail(r, CCT_EFORMAT, "not an HPCToolkit experiment (empty document)");
  if (!saw_data) return fail(r, CCT_ECORRUPT, "no SecCallPathProfileData: the file holds no calling-context tree");
  return CCT_OK;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static double be_f64(const unsigned char *p) {
  uint64_t u = (uint64_t)be32(p) << 32 | be32(p + 4);
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

int cct_classic_metricdb_header(const unsigned char *buf, size_t n, uint32_t *nodes, uint32_t *metrics,
                                const char **why) {
  if (n < CCT_METRICDB_HEADER) return *why = "truncated header", -1;
  if (memcmp(buf, "HPCPROF-metricdb__", 18)) return *why = "bad magic (not a metric-db file)", -1;
  if (memcmp(buf + 18, "00.10", 5)) return *why = "unsupported metric-db version", -1;
  if (buf[23] != 'b') return *why = "not big-endian (endian byte is not 'b')", -1;
  *nodes = be32(buf + 24);
  *metrics = be32(buf + 28);
  if (!*metrics) return *why = "zero metric columns", -1;
  return 0;
}

/* Reads one metric-db file of size bytes from f (positioned at its start) into
 * the writer as a profile with identity id.  label names it in messages
 * ("'path'", or the merged file and the embedded file's index).  *nodes and
 * *ncol, when not 0, are the counts the file must have (all the files of a
 * merged .mdb come from one hpcprof run); they are set from its header. */
static int read_metricdb_at(reader *r, FILE *f, const char *label, uint64_t size, const cct_profile_id *id,
                            uint32_t *want_nodes, uint32_t *want_ncol) {
  unsigned char hdr[CCT_METRICDB_HEADER];
  size_t got = fread(hdr, 1, sizeof hdr, f);
  uint32_t nodes = 0, ncol = 0;
  const char *why = NULL;
  int rc = CCT_OK;
  if (cct_classic_metricdb_header(hdr, got < size ? got : (size_t)size, &nodes, &ncol, &why))
    rc = cct_err_set(r->err, CCT_ECORRUPT, "%s: %s", label, why);
  else if (size < CCT_METRICDB_HEADER || (size - CCT_METRICDB_HEADER) / 8 / ncol != nodes ||
           (size - CCT_METRICDB_HEADER) % (8ull * ncol))
    rc = cct_err_set(r->err, CCT_ECORRUPT, "%s: size %llu does not match its header (%u nodes x %u metrics)", label,
                     (unsigned long long)size, nodes, ncol);
  else if (nodes != r->max_id)
    rc = cct_err_set(r->err, CCT_ECORRUPT, "%s: %u nodes, but the tree of '%s' has %lld (a file of another database?)",
                     label, nodes, r->path, (long long)r->max_id);
  else if (*want_nodes && (nodes != *want_nodes || ncol != *want_ncol))
    rc = cct_err_set(r->err, CCT_ECORRUPT, "%s: %u nodes x %u metrics, the first file has %u x %u", label, nodes, ncol,
                     *want_nodes, *want_ncol);
  *want_nodes = nodes;
  *want_ncol = ncol;
  for (size_t k = 0; !rc && k < r->ndbcols; k++)
    if (r->dbcols[k].xml_id < 0 || r->dbcols[k].xml_id >= ncol)
      rc = cct_err_set(r->err, CCT_ECORRUPT, "%s: has %u columns, experiment.xml needs column %lld", label, ncol,
                       (long long)r->dbcols[k].xml_id);
  size_t nm = (size_t)r->nmetrics;
  uint32_t *ctx = NULL;
  double *vals = NULL;
  unsigned char *row = NULL;
  size_t *count = NULL;
  if (!rc) {
    ctx = malloc(nm * nodes * sizeof *ctx + 1);
    vals = malloc(2 * nm * nodes * sizeof *vals + 1);
    row = malloc(8 * (size_t)ncol);
    count = calloc(nm + 1, sizeof *count);
    if (!ctx || !vals || !row || !count) rc = cct_err_set(r->err, CCT_ENOMEM, "out of memory reading %s", label);
  }
  /* Layout per metric m: ctx[m*nodes + j], incl at vals[2*m*nodes + j], excl at vals[(2m+1)*nodes + j]. */
  for (uint32_t node = 1; !rc && node <= nodes; node++) {
    if (fread(row, 8, ncol, f) != ncol) {
      rc = cct_err_set(r->err, CCT_EIO, "%s: read error", label);
      break;
    }
    if (!cct_writer_has_context(r->w, node)) continue;
    for (size_t k = 0; k < r->ndbcols; k++) {
      const column *c = &r->dbcols[k];
      double v = be_f64(row + 8 * c->xml_id);
      if (v == 0) continue;
      if (!isfinite(v)) {
        rc = cct_err_set(r->err, CCT_ECORRUPT, "%s: value of node %u, column %lld is not a finite number (inf or nan)",
                         label, node, (long long)c->xml_id);
        break;
      }
      size_t m = (size_t)c->metric, j = count[m];
      if (!j || ctx[m * nodes + j - 1] != node) {
        ctx[m * nodes + j] = node;
        vals[2 * m * nodes + j] = 0;
        vals[(2 * m + 1) * nodes + j] = 0;
        count[m] = ++j;
      }
      vals[(2 * m + (c->which == CCT_INCLUSIVE ? 0 : 1)) * nodes + j - 1] = v;
    }
  }
  if (!rc) {
    rc = cct_writer_profile(r->w, id);
    for (size_t m = 0; !rc && m < nm; m++)
      rc = cct_writer_profile_values(r->w, (int)m, count[m], ctx + m * nodes, vals + 2 * m * nodes,
                                     vals + (2 * m + 1) * nodes);
    if (rc) cct_err_set(r->err, rc, "%s", cct_writer_err(r->w)->msg);
  }
  free(ctx);
  free(vals);
  free(row);
  free(count);
  return rc;
}

/* Reads one metric-db file into the writer as a profile. */
static int read_metricdb(reader *r, const char *dir, const char *name) {
  char path[4096], label[4100];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(label, sizeof label, "'%s'", path);
  FILE *f = cct_fopen_regular(path, r->err);
  if (!f) return CCT_EIO;
  struct stat sb;
  int rc;
  if (fstat(fileno(f), &sb)) rc = cct_err_set(r->err, CCT_EIO, "cannot read '%s': %s", path, strerror(errno));
  else {
    cct_profile_id id;
    cct_classic_profile_id(name, &id);
    id.source = name;
    uint32_t nodes = 0, ncol = 0;
    rc = read_metricdb_at(r, f, label, (uint64_t)sb.st_size, &id, &nodes, &ncol);
  }
  fclose(f);
  return rc;
}

/* Reads hpcviewer's merged metric file: its embedded metric-db files, in
 * order, each a profile with the rank and thread of the header. */
static int read_mdb(reader *r, const char *path) {
  FILE *f = cct_fopen_regular(path, r->err);
  if (!f) return CCT_EIO;
  cct_mdb_entry *e = NULL;
  uint32_t n = 0, nodes = 0, ncol = 0;
  int rc = cct_mdb_read_index(f, path, &e, &n, r->err);
  if (!rc && !r->ndbcols)
    rc = cct_err_set(r->err, CCT_ECORRUPT, "'%s': a merged metric file but no MetricDBTable to describe it", r->path);
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  for (uint32_t k = 0; !rc && k < n; k++) {
    char label[4200], source[300];
    snprintf(label, sizeof label, "'%s' embedded file %u of %u (rank %d, thread %d)", path, k + 1, n, e[k].proc,
             e[k].thread);
    snprintf(source, sizeof source, "%s#%u", base, k + 1);
    cct_profile_id id = {-1, e[k].proc, e[k].thread, -1, -1, -1, source};
    if (fseeko(f, (off_t)e[k].offset, SEEK_SET)) rc = cct_err_set(r->err, CCT_EIO, "cannot read '%s'", path);
    else rc = read_metricdb_at(r, f, label, e[k].size, &id, &nodes, &ncol);
    cct_writer_progress(r->w, r->file_size, r->file_size);
  }
  free(e);
  fclose(f);
  return rc;
}

/* Reads every *.metric-db of dir, in name order, or else hpcviewer's merged
 * experiment*.mdb file. */
static int read_profiles(reader *r, const char *dir) {
  char *mdb = NULL;
  int rc = cct_mdb_find(dir, &mdb, r->err);
  if (rc || mdb) {
    if (!rc) rc = read_mdb(r, mdb);
    free(mdb);
    return rc;
  }
  DIR *d = opendir(dir);
  if (!d) return cct_err_set(r->err, CCT_EIO, "cannot list '%s': %s", dir, strerror(errno));
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while (!rc && (e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len <= 10 || strcmp(e->d_name + len - 10, ".metric-db")) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      char **g = cct_reallocarray(names, cap, sizeof *g);
      if (!g) {
        rc = cct_err_set(r->err, CCT_ENOMEM, "out of memory");
        break;
      }
      names = g;
    }
    if (!(names[n] = strdup(e->d_name))) rc = cct_err_set(r->err, CCT_ENOMEM, "out of memory");
    else n++;
  }
  closedir(d);
  if (!rc && n && !r->ndbcols)
    rc = cct_err_set(r->err, CCT_ECORRUPT, "'%s': metric-db files but no MetricDBTable to describe them", r->path);
  if (names) qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; !rc && i < n; i++) {
    rc = read_metricdb(r, dir, names[i]);
    cct_writer_progress(r->w, r->file_size, r->file_size);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return rc;
}

static void reader_release(reader *r) {
  if (r->xr) xmlFreeTextReader(r->xr);
  for (size_t i = 0; i < r->nnames; i++) free(r->names[i]);
  free(r->names);
  for (int m = 0; m < r->nmetrics; m++) free(r->metric_keys[m]);
  free(r->metric_keys);
  for (int i = 0; i < r->stack_cap; i++) {
    free(r->stack[i].loopsum);
    free(r->stack[i].excl_lex);
    free(r->stack[i].minus);
  }
  free(r->stack);
  free(r->cols);
  free(r->dbcols);
  cct_idmap_release(&r->procs);
  cct_idmap_release(&r->fns);
  cct_idmap_release(&r->metric_ids);
}

/* The XML input: the file, read through a callback that blanks out the DTD
 * embedded at the top of experiment.xml.  cctq does not validate, and with the
 * DTD present libxml2 looks up every attribute in it (about a sixth of the
 * parse).  The DTD declares no entities the document uses.  Blanking keeps the
 * newlines, so line numbers in messages stay the file's. */
typedef struct xml_input {
  FILE *f;
  char *head;       /* the first bytes of the file, DTD blanked */
  size_t nhead, at; /* bytes in head, bytes of head already given */
} xml_input;

enum { XML_HEAD = 1 << 20 }; /* the DTD is looked for in the first MiB */

static int xml_read(void *ctx, char *buf, int len) {
  xml_input *in = ctx;
  if (in->at < in->nhead) {
    size_t n = in->nhead - in->at < (size_t)len ? in->nhead - in->at : (size_t)len;
    memcpy(buf, in->head + in->at, n);
    in->at += n;
    return (int)n;
  }
  size_t n = fread(buf, 1, (size_t)len, in->f);
  return n == 0 && ferror(in->f) ? -1 : (int)n;
}

static int xml_close(void *ctx) {
  xml_input *in = ctx;
  fclose(in->f);
  free(in->head);
  free(in);
  return 0;
}

/* Returns the first occurrence of needle in h[0..n), or NULL. */
static char *find(char *h, size_t n, const char *needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; i + k <= n; i++)
    if (h[i] == needle[0] && !memcmp(h + i, needle, k)) return h + i;
  return NULL;
}

/* Opens path for the XML reader with its DTD blanked; NULL when it cannot be read. */
static xml_input *xml_open(const char *path, cct_err *err) {
  xml_input *in = calloc(1, sizeof *in);
  if (!in || !(in->f = cct_fopen_regular(path, err)) || !(in->head = malloc(XML_HEAD))) {
    cct_err_set(err, CCT_ENOMEM, "out of memory reading '%s'", path);
    if (in && in->f) fclose(in->f);
    free(in);
    return NULL;
  }
  in->nhead = fread(in->head, 1, XML_HEAD, in->f);
  char *dt = find(in->head, in->nhead, "<!DOCTYPE"), *root = find(in->head, in->nhead, "<HPCToolkitExperiment");
  char *open = dt ? memchr(dt, '[', in->nhead - (size_t)(dt - in->head)) : NULL;
  char *end = open ? find(open, in->nhead - (size_t)(open - in->head), "]>") : NULL;
  if (dt && end && (!root || end < root))
    for (char *p = dt; p < end + 2; p++)
      if (*p != '\n') *p = ' ';
  return in;
}

/* Silences libxml2's own printing: errors are reported through cct_err. */
static void quiet(void *ctx, const char *msg, ...) {
  (void)ctx;
  (void)msg;
}

/* Streams db_dir/experiment.xml into w; then, for a classic database (no
 * hooks), its metric-db files. */
static int read_database(const char *db_dir, cct_writer *w, const cct_xml_hooks *hooks, cct_err *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/experiment.xml", db_dir);
  reader r = {.path = path, .w = w, .err = err, .hooks = hooks};
  struct stat sb;
  if (stat(path, &sb)) return cct_err_set(err, CCT_EIO, "cannot open '%s': %s", path, strerror(errno));
  r.file_size = sb.st_size;
  xmlSetGenericErrorFunc(NULL, quiet);
  xml_input *in = xml_open(path, err);
  if (!in) return err->code;
  r.xr = xmlReaderForIO(xml_read, xml_close, in, path, NULL,
                        XML_PARSE_NONET | XML_PARSE_HUGE | XML_PARSE_BIG_LINES | XML_PARSE_NOWARNING | XML_PARSE_NOERROR);
  if (!r.xr) return cct_err_set(err, CCT_EIO, "cannot open '%s'", path);
  int rc = read_xml(&r);
  if (!rc && !hooks) rc = read_profiles(&r, db_dir);
  reader_release(&r);
  return rc;
}

int cct_read_classic(const char *db_dir, cct_writer *w, cct_err *err) { return read_database(db_dir, w, NULL, err); }

int cct_classic_read_tree(const char *db_dir, cct_writer *w, const cct_xml_hooks *hooks, cct_err *err) {
  return read_database(db_dir, w, hooks, err);
}
