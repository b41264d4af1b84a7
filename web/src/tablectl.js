// tablectl.js — the tables' controls beyond filter and sort: a sort that
// cycles ascending / descending / none (the rows' own order: allocation order,
// the operators as listed), the page size and a jump to a page.

export const PAGE_SIZES = [50, 100, 200, 500];

// The query's sort after a click on column `key` whose first direction is `first` (1 or -1).
export function nextSort(q, key, first) {
  if (q.sort !== key) return { sort: key, dir: first };
  if (q.dir === first) return { sort: key, dir: -first };
  return { sort: null, dir: 1 };
}

// Adds the page size and jump controls to the pager (once).
export function mountPager(app) {
  const pager = document.querySelector("#p-tables .pager");
  if (!pager || document.getElementById("pg-size")) return;
  const span = document.createElement("span");
  span.className = "pg-extra";
  span.innerHTML = `<label class="sel">rows per page <select id="pg-size">${PAGE_SIZES.map((n) => `<option${n === 100 ? " selected" : ""}>${n}</option>`).join("")}</select></label>` +
    ' <label class="sel">go to page <input id="pg-jump" type="number" min="1" step="1" size="5" style="width:5em"></label>';
  pager.appendChild(span);
  const tables = app.tables;
  document.getElementById("pg-size").addEventListener("change", (e) => {
    const n = +e.target.value;
    tables.q.pageSize = n; tables.ops.pageSize = n;
    tables.q.page = 0; tables.ops.page = 0;
    tables.render();
  });
  const jump = document.getElementById("pg-jump");
  const go = () => {
    const p = Math.round(+jump.value);
    if (!Number.isFinite(p) || p < 1) return;
    const q = tables.tab === "ops" ? tables.ops : tables.q;
    q.page = Math.min(p, tables.pages || 1) - 1;
    tables.render();
  };
  // Ascend: MindStudio Insight's columns (active release, active duration, totals), on request:
  // eight more columns make the table scroll sideways
  const bar = document.querySelector("#p-tables .alloc-only");
  if (bar && !document.getElementById("f-insight")) {
    const lab = document.createElement("label");
    lab.id = "lab-insight"; lab.hidden = true;
    lab.title = "MindStudio Insight's columns: active release time, active duration, the allocator's totals at allocation and release";
    lab.innerHTML = '<input id="f-insight" type="checkbox"> Insight\'s columns';
    bar.appendChild(lab);
    lab.querySelector("input").addEventListener("change", (e) => { tables.insight = e.target.checked; tables.render(); });
  }
  jump.addEventListener("change", go);
  jump.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
}
