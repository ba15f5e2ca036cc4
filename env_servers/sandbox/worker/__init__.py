"""The warm worker that runs inside one sandbox, as modules of one job each (standard library only, Python >= 3.9).

They ship into the sandbox as one script (worker_script.py joins them, with the
codec, the IPC objects and the pristine checks, in the order it lists), so none of them is
imported there; on the host they import each other as usual. main.py is the
entry point and tells how the worker serves runs.
"""
