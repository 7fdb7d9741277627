"""Entry script of the standalone program: the same ``blockyard`` command as the
installed package (``blockyard.cli:main``)."""

from blockyard.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
