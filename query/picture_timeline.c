/* picture_timeline.c: the timeline as a picture (include/cct_picture.h): per
 * traced profile (a lane, the most on the center first), the share of time the
 * center was on the sampled stack as a filled strip over the whole run, the
 * time in seconds on the axis, the session's window shaded; as SVG, and as an
 * HTML page (the same SVG with the script timeline.js) where dragging over the
 * axis gives the 'window A B' command and a click on a lane the sampled stack
 * there and its 'center #ID' command, to paste into cctq (the page is a static
 * file: it cannot change the session).  Every number comes from
 * cct_timeline_compute; this file only lays them out. */
#include "cct_picture.h"
#include "cct_escape.h"
#include "cct_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The style sheets and the script (query/picture/timeline*.css, timeline.js), embedded by scripts/embed.cmake. */
extern const char cct_css_timeline[], cct_css_timeline_page[], cct_js_timeline[];

/* Geometry (pixels): margin, lane label and figure columns, header, lane pitch and strip height, axis band. */
enum { TM = 10, LABEL_W = 150, FIG_W = 130, THEAD = 64, PITCH = 24, STRIP = 20, AXIS_H = 26 };

static void xml(FILE *out, const char *s) { cct_escape_write(out, s, CCT_ESC_XML); }

/* A round step (1, 2 or 5 times a power of ten) giving at most about n ticks over range. */
static double tick_step(double range, int n) {
  double raw = range > 0 ? range / n : 1, mag = pow(10, floor(log10(raw))), r = raw / mag;
  return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* A filled strip: shares v[0..n) (0..1) as heights over [x0, x0 + w), baseline yb, height h; runs of one height
 * are one segment. */
static void strip_path(FILE *out, const char *cls, const double *v, size_t n, double x0, double w, double yb, double h) {
  fprintf(out, "<path class=\"%s\" d=\"M%.1f %.1f", cls, x0, yb);
  double cur = yb, cw = w / (double)n;
  for (size_t c = 0; c < n; c++) {
    double s = v[c] < 0 ? 0 : v[c] > 1 ? 1 : v[c], y = round(2 * (yb - s * h)) / 2;
    if (y == cur) continue;
    if (c) fprintf(out, "H%.1f", x0 + (double)c * cw);
    fprintf(out, "V%.1f", y);
    cur = y;
  }
  fprintf(out, "H%.1fV%.1fZ\"/>\n", x0 + w, yb);
}

/* The SVG of timeline t (its columns over the whole run); with_data adds what the page's script reads (the frame
 * sampled per lane and column). */
static void timeline_svg(FILE *out, const cct_timeline *t, int width, int with_data) {
  double x0 = TM + LABEL_W, pw = (double)t->ncols, span = t->to - t->from;
  double ylanes = THEAD, yaxis = ylanes + (double)t->nlanes * PITCH + 4, ylegend = yaxis + AXIS_H + 30;
  int height = (int)ylegend + 24;
  if (!with_data) fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
  fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "class=\"cct-timeline\" data-run=\"%d\" data-x0=\"%.0f\" data-plot-width=\"%.0f\" data-columns=\"%zu\" "
               "data-from=\"%.17g\" data-to=\"%.17g\" data-span=\"%.17g\" data-windowed=\"%d\" data-win-from=\"%.17g\" "
               "data-win-to=\"%.17g\" data-lanes-y=\"%.0f\" data-axis-y=\"%.0f\" data-center=\"",
          width, height, width, height, t->run, x0, pw, t->ncols, t->from, t->to, t->span, t->windowed, t->win_from,
          t->win_to, ylanes, yaxis);
  xml(out, t->center);
  fprintf(out, "\">\n<style>\n%s</style>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fffdf8\"/>\n", cct_css_timeline);
  fprintf(out, "<text class=\"title\" x=\"%d\" y=\"22\">timeline of ", TM);
  xml(out, t->center);
  double wlen = t->win_to - t->win_from;
  fprintf(out, "</text>\n<text class=\"sub\" x=\"%d\" y=\"40\">run %d, %zu of %zu traced profiles, the most time on it"
               "%s first: the share of each moment it was on the sampled call stack</text>\n",
          TM, t->run, t->nlanes, t->total_lanes, t->windowed ? " in the window" : "");
  fprintf(out, "<text class=\"cap\" x=\"%.0f\" y=\"%.0f\">profile</text><text class=\"cap\" x=\"%.0f\" y=\"%.0f\">"
               "on it%s</text>\n",
          (double)TM, ylanes - 6, x0 + pw + 8, ylanes - 6, t->windowed ? " in the window" : "");
  /* grid and tick labels */
  double step = tick_step(span, 10);
  for (double s = ceil(t->from / step) * step; s <= t->to * (1 + 1e-12) + 1e-15; s += step) {
    double x = x0 + (s - t->from) / span * pw;
    fprintf(out, "<path class=\"grid\" d=\"M%.1f %.0fV%.0f\"/><text class=\"tick\" x=\"%.1f\" y=\"%.0f\" "
                 "text-anchor=\"middle\">%.6g s</text>\n",
            x, ylanes - 2, yaxis + 6, x, yaxis + AXIS_H + 14, fabs(s) < step * 1e-9 ? 0.0 : s);
  }
  for (size_t r = 0; r < t->nlanes; r++) {
    double y = ylanes + (double)r * PITCH, yb = y + STRIP;
    fprintf(out, "<g class=\"lane\" data-row=\"%zu\" data-lane=\"%lld\" data-on=\"%.17g\" data-busy=\"%.17g\" "
                 "data-y=\"%.0f\" data-label=\"",
            r, t->lane[r], t->on[r], t->busy[r], y);
    xml(out, t->label[r]);
    fputc('"', out);
    if (with_data) {
      fputs(" data-at=\"", out);
      for (size_t c = 0; c < t->ncols; c++) fprintf(out, "%s%d", c ? "," : "", t->at[r * t->ncols + c]);
      fputc('"', out);
    }
    fputs("><title>", out);
    xml(out, t->label[r]);
    fprintf(out, ": on it %.6g s of %.6g s (%.1f%%), busy %.6g s</title>\n", t->on[r], wlen,
            wlen > 0 ? 100 * t->on[r] / wlen : 0, t->busy[r]);
    fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%.1f\">", TM, y + 14.5);
    xml(out, t->label[r]);
    fprintf(out, "</text><rect class=\"track\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%d\"/>\n", x0, y, pw, STRIP);
    strip_path(out, "busy", t->busyfrac + r * t->ncols, t->ncols, x0, pw, yb, STRIP);
    strip_path(out, "on", t->frac + r * t->ncols, t->ncols, x0, pw, yb, STRIP);
    fprintf(out, "<text class=\"fig\" x=\"%.0f\" y=\"%.1f\">%.4g s %5.1f%%</text></g>\n", x0 + pw + 8, y + 14.5, t->on[r],
            wlen > 0 ? 100 * t->on[r] / wlen : 0);
  }
  /* the window, shaded over the lanes */
  if (t->windowed) {
    double a = x0 + (t->win_from - t->from) / span * pw, b = x0 + (t->win_to - t->from) / span * pw;
    if (a < x0) a = x0;
    if (b > x0 + pw) b = x0 + pw;
    fprintf(out, "<rect class=\"window\" data-from=\"%.17g\" data-to=\"%.17g\" x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" "
                 "height=\"%.0f\"><title>window %.6g s - %.6g s</title></rect>\n",
            t->win_from, t->win_to, a, ylanes - 4, b - a > 1 ? b - a : 1, yaxis + AXIS_H - ylanes + 4, t->win_from,
            t->win_to);
  }
  /* the time axis: the band the page's script listens on */
  fprintf(out, "<rect class=\"axis\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%d\"><title>time (s)</title></rect>\n"
               "<text class=\"cap\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">time since the first trace record (s)%s"
               "</text>\n",
          x0, yaxis, pw, AXIS_H, x0 + pw / 2, yaxis + 17, with_data ? ": drag here to choose a window" : "");
  fprintf(out, "<rect class=\"on\" x=\"%d\" y=\"%.0f\" width=\"12\" height=\"12\"/><text class=\"cap\" x=\"%d\" y=\"%.0f\">on ",
          TM, ylegend, TM + 17, ylegend + 10);
  xml(out, t->center);
  fprintf(out, "</text><rect class=\"busy\" x=\"%d\" y=\"%.0f\" width=\"12\" height=\"12\"/><text class=\"cap\" x=\"%d\" "
               "y=\"%.0f\">busy elsewhere (blank: idle or untraced)</text>",
          TM + 420, ylegend, TM + 437, ylegend + 10);
  if (t->windowed)
    fprintf(out, "<rect class=\"window\" x=\"%d\" y=\"%.0f\" width=\"12\" height=\"12\"/><text class=\"cap\" x=\"%d\" "
                 "y=\"%.0f\">window %.6g s - %.6g s</text>",
            TM + 740, ylegend, TM + 757, ylegend + 10, t->win_from, t->win_to);
  fputs("\n</svg>\n", out);
}

