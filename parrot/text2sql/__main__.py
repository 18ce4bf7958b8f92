import sys

from parrot.text2sql.build import main

sys.exit(main())
