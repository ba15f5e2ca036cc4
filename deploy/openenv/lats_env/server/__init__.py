"""The server of this OpenEnv environment directory (server.app)."""
