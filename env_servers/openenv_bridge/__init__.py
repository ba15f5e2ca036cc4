"""Any OpenEnv environment, searched by LATS: `lats serve env openenv --url URL`."""
