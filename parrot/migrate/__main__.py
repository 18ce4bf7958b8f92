from parrot.migrate.cli import main

raise SystemExit(main())
