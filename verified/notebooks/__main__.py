"""``python -m verified.notebooks build|check``: the command line (see the package docstring)."""

from __future__ import annotations

import argparse
import os
import sys

from verified.notebooks import __doc__ as PACKAGE_DOC
from verified.notebooks.build import build, export
from verified.notebooks.check import check
from verified.notebooks.comments import TranslationError
from verified.notebooks.execute import NotebookFailed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m verified.notebooks", description=PACKAGE_DOC.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="generate and execute the notebooks (cached)")
    b.add_argument(
        "--device",
        choices=("cpu", "gpu", "auto"),
        default=os.environ.get("AUTOGRAD_DEVICE", "cpu"),
        help="device to execute on (default: $AUTOGRAD_DEVICE or cpu, the device the site's "
        "figures come from)",
    )
    b.add_argument("--force", action="store_true", help="execute even if cached")
    b.add_argument("--only", nargs="*", help="substrings of <lang>/<article>-<framework>")
    b.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="kernels at a time (default: $AUTOGRAD_NOTEBOOK_JOBS, else 2)",
    )
    sub.add_parser(
        "check",
        help="fail if a notebook (or a copy under notebooks/) does not match its page and "
        "snippets, or a snippet comment lacks a translation",
    )
    sub.add_parser(
        "export",
        help="write the copies committed under notebooks/<lang>/ (no outputs, links into the "
        "repository)",
    )
    args = parser.parse_args(argv)
    from mkdocs.exceptions import PluginError

    from verified.report import ReportError

    try:
        if args.command == "build":
            build(args.device, force=args.force, only=args.only, jobs=args.jobs)
        elif args.command == "export":
            export()
        else:
            problems = check()
            for problem in problems:
                print(problem)
            if problems:
                return 1
            print("notebooks are up to date")
    except (NotebookFailed, ReportError, PluginError, TranslationError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
