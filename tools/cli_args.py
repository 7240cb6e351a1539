"""The argument parser of tilec's command lines (`tilec`, `tilec show-layout`)."""

from __future__ import annotations

import argparse

from tilec.support.diagnostics import TilecError


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a bad command line is a TilecError (one line, exit status 1)."""

    def error(self, message: str):
        raise TilecError(f"{message} (see `{self.prog} -h`)")
