"""What a deployment is built from: service images (with or without a registry)
and shared secrets.

`lats deploy ...` (cli.py) drives it; the top-level deploy/ holds the
Dockerfile, the compose file and the Kubernetes manifests that use what it
builds.
"""
