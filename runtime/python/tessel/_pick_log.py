"""What the dispatcher logs about its picks, for tests.

`logged_picks(call)` runs `call()` with TESSEL_LOG_TUNED_CONFIG on and
returns what the runtime wrote to stderr meanwhile: one
``tessel: OP ... -> CODE_OBJECT (knobs) rule=...`` line per launch. The
runtime writes through file descriptor 2, so the descriptor itself is
redirected (capsys cannot see it).
"""
import os
import sys
import tempfile

import tessel


def logged_picks(call, sync=None):
    """Runs call() (then sync(), e.g. a device synchronize, while the log is
    still captured) and returns the runtime's log of it as text."""
    tessel.config_set("TESSEL_LOG_TUNED_CONFIG", "1")
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+") as f:
        os.dup2(f.fileno(), 2)
        try:
            call()
            if sync:
                sync()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tessel.config_set("TESSEL_LOG_TUNED_CONFIG", "0")
        f.seek(0)
        return f.read()
