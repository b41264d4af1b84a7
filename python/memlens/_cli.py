"""The `memlens` command of the Python package: the C program's command line
(ml_cli_main), run in this process on its stdout and stderr; the same
options, output and exit status as build/memlens."""
import sys

from . import _memlens


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    rc = _memlens.main(args)
    raise SystemExit(rc)


if __name__ == "__main__":
    main()
