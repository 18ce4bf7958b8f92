// The run page's item table and item view. Items arrive gzip+base64 in #parrot-data and are
// unpacked with the browser's DecompressionStream; the table shows PAGE rows at a time.
(async function () {
  const PAGE = 100;
  const KEYWORDS = new Set(("select from where group by order having limit offset join left right " +
    "inner outer full cross on as and or not in is null like ilike between case when then else end " +
    "distinct union all intersect except with recursive over partition rows range preceding " +
    "following current row asc desc nulls first last cast interval exists any some true false " +
    "insert update delete into values set create table view using natural qualify window filter " +
    "lateral unnest array struct map date time timestamp top fetch next only").split(" "));

  function h(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v; else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }

  const raw = document.getElementById("parrot-data").textContent.trim();
  const bin = atob(raw);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const items = (await new Response(stream).json()).items;
  const byId = new Map(items.map((r) => [String(r.id), r]));
  const rows = items.map((r) => ({
    r,
    id: String(r.id),
    pair: `${r.source_dialect}→${r.target_dialect}`,
    types: (r.translation_types || []).join(", "),
    tokens: r.tokens ?? null,
    tstatus: r.translation.status,
    status: r.gold.status !== "ok" ? "gold_error" : r.pred ? r.pred.status : "not_run",
    reason: r.verdicts.strict.reason,
    strict: r.verdicts.strict.match,
    normalized: r.verdicts.normalized.match ? "✓" : "✗",
    multiset: r.verdicts.multiset.match ? "✓" : "✗",
    ts: r.suite ? (r.suite.match ? "✓" : "✗") : "",
    level: r.level ? r.level.name : "",
    text: [r.id, r.translation.sql || "", r.source_sql || ""].join("\n").toLowerCase(),
  }));

  const form = document.getElementById("filters");
  const fill = (name, values) => {
    const sel = form.elements[name];
    [...new Set(values)].sort().forEach((v) => sel.append(h("option", { value: v }, v)));
  };
  fill("pair", rows.map((x) => x.pair));
  fill("type", items.flatMap((r) => r.translation_types || []));
  fill("difficulty", items.map((r) => r.difficulty).filter((d) => d));
  fill("tag", items.flatMap((r) => r.tags || []));
  fill("reason", rows.map((x) => x.reason));
  fill("status", rows.map((x) => x.status));
  fill("level", rows.map((x) => x.level).filter((v) => v));
  fill("feature", items.flatMap((r) => r.features || []));

  let sortKey = null, sortDir = 1, page = 0, shown = [], lastList = "#items";

  function filtered() {
    const f = Object.fromEntries(new FormData(form));
    const q = (f.q || "").trim().toLowerCase();
    const tmin = f.tmin === "" ? null : Number(f.tmin), tmax = f.tmax === "" ? null : Number(f.tmax);
    return rows.filter((x) =>
      (!f.pair || x.pair === f.pair) &&
      (!f.type || (x.r.translation_types || []).includes(f.type)) &&
      (!f.difficulty || x.r.difficulty === f.difficulty) &&
      (!f.tag || (x.r.tags || []).includes(f.tag)) &&
      (!f.feature || (x.r.features || []).includes(f.feature)) &&
      (!f.reason || x.reason === f.reason) &&
      (!f.strict || (f.strict === "pass") === x.strict) &&
      (!f.status || x.status === f.status) &&
      (!f.level || x.level === f.level) &&
      (tmin === null || (x.tokens !== null && x.tokens >= tmin)) &&
      (tmax === null || (x.tokens !== null && x.tokens <= tmax)) &&
      (!q || x.text.includes(q)));
  }

  function render() {
    shown = filtered();
    if (sortKey) {
      shown.sort((a, b) => {
        const x = a[sortKey], y = b[sortKey];
        if (x === y) return 0;
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * sortDir;
      });
    }
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    const body = document.querySelector("#item-table tbody");
    body.replaceChildren(...shown.slice(page * PAGE, (page + 1) * PAGE).map((x) =>
      h("tr", { "data-id": x.id },
        h("td", {}, h("a", { href: "#item=" + encodeURIComponent(x.id) }, x.id)),
        h("td", {}, x.pair), h("td", {}, x.types), h("td", {}, x.tokens ?? ""),
        h("td", {}, x.tstatus), h("td", {}, x.status),
        h("td", { class: x.strict ? "ok" : "fail" }, x.reason),
        h("td", {}, x.normalized), h("td", {}, x.multiset), h("td", {}, x.ts))));
    document.getElementById("count").textContent =
      `${shown.length} of ${rows.length} items match the filters`;
    document.getElementById("page").textContent = `page ${page + 1} of ${pages}`;
    document.getElementById("prev").disabled = page === 0;
    document.getElementById("next").disabled = page >= pages - 1;
  }

  function filtersToHash() {
    const f = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v) f.set(k, v);
    lastList = f.toString() ? "#" + f.toString() : "#items";
    history.replaceState(null, "", lastList);
  }

  const refilter = () => { page = 0; render(); filtersToHash(); };
  form.addEventListener("input", refilter);
  form.addEventListener("change", refilter);
  form.addEventListener("submit", (e) => e.preventDefault());
  document.getElementById("prev").addEventListener("click", () => { page--; render(); });
  document.getElementById("next").addEventListener("click", () => { page++; render(); });
  document.querySelectorAll("#item-table th[data-sort]").forEach((th) => {
    th.addEventListener("click", () => {
      sortDir = sortKey === th.dataset.sort ? -sortDir : 1;
      sortKey = th.dataset.sort;
      document.querySelectorAll("#item-table th").forEach((t) => delete t.dataset.dir);
      th.dataset.dir = sortDir > 0 ? "asc" : "desc";
      render();
    });
  });
  document.querySelector("#item-table tbody").addEventListener("click", (e) => {
    const tr = e.target.closest("tr");
    if (tr && e.target.tagName !== "A") location.hash = "item=" + encodeURIComponent(tr.dataset.id);
  });

  // --- item view -------------------------------------------------------------------------
  const TOKEN = /(\s+)|(--[^\n]*|\/\*[\s\S]*?\*\/)|('(?:[^'\\]|''|\\.)*'?)|("(?:[^"]|"")*"?|`[^`]*`?|\[[^\]\n]*\])|(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|([A-Za-z_][A-Za-z0-9_$]*)|([\s\S])/g;

  function tokenize(sql) {
    const out = [];
    for (const m of sql.matchAll(TOKEN)) {
      const kind = m[1] ? "ws" : m[2] ? "cmt" : m[3] ? "str" : m[4] ? "id" : m[5] ? "num"
        : m[6] ? (KEYWORDS.has(m[6].toLowerCase()) ? "kw" : "id") : "op";
      out.push({ text: m[0], kind, key: m[6] ? m[0].toLowerCase() : m[0] });
    }
    return out;
  }

  // Tokens of a and b outside their longest common subsequence (whitespace ignored).
  function changed(a, b) {
    const x = a.filter((t) => t.kind !== "ws"), y = b.filter((t) => t.kind !== "ws");
    const n = x.length, m = y.length;
    const ca = new Set(x), cb = new Set(y);
    if (n * m > 4e6) return [ca, cb];
    const dp = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        dp[i][j] = x[i].key === y[j].key ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    for (let i = 0, j = 0; i < n && j < m;) {
      if (x[i].key === y[j].key) { ca.delete(x[i]); cb.delete(y[j]); i++; j++; }
      else if (dp[i + 1][j] >= dp[i][j + 1]) i++; else j++;
    }
    return [ca, cb];
  }

  function sqlBlock(tokens, marked, cls) {
    return h("pre", { class: "sql" }, tokens.map((t) => {
      const span = t.kind === "ws" || t.kind === "op" || t.kind === "id" ? t.text
        : h("span", { class: t.kind }, t.text);
      return marked.has(t) ? h("mark", { class: cls }, span) : span;
    }));
  }

  function value(v) {
    if (v === null || v === undefined) return h("span", { class: "null" }, "NULL");
    if (typeof v === "object") {
      const [k, inner] = Object.entries(v)[0] || ["", ""];
      return h("span", {}, typeof inner === "object" ? JSON.stringify(inner) : String(inner),
               h("span", { class: "typ" }, k));
    }
    return String(v);
  }

  function preview(title, res, cell, side) {
    if (!res) return h("div", {}, h("h4", {}, title), h("p", {}, "not run"));
    const head = [h("h4", {}, `${title}: ${res.engine || ""} — ${res.status}`,
                    res.rows !== undefined ? `, ${res.rows} rows` : "",
                    res.elapsed !== undefined ? `, ${res.elapsed.toFixed(4)} s` : "")];
    if (res.error) head.push(h("pre", { class: "error" }, res.error));
    if (!res.columns) return h("div", {}, head);
    const rows = res.preview || [];
    const table = h("table", { class: "preview", "data-side": side },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), res.columns.map((c) => h("th", {}, c)))),
      h("tbody", {}, rows.map((row, i) => h("tr", {}, h("th", {}, i),
        row.map((v, j) => h("td", { class: cell && cell.row === i && cell.column === j ? "diff" : null },
                             value(v)))))));
    const more = res.rows > rows.length ? h("p", { class: "sub" }, `first ${rows.length} of ${res.rows} rows`) : null;
    return h("div", {}, head, h("div", { class: "scroll" }, table), more);
  }

  function levelText(l) {
    if (l.bound !== undefined) return `${l.name}, equal on every database up to ${l.bound} rows (${l.databases} databases run)`;
    const kills = l.neighbours ? `; the suite kills ${l.killed}/${l.neighbours} of the source's neighbours` : "";
    return `${l.name} (${l.databases} database${l.databases === 1 ? "" : "s"}${kills})`;
  }

  function witnessView(w) {
    const tables = Object.entries(w.tables || {});
    return [h("h3", { id: "witness" }, `Witness: ${w.size} row${w.size === 1 ? "" : "s"} (${w.minimal ? "1-minimal" : "not minimal: the budget ran out"}, from the ${w.origin}, ${w.executions} engine executions)`),
      h("p", { class: "sub" }, `the smallest database found on which the source and the translation still differ (${w.reason}: ${w.detail || ""}); other tables empty. Runnable scripts: parrot witness RUN ITEM_ID`),
      tables.map(([name, rows]) => h("div", { class: "scroll" }, h("table", { class: "witness-table" },
        h("caption", {}, name),
        h("thead", {}, h("tr", {}, ((w.columns || {})[name] || []).map((c) => h("th", {}, c)))),
        h("tbody", {}, rows.map((row) => h("tr", {}, row.map((v) => h("td", {}, value(v))))))))),
      h("div", { class: "cols" }, preview("source on the witness", w.gold, w.cell, "gold"),
        preview("translation on the witness", w.pred, w.cell, "pred"))];
  }

  function showItem(id) {
    const r = byId.get(id);
    const view = document.getElementById("item-view");
    document.getElementById("overview").hidden = true;
    view.hidden = false;
    if (!r) { view.replaceChildren(h("p", {}, `no item ${id} in this run`), h("a", { href: lastList }, "← back")); return; }
    const src = tokenize(r.source_sql || ""), dst = tokenize(r.translation.sql || "");
    const [ca, cb] = changed(src, dst);
    const modes = Object.entries(r.verdicts);
    const failing = modes.find(([, v]) => !v.match && v.cell);
    const cell = failing ? failing[1].cell : null;
    const columns = (r.gold.columns || []);
    const t = r.translation;
    const errors = [["translation", t.error], ["source on its engine", r.gold.error],
      ["translation on its engine", r.pred && r.pred.error], ["grammar (Acc_SYN)", r.syntax && !r.syntax.ok ? r.syntax.error : null],
      ["engine errors retried", r.engine_errors_retried ? JSON.stringify(r.engine_errors_retried) : null]]
      .filter(([, e]) => e);
    const parts = [
      h("p", {}, h("a", { href: lastList, id: "back" }, "← back to the items")),
      h("h2", {}, r.id),
      h("p", {}, `${r.source_dialect} → ${r.target_dialect} · types: ${(r.translation_types || []).join(", ") || "none"} · ${r.tokens ?? "?"} tokens` +
        (r.difficulty ? ` · ${r.difficulty}` : "") + (r.tags && r.tags.length ? ` · tags: ${r.tags.join(", ")}` : "") +
        (r.features && r.features.length ? ` · SQL features: ${r.features.join(", ")}` : "")),
      r.level ? h("p", { id: "level" }, `verdict level: ${levelText(r.level)}`) : null,
      h("div", { class: "cols" },
        h("div", {}, h("h3", {}, `source (${r.source_dialect})`),
          r.source_sql === null || r.source_sql === undefined ? h("p", { class: "warn" }, "source SQL not available (see the top of the page)")
            : sqlBlock(src, ca, "del")),
        h("div", {}, h("h3", {}, `translation (${r.target_dialect}) — ${t.status}`),
          t.sql ? h("div", { id: "translation-sql" }, sqlBlock(dst, cb, "ins")) : h("p", {}, "no SQL"))),
      h("h3", {}, "Results"),
      cell ? h("p", { id: "diff-cell" }, `first differing cell (${failing[0]}): row ${cell.row}, column ${cell.column}` +
        (columns[cell.column] !== undefined ? ` (${columns[cell.column]})` : "") + ": gold ",
        value(cell.gold), " vs prediction ", value(cell.pred)) : null,
      h("div", { class: "cols" }, preview("source result (gold)", r.gold, cell, "gold"),
        preview("translation result", r.pred, cell, "pred")),
      r.witness ? witnessView(r.witness) : null,
      h("h3", {}, "Verdicts"),
      h("table", { id: "verdicts" }, h("thead", {}, h("tr", {}, ["mode", "match", "reason", "detail", "notes"].map((x) => h("th", {}, x)))),
        h("tbody", {}, modes.map(([m, v]) => h("tr", { class: v.match ? "ok" : "fail" }, h("td", {}, m), h("td", {}, v.match ? "✓" : "✗"),
          h("td", {}, v.reason), h("td", {}, v.detail || ""), h("td", {}, (v.notes || []).join("; ")))))),
      r.suite ? [h("h3", {}, `Test suite: ${r.suite.match ? "match" : "no match"} (${r.suite.judged} of ${r.suite.databases.length} databases judged)`),
        h("table", { id: "suite" }, h("thead", {}, h("tr", {}, ["database", "seed", "match", "reason", "detail"].map((x) => h("th", {}, x)))),
          h("tbody", {}, r.suite.databases.map((d) => h("tr", { class: d.match ? "ok" : "fail" }, h("td", {}, d.index), h("td", {}, d.seed ?? ""),
            h("td", {}, d.match ? "✓" : "✗"), h("td", {}, d.reason || ""), h("td", {}, d.detail || "")))))] : null,
      errors.length ? [h("h3", {}, "Errors"), h("dl", {}, errors.map(([k, e]) => [h("dt", {}, k), h("dd", {}, h("pre", {}, e))]))] : null,
      t.raw || t.reasoning ? [h("h3", {}, "Model answer"),
        t.reasoning ? [h("h4", {}, "reasoning"), h("pre", {}, t.reasoning)] : null,
        t.raw ? [h("h4", {}, "raw answer"), h("pre", { id: "raw" }, t.raw)] : null] : null,
      h("h3", {}, "Translation accounting"),
      h("pre", {}, JSON.stringify(Object.fromEntries(Object.entries(t).filter(([k]) => !["sql", "raw", "reasoning"].includes(k))), null, 2))];
    view.replaceChildren(...parts.flat(Infinity).filter((x) => x !== null && x !== undefined));
    window.scrollTo(0, 0);
  }

  function route() {
    const params = new URLSearchParams(location.hash.slice(1));
    const id = params.get("item");
    if (id !== null) { showItem(id); return; }
    document.getElementById("item-view").hidden = true;
    document.getElementById("overview").hidden = false;
    const keys = ["pair", "type", "difficulty", "tag", "feature", "reason", "strict", "status", "level", "tmin", "tmax", "q"];
    if (keys.some((k) => params.has(k))) {
      for (const k of keys) form.elements[k].value = params.get(k) || "";
      page = 0;
      lastList = location.hash;
      render();
      document.getElementById("items").scrollIntoView();
    } else render();
  }
  window.addEventListener("hashchange", route);
  route();
  document.body.dataset.ready = "true";
})().catch((e) => { console.error(e); document.getElementById("count").textContent = "could not load the items: " + e; });
