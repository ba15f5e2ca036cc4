"""`python -m env_servers.coderunner ...`: serve the code runner with its own flags."""

from env_servers.coderunner.cli import serve_coderunner

if __name__ == "__main__":
    serve_coderunner(prog_name="python -m env_servers.coderunner")
