/* fuzz_prof2.c: libFuzzer target for the prof2 reader (ingest/prof2.c and the
 * experiment.xml walk it shares with classic.c).  Input layout: u32
 * little-endian length L, then L bytes written as experiment.xml, then the
 * rest written as profile.db (L is clamped to what is there).  An XML that
 * does not say version 4 is given version 4 by the detection anyway: the
 * whole ingest runs with cct_read_prof2 into a temporary archive.  Any
 * outcome but a crash, a sanitizer report or a leak is fine; an error must
 * come with a one-line message. */
#include "fuzz_util.h"
#include "cct_ingest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];
static char xml_path[96], prof_path[96], out_path[96];

static void cleanup(void) {
  unlink(xml_path);
  unlink(prof_path);
  unlink(out_path);
  rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!dir[0]) { /* a private directory, in memory where possible, removed at exit */
    fuzz_private_dir(dir, sizeof dir, "prof2");
    snprintf(xml_path, sizeof xml_path, "%s/experiment.xml", dir);
    snprintf(prof_path, sizeof prof_path, "%s/profile.db", dir);
    snprintf(out_path, sizeof out_path, "%s/out.sqlite", dir);
    atexit(cleanup);
  }
  if (size < 4) return 0;
  uint32_t l = (uint32_t)data[0] | ((uint32_t)data[1] << 8) | ((uint32_t)data[2] << 16) | ((uint32_t)data[3] << 24);
  size_t lx = l < size - 4 ? l : size - 4;
  /* the format detection reads the version from the first bytes: make them prof2's */
  static const char head[] = "<?xml version=\"1.0\"?>\n<HPCToolkitExperiment version=\"4.0\">\n";
  size_t skip = lx >= sizeof head - 1 && !memcmp(data + 4, head, sizeof head - 1) ? sizeof head - 1 : 0;
  FILE *f = fopen(xml_path, "wb");
  if (!f) abort();
  fwrite(head, 1, sizeof head - 1, f);
  if (lx - skip) fwrite(data + 4 + skip, 1, lx - skip, f);
  fclose(f);
  fuzz_write_file(prof_path, data + 4 + lx, size - 4 - lx);
  unlink(out_path);
  cct_ingest_options opt = {.db_dir = dir, .out_path = out_path};
  cct_err err = CCT_ERR_INIT;
  int rc = cct_ingest(&opt, NULL, &err);
  if (rc != CCT_OK && (!err.msg[0] || strchr(err.msg, '\n'))) abort();
  unlink(out_path);
  return 0;
}
