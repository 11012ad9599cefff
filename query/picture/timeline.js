/* timeline.js: the HTML page of the timeline (query/picture_timeline.c).  The
 * page is a static file: it cannot change the cctq session, so each gesture
 * gives the command that does it, shown in #cmd and copied to the clipboard:
 * dragging over the time axis gives 'window A B' (seconds, to the precision of
 * one column), a click on a lane shows the call stack that lane sampled there
 * (innermost frame first, from the lane's data-at and the frame table #frames)
 * and gives 'center #ID' of its innermost frame; a click on another frame of
 * the stack gives that frame's.  Exposes window.cctTimeline for tests. */
(function () {
  'use strict';
  var svg = document.querySelector('#pic svg'), NS = 'http://www.w3.org/2000/svg';
  var cmd = document.getElementById('cmd'), status = document.getElementById('status');
  var stackDiv = document.getElementById('stack');
  var d = svg.dataset, x0 = +d.x0, pw = +d.plotWidth, from = +d.from, to = +d.to, ncols = +d.columns;
  var lanesY = +d.lanesY, axisY = +d.axisY;
  var frames = Array.from(document.querySelectorAll('#frames li')).map(function (li) {
    return { id: li.dataset.id, caller: +li.dataset.caller, name: li.textContent };
  });
  var colw = (to - from) / ncols;
  var digits = Math.max(0, Math.min(9, Math.ceil(-Math.log10(colw))));

  /* x in the picture's coordinates from a mouse event. */
  function xOf(e) {
    var r = svg.getBoundingClientRect();
    return (e.clientX - r.left) * (svg.viewBox.baseVal.width / r.width);
  }
  function colOf(x) { return Math.max(0, Math.min(ncols - 1, Math.floor((x - x0) / pw * ncols))); }
  function timeOf(x) { return from + Math.max(0, Math.min(pw, x - x0)) / pw * (to - from); }
  function sec(t) { return String(Number(t.toFixed(digits))); }

  function say(command, text) {
    cmd.value = command;
    status.textContent = text;
    if (!command) return;
    cmd.select();
    var done = function () { status.textContent = text + ' (copied)'; };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(command).then(done, function () {});
    else try { if (document.execCommand('copy')) done(); } catch (err) { /* the command stays selected in #cmd */ }
  }

  function mark(cls, attrs) {
    var el = svg.querySelector(cls) || svg.appendChild(document.createElementNS(NS, cls.split('.')[0]));
    el.setAttribute('class', cls.split('.')[1]);
    Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    return el;
  }

  /* ---- dragging over the axis: a window ---- */
  var drag = null;
  function showSel(a, b) {
    var l = Math.min(a, b), r = Math.max(a, b);
    mark('rect.sel', { x: l, y: lanesY - 4, width: Math.max(1, r - l), height: axisY + 26 - lanesY + 4 });
  }
  svg.querySelector('rect.axis').addEventListener('mousedown', function (e) {
    e.preventDefault();
    drag = Math.max(x0, Math.min(x0 + pw, xOf(e)));
    showSel(drag, drag);
  });
  document.addEventListener('mousemove', function (e) {
    if (drag !== null) showSel(drag, Math.max(x0, Math.min(x0 + pw, xOf(e))));
  });
  document.addEventListener('mouseup', function (e) {
    if (drag === null) return;
    var a = drag, b = Math.max(x0, Math.min(x0 + pw, xOf(e)));
    drag = null;
    if (Math.abs(b - a) < 2) return;
    var ta = sec(timeOf(Math.min(a, b))), tb = sec(timeOf(Math.max(a, b)));
    say('window ' + ta + ' ' + tb, 'paste into cctq to set the window ' + ta + ' s - ' + tb + ' s');
  });

  /* ---- a click on a lane: the stack sampled there ---- */
  var atCache = new Map();
  function atOf(g) {
    if (!atCache.has(g)) atCache.set(g, g.dataset.at.split(',').map(Number));
    return atCache.get(g);
  }
  function chooseFrame(k, where) {
    var f = frames[k];
    stackDiv.querySelectorAll('li').forEach(function (li) { li.classList.toggle('chosen', +li.dataset.k === k); });
    say('center #' + f.id, 'paste into cctq to center on ' + f.name + ' (this call path, ' + where + ')');
  }
  function laneClick(g, x) {
    var c = colOf(x), k = atOf(g)[c], label = g.dataset.label;
    var t = from + (c + 0.5) * colw, where = label + ' at ' + sec(t) + ' s';
    mark('path.cursor', { d: 'M' + (x0 + (c + 0.5) * pw / ncols) + ' ' + g.dataset.y + 'v20' });
    stackDiv.textContent = '';
    if (k < 0) {
      stackDiv.textContent = where + ': idle (no sample on a call stack)';
      say('', where + ' was idle');
      return;
    }
    var head = document.createElement('div');
    head.textContent = 'call stack sampled by ' + where + ', innermost first (click a frame to center on it):';
    var ol = document.createElement('ol');
    for (var j = k; j >= 0; j = frames[j].caller) {
      var li = document.createElement('li');
      li.dataset.k = j;
      li.dataset.id = frames[j].id;
      li.textContent = frames[j].name + '  #' + frames[j].id;
      ol.appendChild(li);
    }
    ol.addEventListener('click', function (e) {
      var li = e.target.closest('li');
      if (li) chooseFrame(+li.dataset.k, where);
    });
    stackDiv.appendChild(head);
    stackDiv.appendChild(ol);
    chooseFrame(k, where);
  }
  svg.addEventListener('click', function (e) {
    var g = e.target.closest ? e.target.closest('g.lane') : null, x = xOf(e);
    if (g && x >= x0 && x < x0 + pw) laneClick(g, x);
  });
  document.getElementById('copy').addEventListener('click', function () { if (cmd.value) say(cmd.value, status.textContent.replace(/ \(copied\)$/, '')); });

  window.cctTimeline = { x0: x0, plotWidth: pw, from: from, to: to, columns: ncols, digits: digits };
})();
