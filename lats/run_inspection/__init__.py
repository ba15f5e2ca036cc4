"""Inspecting stored runs from a terminal: `lats runs list | show | export`
(a table, a text tree, JSON or training data), read from the planners' run
store (planner.runs) or asked of a planner, and the views it shares with the
run viewer (`lats serve ui`)."""
