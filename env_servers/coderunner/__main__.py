"""`python -m env_servers.coderunner ...`: same as `lats serve env coderunner ...`."""

from env_servers.cli import domain_command

if __name__ == "__main__":
    domain_command("coderunner").main(prog_name="python -m env_servers.coderunner")
