// Shared helpers of the run viewer's pages. Everything from the server is put
// on the page with textContent, never as HTML.
"use strict";

const Lats = {
  STATUS: {
    RUN_STATUS_RUNNING: "running", RUN_STATUS_SOLVED: "solved", RUN_STATUS_FAILED: "failed",
    RUN_STATUS_ERROR: "error", RUN_STATUS_INTERRUPTED: "interrupted",
    RUN_STATUS_CANCELLED: "cancelled",
    RUN_STATUS_UNSPECIFIED: "unspecified",
  },

  statusName(value) {
    return Lats.STATUS[value] || String(value || "unspecified").toLowerCase();
  },

  el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  },

  badge(status) {
    const name = Lats.statusName(status);
    return Lats.el("span", { class: `badge status-${name}`, text: name });
  },

  num(value) {
    const number = Number(value);
    return Number.isFinite(number) ? number : 0;
  },

  fixed(value, digits = 3) {
    return Lats.num(value).toFixed(digits);
  },

  short(text, width) {
    const flat = String(text || "").replace(/\s+/g, " ").trim();
    return flat.length <= width ? flat : flat.slice(0, width - 1) + "…";
  },

  rewardMode(value) {
    return String(value || "?").replace(/^REWARD_MODE_/, "").toLowerCase();
  },

  budget(config) {
    const parts = [`n=${Lats.num(config.n_samples)} k=${Lats.num(config.iterations)}`];
    const budget = config.budget || {};
    if (Lats.num(budget.max_calls)) parts.push(`≤${budget.max_calls} calls`);
    if (Lats.num(budget.max_total_tokens)) parts.push(`≤${budget.max_total_tokens} tok`);
    return parts.join(" ");
  },

  async getJSON(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    let body = null;
    try { body = await response.json(); } catch (error) { body = null; }
    if (!response.ok) {
      throw new Error((body && body.error) || `${response.status} ${response.statusText}`);
    }
    return body;
  },
};
