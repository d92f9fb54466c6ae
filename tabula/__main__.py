from tabula.cli import main

raise SystemExit(main())
