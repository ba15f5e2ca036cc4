"""TextArena's single-player games as LATS environments (`lats serve env textarena`)."""
