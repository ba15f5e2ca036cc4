// The search tree drawn with D3: d3.tree lays it out (depth left to right),
// d3.zoom pans and zooms; subtrees collapse, and a text search marks matches.
"use strict";

class TreeView {
  constructor(svg, { onSelect }) {
    this.svg = d3.select(svg);
    this.onSelect = onSelect;
    this.nodes = new Map();          // id -> node (planner.proto Node as JSON)
    this.collapsed = new Set();
    this.matches = [];
    this.matchSet = new Set();
    this.selected = null;
    this.answerPath = new Set();
    this.reflected = new Set();
    this.expanding = null;
    this.successId = null;
    this.pending = false;
    this.userMoved = false;         // until the user pans or zooms, the view keeps fitting
    this.canvas = this.svg.append("g").attr("class", "canvas");
    this.linkLayer = this.canvas.append("g").attr("class", "links");
    this.nodeLayer = this.canvas.append("g").attr("class", "nodes");
    this.zoom = d3.zoom().scaleExtent([0.05, 4])
      .on("zoom", (event) => {
        if (event.sourceEvent) this.userMoved = true;
        this.canvas.attr("transform", event.transform);
      });
    this.svg.call(this.zoom).on("dblclick.zoom", null);
    this.color = d3.scaleSequential(d3.interpolateRdYlGn).domain([0, 1]);
  }

