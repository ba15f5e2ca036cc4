"""The runtime every LATS service stands on: server bootstrap, addresses, logging.

This package sits at the ground floor with the generated protocol code: the
planner, the gateway and the environment servers import it, and it imports
none of them (nor the `lats` command above them).
"""
