// Click a header of any table.sortable to sort its rows (numbers numerically; "–" last).
"use strict";
function parrotSortKey(text) {
  const t = text.trim();
  const n = Number(t);
  return t === "" || t === "–" ? null : Number.isNaN(n) ? t.toLowerCase() : n;
}
function parrotCompare(a, b) {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === typeof b) return a < b ? -1 : 1;
  return typeof a === "number" ? -1 : 1;
}
document.querySelectorAll("table.sortable").forEach((table) => {
  table.querySelectorAll("thead th").forEach((th, col) => {
    th.tabIndex = 0;
    th.title = "sort";
    const sort = () => {
      const dir = th.dataset.dir === "asc" ? "desc" : "asc";
      table.querySelectorAll("thead th").forEach((h) => delete h.dataset.dir);
      th.dataset.dir = dir;
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      rows.sort((x, y) => {
        const c = parrotCompare(parrotSortKey(x.cells[col].textContent),
                                parrotSortKey(y.cells[col].textContent));
        return dir === "asc" ? c : -c;
      });
      rows.forEach((r) => body.appendChild(r));
    };
    th.addEventListener("click", sort);
    th.addEventListener("keydown", (e) => { if (e.key === "Enter") sort(); });
  });
});
