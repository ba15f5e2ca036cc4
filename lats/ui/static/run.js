// One run's page: the stored record, then (while it runs) the live events the
// planner streams, applied to the same model the record filled.
"use strict";

(function () {
  const runId = new URLSearchParams(location.search).get("id") || "";
  const $ = (id) => document.getElementById(id);
  const tree = new TreeView($("tree"), { onSelect: showNode });
  let run = null;                 // the Run as JSON (result, config, reflections ...)
  let notes = [];                 // {node_id, text}
  let lastSeq = 0;
  let source = null;
  let iteration = 0;

  function set(id, value) { $(id).textContent = value === undefined || value === null ? "" : String(value); }

  function secondTerm() {
    const r = (run && run.result) || {};
    return r.second_term || "sc";
  }

  function showSummary() {
    const r = run.result || {};
    const c = r.config || {};
    const usage = r.usage || {};
    const status = Lats.statusName(run.status);
    set("run-id", run.run_id);
    $("run-status").replaceChildren(Lats.badge(run.status));
    document.title = `LATS run ${run.run_id.slice(0, 12)} · ${status}`;
    set("s-environment", r.environment || "?");
    set("s-task", run.task_id || r.task_id || "?");
    set("s-method", r.method || c.method || "lats");
    set("s-model", r.model || (status === "running" ? "(known after the first call)" : "?"));
    set("s-mode", Lats.rewardMode(r.reward_mode));
    set("s-config", `n=${Lats.num(c.n_samples)} k=${Lats.num(c.iterations)} ` +
        `d=${Lats.num(c.max_depth)} w=${Lats.num(c.exploration_weight)} ` +
        `λ=${Lats.num(c.value_weight)} seed=${Lats.num(c.seed)}` +
        (c.budget && Lats.num(c.budget.max_calls) ? ` budget ${c.budget.max_calls} calls` : ""));
    const lambda = Lats.num(c.value_weight);
    const term = secondTerm() === "reward" ? "reward" : "SC";
    set("s-value", `V = ${lambda}·LM + ${+(1 - lambda).toFixed(3)}·${term} at evaluation, ` +
        "then the running mean of backpropagated rewards");
    set("s-created", (run.created_at || "").replace("T", " "));
    if (status === "running") {
      set("s-outcome", "running");
      set("s-search", `${tree.nodes.size} nodes so far`);
      set("s-cost", "");
    } else {
      const reason = r.error || r.stop_reason || "";
      set("s-outcome", reason ? `${status}: ${reason}` : status);
      set("s-search", `${Lats.num(r.iterations)} iterations, ${Lats.num(r.nodes_expanded)} ` +
          `expansions, ${Lats.num(r.nodes)} nodes`);
      set("s-cost", `${Lats.num(usage.calls)} model calls, ${Lats.num(usage.prompt_tokens)} ` +
          `prompt + ${Lats.num(usage.completion_tokens)} completion tokens, ` +
          `${Lats.fixed(r.wall_seconds, 1)}s wall (${Lats.fixed(r.model_seconds, 1)}s model)`);
    }
    if (r.scored) {
      const score = r.score || {};
      set("s-score", `${Lats.num(score.score)} (success ${score.success ? "yes" : "no"}) ` +
          (score.details || ""));
    } else {
      set("s-score", status === "running" ? "after the search" : "not scored");
    }
    const actions = r.actions || [];
    set("s-answer", r.answer_node_id
      ? `node ${r.answer_node_id}: ${actions.length} step(s)` : (actions.length ? `${actions.length} step(s)` : "–"));
    $("final-box").hidden = !r.final_observation;
    set("final-text", r.final_observation || "");
    $("live").hidden = !(source && status === "running");
    set("progress", status === "running" && iteration ? `iteration ${iteration} of ${Lats.num(c.iterations)}` : "");
  }

  function showTexts() {
    const root = tree.root();
    set("task-text", root ? root.observation : (run.task || ""));
    $("setup-box").hidden = !run.setup;
    set("setup-text", run.setup || "");
    const list = $("reflections");
    list.replaceChildren();
    const shown = notes.length ? notes : (run.reflections || []).map((text) => ({ node_id: "", text }));
    for (const note of shown) {
      const item = Lats.el("li", {});
      if (note.node_id) {
        const link = Lats.el("a", { href: "#", class: "node-link" }, `on ${note.node_id}`);
        link.addEventListener("click", (event) => { event.preventDefault(); tree.select(note.node_id, true); });
        item.append(link, ": ");
      }
      item.append(note.text);
      list.append(item);
    }
    $("reflections-box").hidden = shown.length === 0;
    tree.reflected = new Set(notes.map((note) => note.node_id));
  }

  function answerPath() {
    const path = new Set();
    let id = run.result && run.result.answer_node_id;
    while (id && tree.nodes.has(id) && !path.has(id)) {
      path.add(id);
      id = tree.nodes.get(id).parent_id;
    }
    tree.answerPath = path;
    const solved = Lats.statusName(run.status) === "solved";
    tree.successId = solved && run.result ? run.result.answer_node_id : null;
  }

  function refresh() {
    answerPath();
    showSummary();
    showTexts();
    tree.schedule();
    if (tree.selected && tree.nodes.has(tree.selected)) showNode(tree.nodes.get(tree.selected));
  }

  function applySnapshot(snapshot) {
    run = snapshot;
    notes = (snapshot.reflection_notes || []).slice();
    lastSeq = Lats.num(snapshot.last_seq);
    tree.setNodes(snapshot.nodes || []);
    refresh();
  }

  function applyEvent(event) {
    const seq = Lats.num(event.seq);
    if (seq && seq <= lastSeq) return;          // already in the snapshot
    lastSeq = seq || lastSeq;
    if (event.setup_started) {
      set("progress", `the model writes the task's ${event.setup_started.option} first …`);
      return;
    } else if (event.setup_finished) {
      run.setup = event.setup_finished.text;
    } else if (event.started) {
      run.task_id = event.started.task_id;
      if (!tree.nodes.has("0")) {
        tree.upsert({ id: "0", parent_id: "", depth: 0, action: "", observation: event.started.task,
                      visits: 1, value: 0, lm_score: -1, sc_score: 0, terminal: false, invalid_action: false });
      }
    } else if (event.iteration) {
      iteration = Lats.num(event.iteration.iteration);
    } else if (event.selected) {
      tree.expanding = event.selected.node_id;
    } else if (event.node_added || event.node_evaluated || event.terminal) {
      tree.upsert(event.node_added || event.node_evaluated || event.terminal);
    } else if (event.backpropagated) {
      for (const node of event.backpropagated.path || []) tree.upsert(node);
    } else if (event.reflection) {
      notes.push({ node_id: event.reflection.node_id, text: event.reflection.text });
    } else if (event.finished) {
      run.result = event.finished;
      run.status = event.finished.status;
      tree.expanding = null;
    }
    refresh();
  }

  function showNode(node) {
    $("details-hint").hidden = true;
    $("node-details").hidden = false;
    set("detail-id", node.id);
    const flags = [];
    if (tree.answerPath.has(node.id)) flags.push("★ answer path");
    if (node.terminal) flags.push(node.id === tree.successId ? "✓ solved terminal" : "■ terminal");
    if (node.invalid_action) flags.push("✗ invalid action");
    if (node.id === tree.expanding) flags.push("being expanded");
    if (node.id === ((run.result || {}).greedy_node_id || "")) flags.push("greedy first attempt");
    const repeats = Lats.num(node.repeats);
    if (repeats) flags.push(`${repeats} later sample${repeats > 1 ? "s" : ""} gave the same answer`);
    if (node.answer_key) flags.push(`answer ${node.answer_key.slice(0, 12)}`);
    set("detail-flags", flags.join(" · "));
    set("detail-depth", Lats.num(node.depth));
    set("detail-visits", Lats.num(node.visits));
    set("detail-value", Lats.fixed(node.value));
    const lm = Lats.num(node.lm_score);
    set("detail-lm", lm < 0 ? "not evaluated by the model" : Lats.fixed(lm));
    const samples = Lats.num(node.sample_count);
    const n = Lats.num(((run.result || {}).config || {}).n_samples);
    const sc = `${Lats.fixed(node.sc_score)}` + (samples ? ` (${samples} of ${n || "n"} samples)` : "");
    if (secondTerm() === "reward") {
      set("detail-second-label", "reward term (in V)");
      set("detail-second", `${Lats.num(node.reward)} (the step's reward; V uses it scaled to [0, 1], e.g. the share of visible tests passed)`);
      set("detail-other-label", "self-consistency (not in V)");
      set("detail-other", sc);
    } else {
      set("detail-second-label", "self-consistency SC (in V)");
      set("detail-second", sc);
      set("detail-other-label", "");
      set("detail-other", "");
    }
    set("detail-reward", Lats.num(node.reward));
    set("detail-action", node.parent_id ? node.action : "(the root: the task's first observation)");
    set("detail-observation", node.observation);
    const reflections = notes.filter((note) => note.node_id === node.id).map((note) => note.text);
    if (node.reflection && !reflections.includes(node.reflection)) reflections.push(node.reflection);
    $("detail-reflection-box").hidden = reflections.length === 0;
    set("detail-reflection", reflections.join("\n\n"));
    $("detail-toggle").hidden = !tree.children().has(node.id);
    set("detail-toggle", tree.collapsed.has(node.id) ? "expand subtree" : "collapse subtree");
  }

  function follow() {
    source = new EventSource(`/api/events?id=${encodeURIComponent(runId)}`);
    source.addEventListener("snapshot", (message) => applySnapshot(JSON.parse(message.data)));
    source.addEventListener("search", (message) => applyEvent(JSON.parse(message.data)));
    source.addEventListener("end", () => {
      source.close();
      source = null;
      showSummary();
      document.body.dataset.live = "ended";
    });
    source.addEventListener("open", () => { document.body.dataset.live = "open"; showSummary(); });
  }

  // --- the toolbar ------------------------------------------------------------
  let matchIndex = -1;
  function runSearch() {
    const count = tree.search($("search").value);
    matchIndex = -1;
    set("search-count", $("search").value.trim() ? `${count} match${count === 1 ? "" : "es"}` : "");
  }
  function step(delta) {
    if (!tree.matches.length) return;
    matchIndex = (matchIndex + delta + tree.matches.length) % tree.matches.length;
    set("search-count", `${matchIndex + 1} / ${tree.matches.length}`);
    tree.select(tree.matches[matchIndex], true);
  }
  let searchTimer = null;
  $("search").addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(runSearch, 150); });
  $("search").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      clearTimeout(searchTimer);
      runSearch();
      step(event.shiftKey ? -1 : 1);
    }
  });
  $("search-next").addEventListener("click", () => step(1));
  $("search-prev").addEventListener("click", () => step(-1));
  $("fit").addEventListener("click", () => { tree.userMoved = false; tree.fit(); });
  $("zoom-in").addEventListener("click", () => tree.zoomBy(1.4));
  $("zoom-out").addEventListener("click", () => tree.zoomBy(1 / 1.4));
  $("expand-all").addEventListener("click", () => { $("collapse-depth").value = ""; tree.expandAll(); });
  $("collapse-depth").addEventListener("change", (event) => {
    if (event.target.value) tree.collapseBelow(Number(event.target.value)); else tree.expandAll();
  });
  $("detail-toggle").addEventListener("click", () => {
    if (tree.selected) { tree.toggle(tree.selected); showNode(tree.nodes.get(tree.selected)); }
  });

  async function start() {
    if (!runId) {
      $("run-error").textContent = "no run given: open a run from the list";
      $("run-error").hidden = false;
      return;
    }
    // A run opened from a link printed before its search began appears shortly.
    for (let attempt = 0; ; attempt += 1) {
      try {
        applySnapshot(await Lats.getJSON(`/api/run?id=${encodeURIComponent(runId)}`));
        $("run-error").hidden = true;
        break;
      } catch (error) {
        const waiting = error.message.startsWith("no run") && attempt < 120;
        $("run-error").textContent = waiting
          ? `waiting for run ${runId} to start …` : `could not load run ${runId}: ${error.message}`;
        $("run-error").hidden = false;
        if (!waiting) return;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    if (tree.nodes.size > 300) {          // a large tree opens folded below the answer's depth
      $("collapse-depth").value = "3";
      tree.collapseBelow(3);
      for (const id of tree.answerPath) tree.collapsed.delete(id);
    }
    document.body.dataset.loaded = "true";
    if (Lats.statusName(run.status) === "running") follow();
  }
  start();
})();
