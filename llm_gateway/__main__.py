"""`python -m llm_gateway` is `lats serve gateway`."""

import logging
import os

from llm_gateway.cli import serve_gateway

logging.basicConfig(
    level=os.environ.get("LATS_LOG_LEVEL", "INFO").upper(),
    format="%(asctime)s %(levelname)s %(name)s: %(message)s",
)
serve_gateway(prog_name="lats serve gateway")
