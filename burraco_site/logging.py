"""Log records as one line each, with a timestamp: an operator greps them, a collector splits them.

`OneLine` folds a traceback into the record's single line (the exception's type and message)
for the libraries that log a whole traceback on every passing Redis blip (channels_redis,
redis): the event is worth a line, not forty.
"""

from __future__ import annotations

import logging

FORMAT = "%(asctime)s %(levelname)s %(process)d %(name)s: %(message)s"


class OneLine(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            record.msg = f"{record.getMessage()} ({type(exc).__name__}: {exc})"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True