  static order(a, b) {
    const left = a.id.split(".").map(Number);
    const right = b.id.split(".").map(Number);
    for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
      if (left[i] !== right[i]) return (left[i] || 0) - (right[i] || 0);
    }
    return left.length - right.length;
  }

  setNodes(list) {
    this.nodes = new Map(list.map((node) => [node.id, node]));
    this.schedule();
  }

  upsert(node) {
    const known = this.nodes.get(node.id);
    this.nodes.set(node.id, known ? Object.assign(known, node) : node);
    this.schedule();
  }

  children() {
    const byParent = new Map();
    for (const node of this.nodes.values()) {
      if (!node.parent_id) continue;
      if (!byParent.has(node.parent_id)) byParent.set(node.parent_id, []);
      byParent.get(node.parent_id).push(node);
    }
    for (const list of byParent.values()) list.sort(TreeView.order);
    return byParent;
  }

  root() {
    for (const node of this.nodes.values()) if (!node.parent_id) return node;
    return null;
  }

  ancestors(id) {
    const chain = [];
    let node = this.nodes.get(id);
    while (node && node.parent_id && !chain.includes(node.parent_id)) {
      chain.push(node.parent_id);
      node = this.nodes.get(node.parent_id);
    }
    return chain;
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.render(); });
  }

  toggle(id) {
    if (this.collapsed.has(id)) this.collapsed.delete(id); else this.collapsed.add(id);
    this.schedule();
  }

  expandAll() { this.collapsed.clear(); this.schedule(); }

  collapseBelow(depth) {
    this.collapsed.clear();
    const byParent = this.children();
    for (const node of this.nodes.values()) {
      if (Lats.num(node.depth) >= depth && byParent.has(node.id)) this.collapsed.add(node.id);
    }
    this.schedule();
  }

  reveal(id) {
    for (const ancestor of this.ancestors(id)) this.collapsed.delete(ancestor);
  }

  search(text) {
    const needle = text.trim().toLowerCase();
    this.matches = [];
    if (needle) {
      for (const node of [...this.nodes.values()].sort(TreeView.order)) {
        const haystack = `${node.id}\n${node.action}\n${node.observation}\n${node.reflection || ""}`;
        if (haystack.toLowerCase().includes(needle)) this.matches.push(node.id);
      }
      this.matches.forEach((id) => this.reveal(id));
    }
    this.matchSet = new Set(this.matches);
    this.schedule();
    return this.matches.length;
  }

  select(id, center) {
    if (!this.nodes.has(id)) return;
    this.selected = id;
    this.reveal(id);
    this.render();
    if (center) { this.userMoved = true; this.center(id); }
    this.onSelect(this.nodes.get(id));
  }

  center(id) {
    const placed = this.placed && this.placed.get(id);
    if (!placed) return;
    const box = this.svg.node().getBoundingClientRect();
    const scale = d3.zoomTransform(this.svg.node()).k;
    const transform = d3.zoomIdentity.translate(box.width / 2 - placed.y * scale,
                                                box.height / 2 - placed.x * scale).scale(scale);
    this.svg.transition().duration(300).call(this.zoom.transform, transform);
  }

  fit() {
    const bounds = this.canvas.node().getBBox();
    const box = this.svg.node().getBoundingClientRect();
    if (!bounds.width || !bounds.height || !box.width) return;
    const scale = Math.min(1.3, 0.92 * Math.min(box.width / bounds.width, box.height / bounds.height));
    const transform = d3.zoomIdentity
      .translate(box.width / 2 - scale * (bounds.x + bounds.width / 2),
                 box.height / 2 - scale * (bounds.y + bounds.height / 2)).scale(scale);
    this.svg.call(this.zoom.transform, transform);
  }

  zoomBy(factor) {
    this.userMoved = true;
    this.svg.transition().duration(200).call(this.zoom.scaleBy, factor);
  }

  label(node) {
    return `${node.id}  N=${Lats.num(node.visits)} V=${Lats.fixed(node.value)}`;
  }

  render() {
    const top = this.root();
    if (!top) {
      this.linkLayer.selectAll("*").remove();
      this.nodeLayer.selectAll("*").remove();
      return;
    }
    const byParent = this.children();
    const hierarchy = d3.hierarchy(top, (node) =>
      this.collapsed.has(node.id) ? null : byParent.get(node.id));
    d3.tree().nodeSize([34, 250]).separation((a, b) => (a.parent === b.parent ? 1 : 1.3))(hierarchy);
    this.placed = new Map(hierarchy.descendants().map((d) => [d.data.id, d]));

    const linkShape = d3.linkHorizontal().x((d) => d.y).y((d) => d.x);
    this.linkLayer.selectAll("path.link")
      .data(hierarchy.links(), (link) => link.target.data.id)
      .join("path")
      .attr("class", (link) => `link${this.answerPath.has(link.target.data.id) ? " on-path" : ""}`)
      .attr("d", linkShape);

    const groups = this.nodeLayer.selectAll("g.node")
      .data(hierarchy.descendants(), (d) => d.data.id)
      .join((enter) => {
        const g = enter.append("g").attr("class", "node");
        g.append("circle").attr("class", "halo").attr("r", 12);
        g.append("path").attr("class", "mark");
        g.append("text").attr("class", "label").attr("x", 12).attr("dy", "-0.15em");
        g.append("text").attr("class", "action").attr("x", 12).attr("dy", "1.05em");
        g.append("text").attr("class", "toggle").attr("x", -12).attr("dy", "0.35em")
          .attr("text-anchor", "end");
        g.append("text").attr("class", "note").attr("dy", "-0.8em").attr("x", -4);
        g.on("click", (event, d) => {
          if (event.target.classList.contains("toggle")) this.toggle(d.data.id);
          else this.select(d.data.id, false);
        });
        return g;
      });

    groups
      .attr("transform", (d) => `translate(${d.y},${d.x})`)
      .attr("data-id", (d) => d.data.id)
      .attr("data-visits", (d) => Lats.num(d.data.visits))
      .attr("data-value", (d) => Lats.num(d.data.value))
      .classed("terminal", (d) => !!d.data.terminal)
      .classed("invalid", (d) => !!d.data.invalid_action)
      .classed("on-path", (d) => this.answerPath.has(d.data.id))
      .classed("success", (d) => d.data.id === this.successId)
      .classed("selected", (d) => d.data.id === this.selected)
      .classed("match", (d) => this.matchSet.has(d.data.id))
      .classed("expanding", (d) => d.data.id === this.expanding);

    groups.select("path.mark")
      .attr("d", (d) => (d.data.terminal
        ? d3.symbol(d3.symbolSquare, 150)() : d3.symbol(d3.symbolCircle, 120)()))
      .attr("fill", (d) => {
        if (d.data.invalid_action) return "#bbb";
        if (!Lats.num(d.data.visits) && d.data.parent_id) return "#eef0f3";   // not evaluated yet
        return this.color(Lats.num(d.data.value));
      });
    groups.select("text.label").text((d) => this.label(d.data));
    groups.select("text.action").text((d) => {
      if (!d.data.parent_id) return "root";
      const flags = [];
      if (d.data.invalid_action) flags.push("✗ invalid");
      if (d.data.terminal) flags.push(d.data.id === this.successId ? "✓ solved" : "■ terminal");
      const text = Lats.short(d.data.action, 34);
      return flags.length ? `${flags.join(" ")} · ${text}` : text;
    });
    groups.select("text.toggle").text((d) => {
      const hidden = byParent.get(d.data.id);
      if (!hidden) return "";
      return this.collapsed.has(d.data.id) ? `+${hidden.length}` : "−";
    });
    groups.select("text.note").text((d) =>
      (this.reflected.has(d.data.id) || d.data.reflection ? "✎" : ""));

    if (!this.userMoved && this.nodes.size) this.fit();
    this.svg.attr("data-rendered", this.placed.size);
  }
}

window.TreeView = TreeView;
