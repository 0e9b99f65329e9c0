/// What `migrate` and `rollback` print: a fleet run's report, or the named tenants' results.
enum MoveReport: CommandReport {
    case fleet(FleetRunReport)
    case named(NamedMoveReport)

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
