/* ncu-roofline report: figures, kernel table (sort, filter, paginate, expand launches) and diagnosis.
   Every string from the input is written with textContent or setAttribute, never as HTML. */
(function () {
  "use strict";
  function mark(name) { if (window.performance && performance.mark) performance.mark("ncu-roofline:" + name); }
  mark("start");
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  mark("data-parsed");
  var K = DATA.kernels;
  var L = DATA.launches;
  var LAB = DATA.labels;
  var LAUNCH_PAGE = 100;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (Object.prototype.hasOwnProperty.call(attrs, k) && attrs[k] !== null && attrs[k] !== undefined) {
          if (k === "class") e.className = attrs[k];
          else if (k === "style") e.style.cssText = attrs[k];
          else e.setAttribute(k, attrs[k]);
        }
      }
    }
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  /* text with <wbr> after "_", "<", ",", "::" and "/": long names wrap at their parts */
  function breakable(parent, text) {
    // no regular-expression lookbehind: older Safari cannot parse it, and one syntax error stops the page
    var str = String(text), start = 0;
    for (var i = 0; i < str.length; i++) {
      var c = str.charAt(i);
      var cut = c === "_" || c === "<" || c === "," || c === "/" || (c === ":" && str.charAt(i - 1) === ":");
      if (cut && i + 1 < str.length) {
        parent.appendChild(document.createTextNode(str.slice(start, i + 1)));
        parent.appendChild(document.createElement("wbr"));
        start = i + 1;
      }
    }
    parent.appendChild(document.createTextNode(str.slice(start)));
    return parent;
  }

  var DASH = "\u2013";
  function sig(v) {
    var a = Math.abs(v);
    if (a === 0) return "0";
    var mag = Math.floor(Math.log10(a));
    var dec = Math.max(0, 2 - mag);
    return v.toFixed(dec);
  }
  function dur(ns) {
    if (ns === null || ns === undefined) return DASH;
    var a = Math.abs(ns);
    if (a >= 1e9) return sig(ns / 1e9) + " s";
    if (a >= 1e6) return sig(ns / 1e6) + " ms";
    if (a >= 1e3) return sig(ns / 1e3) + " \u00b5s";
    return ns ? sig(ns) + " ns" : "0 ns";
  }
  function pct(f, d) {
    if (f === null || f === undefined) return DASH;
    var dec = d === undefined ? 1 : d, text = (f * 100).toFixed(dec);
    if (f > 0 && Number(text) === 0) return "<" + Math.pow(10, -dec).toFixed(dec) + "%";  // above zero: not "0%"
    return text + "%";
  }
  function num(v) {
    if (v === null || v === undefined) return DASH;
    if (typeof v !== "number") return String(v);
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(3);
    if (Number.isInteger(v)) return v.toLocaleString("en-US");
    return sig(v);
  }
  function limiterLabel(k) { return k ? (LAB.limiter[k] || k) : "unclassified"; }
  function limiterColor(k) { return (k && LAB.limiter_colors[k]) || LAB.missing_color; }
  function regimeColor(k) { return (k && LAB.regime_colors[k]) || LAB.missing_color; }
  function badge(k, pipe, partial, reg) {
    var text = limiterLabel(k) + (pipe && pipe !== "other" ? " " + pipe : "") + (partial && k ? "*" : "");
    if (k && (reg === "latency" || reg === "launch")) text = "(" + text + ")";  // busiest unit: context, no roof holds it
    return el("span", { "class": "badge", style: "background:" + limiterColor(k),
      title: partial && k ? "partial verdict: a unit the export did not measure could be busier" : null }, text);
  }
  function regime(k) { return el("span", { "class": "regime", style: "border-color:" + regimeColor(k) }, k || DASH); }

  /* ------------------------------------------------------------------ figures */
  var plotted = [];
  function plotOne(id) {
    var node = document.getElementById(id);
    if (!node) return Promise.resolve(null);
    var fig = DATA.figures[id];
    return Plotly.newPlot(node, fig.data, fig.layout, DATA.config).then(function (gd) {
      plotted.push(gd);
      mark("drawn:" + id);
      if (id.indexOf("fig-roofline") === 0) {
        gd.on("plotly_click", function (ev) {
          var p = ev && ev.points && ev.points[0];
          var cd = p ? p.customdata : null;
          if (cd !== undefined && cd !== null) select(Number(typeof cd === "object" ? cd[0] : cd), true);
        });
      }
      return gd;
    });
  }
  function yieldToBrowser() { return new Promise(function (resolve) { setTimeout(resolve, 0); }); }
  function plotAll() {
    // one figure at a time, first screen first, letting the browser paint in between: the page is readable
    // while the (possibly large) roofline charts are still being drawn
    if (typeof Plotly === "undefined") return Promise.resolve();
    var ids = Object.keys(DATA.figures).sort(function (a, b) {
      return (a === "fig-time" ? -1 : 0) - (b === "fig-time" ? -1 : 0) || (a < b ? -1 : a > b ? 1 : 0);
    });
    return ids.reduce(function (chain, id) {
      return chain.then(yieldToBrowser).then(function () { return plotOne(id); });
    }, Promise.resolve());
  }

  /* ------------------------------------------------------------------ kernel table */
  var state = { sort: "dur", dir: -1, page: 0, size: 50, name: "", limiter: "", regime: "", hint: "", open: {}, shown: {} };
  var selected = K.length ? 0 : -1;
  var tbody = document.getElementById("kernel-rows");

  function firstHintLabel(k) { return k.first ? k.first.label : ""; }
  var KEYS = {
    name: function (k) { return k.name.toLowerCase(); },
    launches: function (k) { return k.launches; },
    dur: function (k) { return k.dur; },
    share: function (k) { return k.share; },
    mean: function (k) { return k.mean; },
    limiter: function (k) { return k.limiter || "~"; },
    regime: function (k) { return k.regime || "~"; },
    peak: function (k) { return k.peak; },
    hint: function (k) { return firstHintLabel(k) || "~"; },
    nvtx: function (k) { return k.nvtx || "~"; }
  };
  function cmp(a, b) {
    var f = KEYS[state.sort];
    var x = f(K[a]), y = f(K[b]);
    var nx = x === null || x === undefined, ny = y === null || y === undefined;
    if (nx || ny) return nx === ny ? a - b : (nx ? 1 : -1);  // missing last either way
    if (x < y) return -state.dir;
    if (x > y) return state.dir;
    return a - b;
  }
  function matches(k) {
    if (state.limiter && (k.limiter || "") !== state.limiter) return false;
    if (state.regime && (k.regime || "") !== state.regime) return false;
    if (state.hint && k.hints.indexOf(state.hint) < 0) return false;
    if (state.name) {
      var q = state.name;
      if (k.name.toLowerCase().indexOf(q) < 0 && (k.full || "").toLowerCase().indexOf(q) < 0 &&
          (k.nvtx || "").toLowerCase().indexOf(q) < 0 && !k.nvtx_all.some(function (s) { return s.toLowerCase().indexOf(q) >= 0; })) return false;
    }
    return true;
  }
  function launchRow(j, first) {
    var tr = el("tr", { "class": "launch pick", "data-kernel": L.kernel[j], "data-launch": j });
    var idText = (L.inv ? "group of " + L.inv[j].toLocaleString("en-US") + (L.inv[j] === 1 ? " launch" : " launches (mean)")
      : "launch " + (L.id[j] === null ? "?" : L.id[j])) + (DATA.multi_report ? " \u00b7 " + (L.report[j] || "") : "");
    add(tr, el("td", { "class": first ? "first" : null }));
    add(tr, el("td", { title: (L.grid[j] ? "grid " + L.grid[j] : "") + (L.block[j] ? " block " + L.block[j] : "") }, idText +
      (L.grid[j] ? "  grid " + L.grid[j] + " \u00d7 block " + (L.block[j] || "?") : "")));
    add(tr, el("td", { "class": "num" }, ""));
    add(tr, el("td", { "class": "num" }, dur(L.dur[j])));
    add(tr, el("td", { "class": "num" }, ""));
    add(tr, el("td", { "class": "num" }, ""));
    add(add(tr, el("td")), badge(L.limiter[j], L.pipe[j], L.partial[j], L.regime[j]));
    add(add(tr, el("td")), regime(L.regime[j]));
    add(tr, el("td", { "class": "num", title: L.reason[j] || "" }, pct(L.peak[j], 0)));
    add(tr, el("td", { "class": "hint" }, L.hints[j].join(", ")));
    add(tr, el("td", { "class": "name small", title: L.nvtx_raw[j] || L.nvtx[j] || "" }, L.nvtx[j] || ""));
    return tr;
  }
  function kernelRow(i) {
    var k = K[i];
    var tr = el("tr", { "class": "pick" + (i === selected ? " selected" : ""), "data-kernel": i, tabindex: "0" });
    var td0 = add(tr, el("td"));
    if (k.rows.length > 1) {
      var b = add(td0, el("button", { type: "button", "class": "expand", "aria-expanded": state.open[i] ? "true" : "false",
        title: (state.open[i] ? "hide" : "show") + " the " + k.rows.length + (L.inv ? " groups of launches" : " launches") },
        state.open[i] ? "\u25be" : "\u25b8"));
      b.addEventListener("click", function (ev) {
        ev.stopPropagation();
        if (state.open[i]) delete state.open[i]; else { state.open[i] = true; state.shown[i] = LAUNCH_PAGE; }
        render();
      });
    }
    var name = add(tr, el("td", { "class": "name", title: k.full || k.name }));
    breakable(add(name, el("span", { "class": "kname" })), k.name);
    add(tr, el("td", { "class": "num" }, k.launches.toLocaleString("en-US")));
    add(tr, el("td", { "class": "num" }, dur(k.dur)));
    add(tr, el("td", { "class": "num" }, pct(k.share)));
    add(tr, el("td", { "class": "num" }, dur(k.mean)));
    add(add(tr, el("td")), badge(k.limiter, k.pipe, k.partial, k.regime));
    add(add(tr, el("td")), regime(k.regime));
    add(tr, el("td", { "class": "num", title: k.reason || "" }, pct(k.peak, 0)));
    var h = add(tr, el("td", { "class": "hint", title: k.first ? (k.first.message || "") : "" }));
    if (k.first) {
      add(h, el("span", { "class": "sev sev-" + (k.first.severity || "none") }, k.first.severity || ""));
      h.appendChild(document.createTextNode(" " + k.first.label));
    }
    add(tr, el("td", { "class": "name small", title: k.nvtx || "" }, k.nvtx ? k.nvtx + (k.nvtx_n > 1 ? " +" + (k.nvtx_n - 1) : "") : ""));
    return tr;
  }
  function render() {
    var rows = [];
    for (var i = 0; i < K.length; i++) if (matches(K[i])) rows.push(i);
    rows.sort(cmp);
    var pages = Math.max(1, Math.ceil(rows.length / state.size));
    if (state.page >= pages) state.page = pages - 1;
    var start = state.page * state.size;
    var frag = document.createDocumentFragment();
    rows.slice(start, start + state.size).forEach(function (i) {
      frag.appendChild(kernelRow(i));
      if (state.open[i]) {
        var rs = K[i].rows, n = Math.min(rs.length, state.shown[i] || LAUNCH_PAGE);
        for (var j = 0; j < n; j++) frag.appendChild(launchRow(rs[j], j === 0));
        if (n < rs.length) {
          var more = el("tr", { "class": "more" });
          var td = add(more, el("td", { colspan: "11" }));
          var btn = add(td, el("button", { type: "button" }, "show " + Math.min(LAUNCH_PAGE, rs.length - n) + " more of " + rs.length +
            (L.inv ? " groups" : " launches")));
          btn.addEventListener("click", function () { state.shown[i] = n + LAUNCH_PAGE; render(); });
          frag.appendChild(more);
        }
      }
    });
    tbody.replaceChildren(frag);
    document.getElementById("p-info").textContent = rows.length
      ? "kernels " + (start + 1) + "\u2013" + Math.min(start + state.size, rows.length) + " of " + rows.length
      : "no kernel matches";
    document.getElementById("p-prev").disabled = state.page <= 0;
    document.getElementById("p-next").disabled = state.page >= pages - 1;
    var launches = L.inv ? L.inv.reduce(function (a, b) { return a + b; }, 0) : L.id.length;
    document.getElementById("kernel-count").textContent = "(" + K.length.toLocaleString("en-US") + " kernels, " +
      launches.toLocaleString("en-US") + " launches" + (L.inv ? " in " + L.id.length.toLocaleString("en-US") + " groups" : "") + ")";
    var ths = document.querySelectorAll("#kernel-table th.sortable");
    for (var t = 0; t < ths.length; t++) {
      ths[t].classList.remove("sorted-asc", "sorted-desc");
      if (ths[t].getAttribute("data-sort") === state.sort) ths[t].classList.add(state.dir > 0 ? "sorted-asc" : "sorted-desc");
    }
  }
  function options(id, values, label) {
    var s = document.getElementById(id);
    values.forEach(function (v) { s.appendChild(el("option", { value: v }, label ? label(v) : v)); });
    return s;
  }
  function uniq(list) {
    var seen = {}, out = [];
    list.forEach(function (v) { if (v && !seen[v]) { seen[v] = true; out.push(v); } });
    return out;
  }
  function setupTable() {
    options("f-limiter", uniq(K.map(function (k) { return k.limiter; })), limiterLabel);
    options("f-regime", uniq(K.map(function (k) { return k.regime; })));
    var hints = [];
    K.forEach(function (k) { hints = hints.concat(k.hints); });
    options("f-hint", uniq(hints).sort());
    var on = function (id, ev, fn) { document.getElementById(id).addEventListener(ev, fn); };
    on("f-name", "input", function (e) { state.name = e.target.value.trim().toLowerCase(); state.page = 0; render(); });
    on("f-limiter", "change", function (e) { state.limiter = e.target.value; state.page = 0; render(); });
    on("f-regime", "change", function (e) { state.regime = e.target.value; state.page = 0; render(); });
    on("f-hint", "change", function (e) { state.hint = e.target.value; state.page = 0; render(); });
    on("f-size", "change", function (e) { state.size = Number(e.target.value); state.page = 0; render(); });
    on("p-prev", "click", function () { state.page = Math.max(0, state.page - 1); render(); });
    on("p-next", "click", function () { state.page += 1; render(); });
    var ths = document.querySelectorAll("#kernel-table th.sortable");
    for (var t = 0; t < ths.length; t++) {
      ths[t].addEventListener("click", function (e) {
        var key = e.currentTarget.getAttribute("data-sort");
        if (state.sort === key) state.dir = -state.dir;
        else { state.sort = key; state.dir = (key === "name" || key === "limiter" || key === "regime" || key === "hint" || key === "nvtx") ? 1 : -1; }
        render();
      });
    }
    tbody.addEventListener("click", function (e) {
      var tr = e.target.closest("tr[data-kernel]");
      if (tr) select(Number(tr.getAttribute("data-kernel")), true);
    });
    tbody.addEventListener("keydown", function (e) {
      var tr = e.target.closest("tr[data-kernel]");
      if (tr && e.key === "Enter") select(Number(tr.getAttribute("data-kernel")), true);
    });
  }

  /* ------------------------------------------------------------------ diagnosis */
  function utilBlock(parent, k) {
    if (!k.util.length) { add(parent, el("p", { "class": "muted" }, "No utilisation figures for this kernel.")); return; }
    var box = add(parent, el("div", { "class": "util" }));
    var last = null;
    k.util.forEach(function (entry) {
      var unit = LAB.units[entry[0]], label = unit[0], source = unit[1], value = entry[1];
      if (source !== last) { add(box, el("h4", null, LAB.sources[source] || source)); last = source; }
      add(box, el("span", null, label));
      var bar = add(box, el("span", { "class": "bar" }));
      add(bar, el("span", { "class": value >= 0.6 ? "hot" : "", style: "width:" + Math.max(0, Math.min(100, value * 100)).toFixed(1) + "%" }));
      add(box, el("span", { "class": "v" }, pct(value, 0)));
    });
  }
  // " · est. speedup 7%", or " · est. speedup 96% with less work (<1% at today's work)": worded by the view
  // model (HintItem.speedup_text), as the terminal and Markdown findings are
  function speedupText(h) {
    return h.speedup ? " \u00b7 " + h.speedup : "";
  }

  function hintCard(parent, h, total) {
    var card = add(parent, el("div", { "class": "hintcard " + (h.severity || "") }));
    var head = add(card, el("div"));
    add(head, el("span", { "class": "sev sev-" + (h.severity || "none") }, h.severity || ""));
    head.appendChild(document.createTextNode(" "));
    add(head, el("b", null, h.label));
    add(head, el("span", { "class": "muted small" }, "  on " + h.launches + " of " + total + " launch" + (total === 1 ? "" : "es") +
      speedupText(h) +
      (h.launch_id !== null && total > 1 ? " \u00b7 figures of launch " + h.launch_id : "")));
    if (h.message) add(card, el("div", null, h.message));
    if (h.evidence.length) {
      var t = add(card, el("table"));
      var hr = add(add(t, el("thead")), el("tr"));
      ["evidence", "value", "", "threshold"].forEach(function (c) { add(hr, el("th", null, c)); });
      var tb = add(t, el("tbody"));
      h.evidence.forEach(function (ev) {
        var r = add(tb, el("tr"));
        add(r, el("td", { "class": "kname" }, ev.metric !== undefined ? ev.metric : ""));
        add(r, el("td", null, num(ev.value)));
        add(r, el("td", null, ev.op || ""));
        add(r, el("td", null, num(ev.threshold)));
      });
    }
    if (h.advice !== null && h.advice !== undefined) {
      add(card, el("div", { "class": "advice" }, "\u2192 " + LAB.advice[h.advice]));
    }
  }
  function renderDiag() {
    var body = document.getElementById("d-body");
    body.replaceChildren();
    if (selected < 0) { add(body, el("p", { "class": "muted" }, "No kernel in this report.")); return; }
    var k = K[selected];
    add(body, el("h3", null, k.name));
    breakable(add(body, el("div", { "class": "fullname", title: "full kernel name" })), k.full || k.name);
    var cols = add(body, el("div", { "class": "diag-cols" }));
    var left = add(cols, el("div"));
    var dl = add(left, el("dl", { "class": "facts" }));
    var fact = function (label, value) { add(dl, el("dt", null, label)); var dd = add(dl, el("dd")); if (value instanceof Node) dd.appendChild(value); else dd.textContent = value; };
    fact("GPU time", dur(k.dur) + " (" + pct(k.share) + " of the report)");
    fact("Launches", k.launches.toLocaleString("en-US") + (k.launches > 1 ? ", mean " + dur(k.mean) : ""));
    fact(k.regime === "latency" || k.regime === "launch" ? "Busiest unit (no roof holds it)" : "Limiter",
      badge(k.limiter, k.pipe, k.partial, k.regime));
    fact("Regime", regime(k.regime));
    fact("% of roof", pct(k.peak, 0) + (k.launches > 1 ? " (time-weighted over launches)" : ""));
    if (k.reason) fact("Why", k.reason + (k.launches > 1 ? " (its longest launch of this verdict)" : ""));
    if (k.nc) fact("Not checked", k.nc);
    if (k.nvtx) fact("NVTX range", k.nvtx + (k.nvtx_n > 1 ? " and " + (k.nvtx_n - 1) + " more" : ""));
    if (DATA.multi_report && k.report) fact("Report", k.report);
    add(left, el("h4", null, "Utilisation per unit" + (k.launches > 1 ? " (time-weighted over launches)" : "")));
    utilBlock(left, k);
    var right = add(cols, el("div"));
    add(right, el("h4", null, "Hints"));
    if (k.diag.length) k.diag.forEach(function (h) { hintCard(right, h, k.launches); });
    else add(right, el("p", { "class": "muted" }, "No ncu-roofline hint fired on this kernel."));
    add(right, el("h4", null, "ncu's own rules"));
    if (k.ncu.length) {
      k.ncu.forEach(function (h) {
        var d = add(right, el("details", { "class": "ncu" }));
        var s = add(d, el("summary"));
        add(s, el("span", { "class": "sev sev-" + (h.severity || "none") }, h.severity || ""));
        s.appendChild(document.createTextNode(" " + h.label + "  "));
        add(s, el("span", { "class": "muted small" }, "on " + h.launches + " launch" + (h.launches === 1 ? "" : "es") +
          speedupText(h)));
        add(d, el("p", null, h.message || ""));
      });
    } else {
      add(right, el("p", { "class": "muted" }, DATA.has_rules ? "ncu reported no rule for this kernel." :
        "The export has no rule results (ncu writes them on the details page, --page details, from version 2021 " +
        "on; an older page has none)."));
    }
  }
  function select(i, scroll) {
    if (i < 0 || i >= K.length) return;
    selected = i;
    document.getElementById("d-kernel").value = String(i);
    var rows = tbody.querySelectorAll("tr.selected");
    for (var r = 0; r < rows.length; r++) rows[r].classList.remove("selected");
    var mine = tbody.querySelectorAll('tr[data-kernel="' + i + '"]:not(.launch)');
    for (var m = 0; m < mine.length; m++) mine[m].classList.add("selected");
    renderDiag();
    if (scroll) document.getElementById("diagnosis").scrollIntoView();
  }
  function setupDiag() {
    var s = document.getElementById("d-kernel");
    K.forEach(function (k, i) { s.appendChild(el("option", { value: String(i) }, (i + 1) + ". " + k.name + "  (" + pct(k.share) + ")")); });
    s.addEventListener("change", function () { select(Number(s.value), false); });
    var links = document.querySelectorAll("[data-kernel].klink, #top-kernels tr[data-kernel]");
    for (var i = 0; i < links.length; i++) {
      links[i].addEventListener("click", function (e) {
        e.preventDefault();
        select(Number(e.currentTarget.getAttribute("data-kernel")), true);
      });
      links[i].addEventListener("keydown", function (e) {
        if (e.key === "Enter") select(Number(e.currentTarget.getAttribute("data-kernel")), true);
      });
    }
  }

  setupTable();
  render();
  setupDiag();
  if (selected >= 0) select(selected, false);
  mark("table-ready");
  plotAll().then(function () {
    mark("figures-drawn");
    document.body.setAttribute("data-ready", "1");
  }, function (err) {
    document.body.setAttribute("data-ready", "error");
    throw err;
  });
})();
