// The runs page: filters (kept in the address bar), the table, paging and refresh.
"use strict";

(function () {
  const PAGE = 100;
  const form = document.getElementById("filters");
  const body = document.getElementById("runs-body");
  const more = document.getElementById("more");
  const empty = document.getElementById("empty");
  const errorBox = document.getElementById("list-error");
  const autoRefresh = document.getElementById("auto-refresh");
  const FIELDS = ["environment", "method", "status", "model", "task"];
  let offset = 0;
  let anyRunning = false;

  function filters() {
    const params = new URLSearchParams();
    for (const name of FIELDS) {
      const value = form.elements[name].value.trim();
      if (value) params.set(name, value);
    }
    return params;
  }

  function restoreFilters() {
    const params = new URLSearchParams(location.search);
    for (const name of FIELDS) {
      const value = params.get(name) || "";
      const field = form.elements[name];
      if (field.tagName === "SELECT" && value &&
          ![...field.options].some((option) => option.value === value)) {
        field.append(Lats.el("option", { value }, value));
      }
      field.value = value;
    }
  }

  function row(run) {
    const r = run.result || {};
    const config = r.config || {};
    const usage = r.usage || {};
    const status = Lats.statusName(run.status);
    const finished = status !== "running";
    const link = Lats.el("a", { href: `/run?id=${encodeURIComponent(run.run_id)}`, class: "run-link" },
                         run.run_id.length > 12 ? run.run_id.slice(0, 12) + "…" : run.run_id);
    link.title = run.run_id;
    const cells = [
      link, (run.created_at || "").replace("T", " ").slice(0, 19), Lats.badge(run.status),
      r.environment || "", run.task_id || r.task_id || "", r.method || config.method || "lats",
      r.model || "–", Lats.budget(config),
      finished ? Lats.num(r.iterations) : "…", finished ? Lats.num(r.nodes) : "…",
      r.scored ? Lats.num((r.score || {}).score) : "–",
      finished ? Lats.num(usage.calls) : "…",
      finished ? Lats.num(usage.prompt_tokens) + Lats.num(usage.completion_tokens) : "…",
      finished ? Lats.fixed(r.wall_seconds, 1) : "…",
    ];
    const tr = Lats.el("tr", { "data-run-id": run.run_id, "data-status": status });
    cells.forEach((cell, index) => tr.append(Lats.el("td", index >= 8 ? { class: "num" } : {}, cell)));
    return tr;
  }

  async function load(append) {
    const params = filters();
    params.set("limit", PAGE);
    params.set("offset", append ? offset : 0);
    try {
      const page = await Lats.getJSON(`/api/runs?${params}`);
      errorBox.hidden = true;
      if (!append) { body.replaceChildren(); offset = 0; }
      for (const run of page.runs) body.append(row(run));
      offset += page.runs.length;
      more.hidden = !page.more;
      empty.hidden = body.children.length > 0;
      anyRunning = [...body.children].some((tr) => tr.dataset.status === "running");
      document.body.dataset.loaded = "true";
    } catch (error) {
      errorBox.textContent = `could not list runs: ${error.message}`;
      errorBox.hidden = false;
    }
  }

  async function loadFacets() {
    try {
      const facets = await Lats.getJSON("/api/facets");
      for (const name of ["environment", "method", "model"]) {
        const select = form.elements[name];
        const current = select.value;
        for (const value of facets[name] || []) {
          if (![...select.options].some((option) => option.value === value)) {
            select.append(Lats.el("option", { value }, value));
          }
        }
        select.value = current;
      }
    } catch (error) { /* the filters still work as typed */ }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const params = filters();
    history.replaceState(null, "", params.toString() ? `?${params}` : location.pathname);
    load(false);
  });
  form.addEventListener("change", () => form.requestSubmit());
  document.getElementById("f-clear").addEventListener("click", () => {
    form.reset();
    form.requestSubmit();
  });
  more.addEventListener("click", () => load(true));
  setInterval(() => {
    if (autoRefresh.checked && anyRunning && offset <= PAGE) load(false);
  }, 5000);

  restoreFilters();
  loadFacets().then(() => { restoreFilters(); load(false); });
})();
