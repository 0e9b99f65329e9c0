/// What a command that moves tenants prints (`migrate`, `rollback`, and `tenant create`, which
/// moves them from nothing to a version): a fleet run's report, or the report of the tenants
/// named one by one (`Named`).
enum MoveReport<Named: CommandReport>: CommandReport {
    case fleet(FleetRunReport)
    case named(Named)

    private var report: any CommandReport {
        switch self {
        case let .fleet(report): report
        case let .named(report): report
        }
    }

    func encode(to encoder: any Encoder) throws { try report.encode(to: encoder) }
    func printText() { report.printText() }
    var failure: (any Error)? { report.failure }
}
