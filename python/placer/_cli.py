"""The placer command, for what the module runs through it (simulate,
stats): PLACER_CLI, else `placer` on PATH."""
import os
import shutil


def command():
    cli = os.environ.get("PLACER_CLI") or shutil.which("placer")
    if not cli:
        raise FileNotFoundError("the placer command is not on PATH (or set PLACER_CLI)")
    return cli
