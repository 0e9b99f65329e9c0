import TenantMigrateCLI

// Called from top-level code, `TenantMigrateCommand.main()` resolves to ParsableCommand's synchronous
// main, which refuses an async root at run time; inside an async function the async overload wins.
func start() async { await TenantMigrateCommand.main() }
await start()