/* The page of timeline t: the picture at width with its bar, the sampled stack and the script. */
static void timeline_page(FILE *out, const cct_timeline *t, int width) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>cctq: timeline of ", out);
  xml(out, t->center);
  fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", cct_css_timeline_page);
  fputs("<div id=\"bar\"><label>cctq command <input id=\"cmd\" readonly size=\"44\" value=\"\"></label>"
        "<button id=\"copy\" type=\"button\">Copy</button><span id=\"status\">drag over the time axis to choose a "
        "window, click a lane to see what it sampled there</span></div>\n<div id=\"pic\">\n",
        out);
  timeline_svg(out, t, width, 1);
  fputs("</div>\n<div id=\"stack\"></div>\n<ol id=\"frames\" hidden>\n", out);
  for (size_t k = 0; k < t->nframes; k++) {
    fprintf(out, "<li data-id=\"%lld\" data-caller=\"%d\">", t->frame_id[k], t->frame_caller[k]);
    xml(out, t->frame_name[k]);
    fputs("</li>\n", out);
  }
  fprintf(out, "</ol>\n<script>\n%s</script>\n</body>\n</html>\n", cct_js_timeline);
}

/* Writes the timeline of q's session at the picture's width (columns of one pixel over the
 * whole run) to out: the SVG picture, or (html) its page. */
