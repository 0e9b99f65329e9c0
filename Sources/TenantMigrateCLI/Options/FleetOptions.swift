import ArgumentParser
import TenantMigrator

/// How `migrate` and `rollback` pick tenants and spread them over connections.
struct FleetOptions: ParsableArguments {
    @Flag(name: .long, help: "Every tenant of the family, as a fleet (narrow it with --match, --limit or --tenant).")
    var all = false

    @Option(name: .long, help: ArgumentHelp("Only tenants whose names match this pattern (* and ?).", valueName: "pattern"))
    var match: String?

    // The numbers are parsed `.unconditional`ly, here and in the other options: `--jobs -1` then
    // reaches validate() and its message, not ArgumentParser's "Missing value for '--jobs <n>'".
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("At most this many tenants that need work, in name order (a canary batch).", valueName: "n"))
    var limit: Int?

    @Option(name: [.short, .long], parsing: .unconditional, help: ArgumentHelp("Connections used at once.", valueName: "n"))
    var jobs: Int = 4

    @Flag(name: .long, help: "Stop taking tenants after the first failure.")
    var failFast = false

    /// Whether this is a fleet run rather than named tenants only.
    var isFleet: Bool { all || match != nil || limit != nil }

    func selection(names: [String]) -> TenantSelection {
        TenantSelection(names: names, pattern: match, limit: limit)
    }

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }
}
