/* callbank report: draws the embedded plotly figures and runs the case browser.
   Every text from a run (model output, dialogue) is put into the page with textContent, never as HTML. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("callbank-data").textContent);
  var PAGE = 200;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") node.textContent = attrs[key];
      else if (key === "cls") node.className = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  /* ---------------------------------------------------------------- charts */
  document.querySelectorAll("[data-figure]").forEach(function (node) {
    var figure = data.figures[node.getAttribute("data-figure")];
    if (figure && window.Plotly) {
      window.Plotly.newPlot(node, figure.data, figure.layout, { responsive: true, displaylogo: false });
    }
  });

  /* ---------------------------------------------------------------- the case browser */
  var rows = [];
  data.runs.forEach(function (run, runIndex) {
    run.rows.forEach(function (row) {
      rows.push({ run: runIndex, id: row[0], lang: row[1], category: row[2], status: row[3], error: row[4], detail: row[5] });
    });
  });
  var state = { run: "all", category: "all", lang: "all", status: "all", error: "all", search: "", shown: PAGE, open: null };
  var body = document.getElementById("browser-rows");
  var count = document.getElementById("browser-count");
  var more = document.getElementById("browser-more");

  function option(select, value, label) { select.appendChild(el("option", { value: value, text: label })); }

  var runSelect = document.getElementById("filter-run");
  if (data.runs.length > 1) {
    option(runSelect, "all", "all runs");
    data.runs.forEach(function (run, index) { option(runSelect, String(index), run.label); });
  } else {
    runSelect.parentNode.style.display = "none";
  }
  var categorySelect = document.getElementById("filter-category");
  option(categorySelect, "all", "all categories");
  var prefixes = {};
  rows.forEach(function (row) {
    var parts = row.category.split("/");
    for (var i = 1; i <= parts.length; i++) prefixes[parts.slice(0, i).join("/")] = true;
  });
  Object.keys(prefixes).sort().forEach(function (prefix) {
    option(categorySelect, prefix, "\u00a0\u00a0".repeat(prefix.split("/").length - 1) + prefix);
  });
  var errorSelect = document.getElementById("filter-error");
  option(errorSelect, "all", "any error type");
  var seenErrors = {};
  rows.forEach(function (row) { if (row.error) seenErrors[row.error] = true; });
  Object.keys(data.errors).forEach(function (code) { if (seenErrors[code]) option(errorSelect, code, data.errors[code]); });

  function matches(row) {
    if (state.run !== "all" && String(row.run) !== state.run) return false;
    if (state.category !== "all" && row.category !== state.category && row.category.indexOf(state.category + "/") !== 0) return false;
    if (state.lang !== "all" && row.lang !== state.lang) return false;
    if (state.status !== "all" && row.status !== state.status) return false;
    if (state.error !== "all" && row.error !== state.error) return false;
    if (state.search && row.id.toLowerCase().indexOf(state.search) < 0) return false;
    return true;
  }

  function render() {
    var chosen = rows.filter(matches);
    body.textContent = "";
    chosen.slice(0, state.shown).forEach(function (row) {
      var key = row.run + "|" + row.id + "|" + row.lang;
      var tr = el("tr", { cls: "unit " + row.status, "data-key": key, tabindex: "0" }, [
        data.runs.length > 1 ? el("td", { text: data.runs[row.run].label }) : null,
        el("td", { cls: "id", text: row.id }),
        el("td", { text: row.lang }),
        el("td", { text: row.category }),
        el("td", { cls: "verdict", text: row.status }),
        el("td", { text: row.error ? (data.errors[row.error] || row.error) : "" }),
        el("td", { cls: "detail", text: row.detail })
      ]);
      tr.addEventListener("click", function () { toggle(key, row, tr); });
      tr.addEventListener("keydown", function (event) { if (event.key === "Enter") toggle(key, row, tr); });
      body.appendChild(tr);
      if (state.open === key) body.appendChild(detailRow(row));
    });
    var shown = Math.min(chosen.length, state.shown);
    count.textContent = shown + " of " + chosen.length + " matching units shown (" + rows.length + " in all)";
    count.setAttribute("data-shown", String(shown));
    count.setAttribute("data-matching", String(chosen.length));
    more.style.display = chosen.length > state.shown ? "" : "none";
  }

  function toggle(key, row, tr) {
    var next = tr.nextSibling;
    if (state.open === key && next && next.className === "unit-detail") {
      body.removeChild(next);
      state.open = null;
      return;
    }
    var open = body.querySelector("tr.unit-detail");
    if (open) body.removeChild(open);
    state.open = key;
    body.insertBefore(detailRow(row), tr.nextSibling);
  }

  function block(title, text, cls) {
    return el("div", { cls: "block " + (cls || "") }, [el("h4", { text: title }), el("pre", { text: text === undefined || text === null || text === "" ? "(empty)" : text })]);
  }

  function turnList(turns, step) {
    return el("ol", { cls: "dialogue" }, (turns || []).map(function (turn) {
      var cls = "turn " + turn.role + (turn.step !== undefined && String(turn.step) === String(step) ? " current" : "");
      var label = turn.role === "expect" ? "expected (checkpoint " + turn.step + ")" : turn.role;
      return el("li", { cls: cls }, [el("span", { cls: "role", text: label }), el("pre", { text: turn.text })]);
    }));
  }

  function caseDetail(row, detail) {
    var entry = data.cases[row.id] || { dialogue: {} };
    var parts = [];
    var info = "time " + (entry.time || "—") + " · APIs: " + (entry.apis || []).join(", ");
    parts.push(el("p", { cls: "meta", text: info }));
    if (entry.profile) parts.push(el("p", { cls: "meta", text: "profile: " + (entry.profile[row.lang] || "") }));
    var wrongStep = null;
    (detail.checkpoints || []).forEach(function (cp) { if (wrongStep === null && !cp.verdict.correct) wrongStep = cp.step; });
    parts.push(el("div", { cls: "columns" }, ["en", "zh"].map(function (lang) {
      return el("div", { cls: "column" + (lang === row.lang ? " this-lang" : "") }, [
        el("h4", { text: (lang === "en" ? "English" : "中文") + (lang === row.lang ? " (this unit)" : "") }),
        turnList(entry.dialogue[lang], lang === row.lang ? wrongStep : null)
      ]);
    })));
    (detail.checkpoints || []).forEach(function (cp) {
      var verdict = cp.verdict.correct ? "right" : (cp.verdict.missing ? "missing" : "wrong: " + (data.errors[cp.verdict.error] || cp.verdict.error || "") + (cp.verdict.detail ? " — " + cp.verdict.detail : ""));
      var blocks = [el("h4", { cls: "checkpoint " + (cp.verdict.correct ? "right" : "wrong"), text: "checkpoint " + cp.step + ": " + verdict })];
      if (cp.raw) {
        blocks.push(block("raw output", cp.raw.output));
        if (cp.raw.tool_calls) blocks.push(block("tool_calls", cp.raw.tool_calls));
        if (cp.raw.calls) blocks.push(block("calls (searches included)", cp.raw.calls));
        if (cp.raw.error) blocks.push(block("endpoint error", cp.raw.error));
      }
      if (cp.parsed) blocks.push(block("parsed (" + cp.parsed.kind + ")", cp.parsed.calls || cp.parsed.special || cp.parsed.error));
      var expected = (entry.dialogue[row.lang] || []).filter(function (turn) { return turn.role === "expect" && String(turn.step) === String(cp.step); });
      if (expected.length) blocks.push(block("expected", expected[0].text, "expected"));
      parts.push(el("div", { cls: "checkpoint-detail" }, blocks));
    });
    return parts;
  }

  function scenarioDetail(row, detail) {
    var entry = data.scenarios[row.id] || {};
    var parts = [];
    parts.push(el("p", { cls: "meta", text: "sandboxes: " + (entry.sandboxes || []).join(", ") + " · clock " + (entry.time || "—") }));
    parts.push(el("div", { cls: "columns" }, ["en", "zh"].map(function (lang) {
      return el("div", { cls: "column" + (lang === row.lang ? " this-lang" : "") }, [
        el("h4", { text: (lang === "en" ? "User goal" : "用户目标") + (lang === row.lang ? " (this unit)" : "") }),
        el("pre", { text: (entry.goal || {})[lang] || "" })
      ]);
    })));
    var verdict = detail.verdict.correct ? "right end to end" : "wrong: " + (data.errors[detail.verdict.error] || detail.verdict.error || "missing") + (detail.verdict.detail ? " — " + detail.verdict.detail : "");
    var process = detail.process ? " · milestones " + detail.process.matched + "/" + detail.process.total : "";
    parts.push(el("h4", { cls: "checkpoint " + (detail.verdict.correct ? "right" : "wrong"), text: verdict + process }));
    var reached = {};
    (detail.reached || []).forEach(function (id) { reached[id] = true; });
    parts.push(el("div", { cls: "block" }, [
      el("h4", { text: "milestones" }),
      el("ul", { cls: "milestones" }, (entry.milestones || []).map(function (m) {
        return el("li", { cls: reached[m.id] ? "reached" : "missed", text: (reached[m.id] ? "✓ " : "✗ ") + m.id + ": " + m.text });
      }))
    ]));
    if (detail.differences) parts.push(block("end state vs the reference", detail.differences.length ? detail.differences.join("\n") : "equal"));
    if (detail.problem) parts.push(block("record problem", detail.problem));
    if (entry.outputs && entry.outputs.length) parts.push(block("facts the agent must tell", entry.outputs.join("\n")));
    parts.push(block("the agent's calls", detail.calls));
    parts.push(block("reference calls", (entry.reference || {})[row.lang]));
    if (detail.messages) {
      parts.push(el("div", { cls: "block" }, [el("h4", { text: "trajectory" }), el("ol", { cls: "dialogue" }, detail.messages.map(function (m) {
        return el("li", { cls: "turn " + m.role.split(" ")[0] }, [el("span", { cls: "role", text: m.role }), el("pre", { text: m.text })]);
      }))]));
    }
    return parts;
  }

  function detailRow(row) {
    var detail = data.runs[row.run].details[row.id + "|" + row.lang] || {};
    var cell = el("td", { colspan: String(data.runs.length > 1 ? 7 : 6) });
    var parts = detail.checkpoints ? caseDetail(row, detail) : scenarioDetail(row, detail);
    parts.forEach(function (part) { cell.appendChild(part); });
    return el("tr", { cls: "unit-detail" }, [cell]);
  }

  function chips(id, key) {
    document.querySelectorAll("#" + id + " button").forEach(function (button) {
      button.addEventListener("click", function () {
        document.querySelectorAll("#" + id + " button").forEach(function (b) { b.classList.remove("active"); });
        button.classList.add("active");
        state[key] = button.getAttribute("data-value");
        state.shown = PAGE;
        render();
      });
    });
  }
  chips("filter-lang", "lang");
  chips("filter-status", "status");
  [["filter-run", "run"], ["filter-category", "category"], ["filter-error", "error"]].forEach(function (pair) {
    document.getElementById(pair[0]).addEventListener("change", function (event) { state[pair[1]] = event.target.value; state.shown = PAGE; render(); });
  });
  document.getElementById("filter-search").addEventListener("input", function (event) { state.search = event.target.value.trim().toLowerCase(); state.shown = PAGE; render(); });
  more.addEventListener("click", function () { state.shown += PAGE; render(); });
  render();
})();
