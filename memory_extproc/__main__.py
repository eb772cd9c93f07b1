import sys

from memory_extproc.cli import main

sys.exit(main())