static int write_timeline(cct_query *q, size_t nlanes, const cct_picture_opts *opts, int html, FILE *out,
                          cct_err *err) {
  cct_timeline *t = NULL;
  int width = opts && opts->width > 0 ? (opts->width < 600 ? 600 : opts->width > 4000 ? 4000 : opts->width) : 1200;
  int rc = cct_timeline_compute(q, nlanes, (size_t)(width - 2 * TM - LABEL_W - FIG_W), CCT_TIMELINE_RUN, &t, err);
  if (rc) return rc;
  cct_c_numeric loc = cct_c_numeric_begin();
  if (html) timeline_page(out, t, width);
  else timeline_svg(out, t, width, 0);
  cct_c_numeric_end(loc);
  cct_timeline_free(t);
  return ferror(out) ? cct_err_set(err, CCT_EIO, html ? "cannot write the page" : "cannot write the picture") : CCT_OK;
}

int cct_picture_timeline_svg(cct_query *q, size_t nlanes, const cct_picture_opts *opts, FILE *out, cct_err *err) {
  return write_timeline(q, nlanes, opts, 0, out, err);
}

int cct_picture_timeline_html(cct_query *q, size_t nlanes, const cct_picture_opts *opts, FILE *out, cct_err *err) {
  return write_timeline(q, nlanes, opts, 1, out, err);
}
