"""`python -m env_servers NAME ...`: same as `lats serve env NAME ...`."""

from env_servers.cli import serve_env

if __name__ == "__main__":
    serve_env(prog_name="python -m env_servers")
