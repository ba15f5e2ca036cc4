"""A stored run as text for a terminal: its header, result and tree (rich renderables).

Each node shows its id, how many of the n samples proposed it, its action,
N and V with V's parts (the LM score and the second term, named as the run
used it), the reward of the step into it and markers: ★ on the reported
answer's path, ■ terminal, ✓ success, ✗ invalid action, ↺ a loop back to
an earlier node's state (prune_loops), ✎ a reflection made there. Observations follow on the next line, cut to one line unless
`full`.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from rich.tree import Tree

from lats_pb import planner_pb2 as pb
from lats_runtime.reward_modes import name_of
from lats_runtime.run_status import RunStatus, from_wire

from lats.run_inspection.views import NOT_EVALUATED, answer_path, value_formula

STATUS_STYLES = {RunStatus.SOLVED: "bold green", RunStatus.FAILED: "bold red",
                 RunStatus.ERROR: "bold red", RunStatus.RUNNING: "bold cyan",
                 RunStatus.INTERRUPTED: "bold yellow", RunStatus.CANCELLED: "yellow"}


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def header(run: pb.Run) -> Text:
    """The run's identity, settings and outcome, a few lines."""
    r, c = run.result, run.result.config
    status = from_wire(run.status)
    text = Text()
    text.append(f"run {run.run_id} ")
    text.append(status.upper(), style=STATUS_STYLES.get(status, "bold"))
    text.append(f"  {r.environment or '?'} task {run.task_id or r.task_id or '?'}  "
                f"method {r.method or c.method or 'lats'}  model {r.model or '?'}  "
                f"mode {name_of(r.reward_mode) or '?'}\n")
    text.append(f"created {run.created_at}  planner {run.owner or '?'}\n")
    text.append(f"config n={c.n_samples} k={c.iterations} d={c.max_depth} "
                f"w={c.exploration_weight:g} λ={c.value_weight:g}  ({value_formula(run)})\n")
    if status is not RunStatus.RUNNING:
        u = r.usage
        text.append(f"result {r.error or r.stop_reason or '-'}; {r.iterations} iterations, "
                    f"{r.nodes} nodes, {u.calls} model calls, "
                    f"{u.prompt_tokens + u.completion_tokens} tokens, {r.wall_seconds:.1f}s\n")
    if r.scored:
        text.append(f"score (hidden ground truth) {r.score.score:g} "
                    f"success={r.score.success} {_one_line(r.score.details, 100)}\n")
    return text


def _node_label(node: pb.Node, run: pb.Run, on_path: bool, reflected: bool,
                full: bool, width: int) -> Text:
    label = Text()
    if on_path:
        label.append("★ ", style="bold yellow")
    label.append(node.id, style="bold")
    if node.sample_count:
        label.append(f" ×{node.sample_count}")
    if node.repeats:
        label.append(f" +{node.repeats} repeat{'s' if node.repeats > 1 else ''}")
    if node.id == run.result.greedy_node_id:
        label.append(" (greedy)")
    if node.action:
        action = node.action.strip() if full else _one_line(node.action, width)
        label.append(f" {action!r}" if not full else f" {action}", style="cyan")
    stats = f"  N={node.visits} V={node.value:.3f}"
    if node.lm_score != NOT_EVALUATED:
        stats += f" LM={node.lm_score:.2f}"
    if run.result.second_term == "reward":
        stats += f" reward={node.reward:g} (SC={node.sc_score:.2f}, unused)"
    else:
        stats += f" SC={node.sc_score:.2f}"
        if node.depth:
            stats += f" r={node.reward:g}"
    label.append(stats, style="dim" if not on_path else "")
    if node.terminal:
        label.append(" ■ terminal", style="magenta")
    if node.terminal and run.result.answer_node_id == node.id and \
            from_wire(run.status) is RunStatus.SOLVED:
        label.append(" ✓", style="bold green")
    if node.invalid_action:
        label.append(" ✗ invalid", style="red")
    if node.returns_to:
        label.append(f" ↺ back to {node.returns_to}", style="red")
    if reflected:
        label.append(" ✎", style="yellow")
    if node.observation and node.depth:
        observation = node.observation.strip() if full else _one_line(node.observation, width)
        label.append(f"\n→ {observation}", style="italic")
    return label


def render(run: pb.Run, *, max_depth: int | None = None, full: bool = False,
           width: int = 90) -> Group:
    """The run's header, tree and reflections."""
    children: dict[str, list[pb.Node]] = {}
    root = None
    for node in run.nodes:
        if node.parent_id:
            children.setdefault(node.parent_id, []).append(node)
        elif root is None:
            root = node
    path = set(answer_path(run))
    reflected = {note.node_id for note in run.reflection_notes}
    parts: list = [header(run)]
    task = root.observation if root is not None else ""
    if task:
        parts.append(Text(f"task: {task.strip() if full else _one_line(task, 200)}"))
    if run.setup:
        parts.append(Text(f"setup: {run.setup.strip() if full else _one_line(run.setup, 200)}"))
    if root is None:
        parts.append(Text("(no tree yet)", style="dim"))
    else:
        tree = Tree(_node_label(root, run, root.id in path, root.id in reflected, full, width))
        stack = [(root, tree)]
        while stack:
            node, branch = stack.pop()
            if max_depth is not None and node.depth >= max_depth:
                hidden = len(children.get(node.id, []))
                if hidden:
                    branch.add(Text(f"… {hidden} children below depth {max_depth}",
                                    style="dim"))
                continue
            for child in children.get(node.id, []):
                sub = branch.add(_node_label(child, run, child.id in path,
                                             child.id in reflected, full, width))
                stack.append((child, sub))
        parts.append(tree)
    notes = list(run.reflection_notes) or [pb.ReflectionNote(text=t) for t in run.reflections]
    if notes:
        parts.append(Text("reflections:", style="bold"))
        for note in notes:
            where = f"on {note.node_id}: " if note.node_id else ""
            parts.append(Text(f"  {where}{note.text.strip() if full else _one_line(note.text, 160)}"))
    return Group(*parts)
