"""Deploying the services: images built with or without a registry, shared secrets.

`lats deploy ...` (cli.py) drives it; deploy/ holds the Dockerfile, the compose
file and the Kubernetes manifests that use what it builds.
"""
