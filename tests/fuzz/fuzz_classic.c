/* fuzz_classic.c: libFuzzer target for the classic reader.  The first byte
 * picks what the rest of the input becomes: even, the experiment.xml of a
 * database; odd, beside a small valid experiment.xml (two nodes, one
 * metric-db column pair), a metric-db file, or with bit 1 also set,
 * hpcviewer's merged experiment-1.mdb (ingest/mdb.c).  Either way the whole
 * ingest runs into a temporary archive; any outcome but a crash, a leak or an
 * error without a one-line message is fine. */
#include "fuzz_util.h"
#include "cct_ingest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char small_xml[] =
    "<?xml version=\"1.0\"?>\n<HPCToolkitExperiment version=\"2.0\"><SecCallPathProfile i=\"0\" n=\"x\"><SecHeader>"
    "<MetricTable><Metric i=\"2\" n=\"T:Sum (I)\" t=\"inclusive\" partner=\"3\"/>"
    "<Metric i=\"3\" n=\"T:Sum (E)\" t=\"exclusive\" partner=\"2\"/></MetricTable>"
    "<MetricDBTable><MetricDB i=\"0\" n=\"T (I)\" t=\"inclusive\" db-id=\"0\" db-num-metrics=\"2\"/>"
    "<MetricDB i=\"1\" n=\"T (E)\" t=\"exclusive\" db-id=\"1\" db-num-metrics=\"2\"/></MetricDBTable>"
    "<LoadModuleTable><LoadModule i=\"1\" n=\"a.out\"/></LoadModuleTable><FileTable><File i=\"1\" n=\"a.c\"/></FileTable>"
    "<ProcedureTable><Procedure i=\"1\" n=\"main\"/></ProcedureTable></SecHeader><SecCallPathProfileData>"
    "<PF i=\"2\" s=\"1\" l=\"1\" lm=\"1\" f=\"1\" n=\"1\"><M n=\"2\" v=\"1\"/><S i=\"3\" s=\"2\" l=\"2\"><M n=\"2\" v=\"1\"/>"
    "<M n=\"3\" v=\"1\"/></S></PF></SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>\n";

static char dir[64];

static void cleanup(void) {
  static const char *const names[] = {"experiment.xml", "1.a-000000-000-0-1-0.metric-db", "experiment-1.mdb",
                                      "out.sqlite"};
  char path[128];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size) return 0;
  if (!dir[0]) { /* a private directory, in memory where possible, removed at exit */
    fuzz_private_dir(dir, sizeof dir, "classic");
    atexit(cleanup);
  }
  char xml[128], mdb[128], merged[128], out[128];
  snprintf(xml, sizeof xml, "%s/experiment.xml", dir);
  snprintf(mdb, sizeof mdb, "%s/1.a-000000-000-0-1-0.metric-db", dir);
  snprintf(merged, sizeof merged, "%s/experiment-1.mdb", dir);
  snprintf(out, sizeof out, "%s/out.sqlite", dir);
  unlink(mdb);
  unlink(merged);
  if (data[0] & 1) {
    fuzz_write_file(xml, (const uint8_t *)small_xml, sizeof small_xml - 1);
    fuzz_write_file(data[0] & 2 ? merged : mdb, data + 1, size - 1);
  } else {
    fuzz_write_file(xml, data + 1, size - 1);
  }
  unlink(out);
  cct_ingest_options opt = {.db_dir = dir, .out_path = out};
  cct_err err = CCT_ERR_INIT;
  int rc = cct_ingest(&opt, NULL, &err);
  if (rc != CCT_OK && (!err.msg[0] || strchr(err.msg, '\n'))) abort(); /* one line, never empty */
  unlink(out);
  return 0;
}
