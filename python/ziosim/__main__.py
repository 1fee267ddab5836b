"""`python -m ziosim` is the `ziosim` command."""

from .cli import main

main()
