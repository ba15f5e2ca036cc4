"""`lats bench`: method comparisons at equal budgets, as one command.

This package is the command; the top-level bench/ is where measured figures
live (scripts that print them, and the records of `lats bench` runs).

A bench runs a slice of an environment's tasks with one or more method
variants (planner.methods, plus ablation switches) and budgets through the
planner, with bounded concurrency, storing each finished run at once:

  variants.py  what to run: method specs like "lats:lambda=1", jobs and their keys
  runner.py    runs jobs against the planner (bounded concurrency, retries when busy)
  records.py   a finished run as one flat record (what every table is made of)
  store.py     the SQLite store of records (resume skips what it holds) and JSONL export
  summary.py   the per-variant table (success, score metrics, cost, Table 10's nodes)
  plot.py      success vs k (the LATS paper's Figure 3)
  cli.py       the `lats bench` command
"""
