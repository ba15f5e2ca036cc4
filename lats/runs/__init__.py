"""Reading the planners' run store: `lats runs list | show | export` and the
views they share with the run viewer (`lats serve ui`)."""
