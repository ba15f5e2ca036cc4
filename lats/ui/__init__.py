"""The run viewer: a web page over the planners' run store (`lats serve ui`).

It lists runs with filters and draws one run's search tree; a run in progress
updates live from the same SearchEvents `lats solve` streams, which the viewer
gets from the planner executing the run (WatchRun at the record's
`owner_address`), falling back to the record the planner stores every
heartbeat. The viewer keeps no state, so any number of replicas may serve it.
"""
