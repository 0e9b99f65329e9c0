import Foundation
import TenantMigrator

/// Runs one operation per named tenant, in order; the others carry on when one fails.
struct TenantResults {
    let mode: MigrationRunMode
    /// `migrate` or `rollback`.
    let operation: MigrationRequest.Operation
    let family: String
    /// The target version (the latest, when the command names none).
    let target: String

    /// Each tenant's result or error, in order. `live`: each tenant's line of the report's text is
    /// printed as soon as the tenant is done (the text form then has nothing left to print).
    func collect(_ tenants: [String], live: Bool, _ run: (String) async throws -> TenantMigrationResult) async -> NamedMoveReport {
        var report = NamedMoveReport(outcomes: [], tenantCount: tenants.count, mode: mode, operation: operation, family: family, target: target,
                                     startedAt: Date(), printedLive: live)
        for tenant in tenants {
            let outcome: NamedMoveReport.Outcome
            do {
                outcome = .init(tenant: tenant, result: .success(try await run(tenant)))
            } catch {
                outcome = .init(tenant: tenant, result: .failure(error))
            }
            report.outcomes.append(outcome)
            if live { report.printLine(outcome) }
        }
        return report
    }
}

/// What `migrate` and `rollback` of named tenants print: a line per tenant (a FAILED line for a
/// failure among several), or one ``MoveDocument`` (the shape of a fleet run's) with every tenant's
/// result, failures included, and the error; or the ``ErrorDocument`` alone when no tenant got as
/// far as a result (an unknown tenant or version). A single tenant's error ends the command as
/// is; several failures, as one summary error.
struct NamedMoveReport: CommandReport {
    struct Outcome {
        let tenant: String
        let result: Result<TenantMigrationResult, any Error>
    }

    var outcomes: [Outcome]
    /// The tenants named (a single one's error ends the command as is).
    let tenantCount: Int
    let mode: MigrationRunMode
    let operation: MigrationRequest.Operation
    let family: String
    let target: String
    let startedAt: Date
    /// Whether each tenant's line was printed as the tenant ended (``TenantResults/collect(_:live:_:)``).
    let printedLive: Bool

    private var failures: [(tenant: String, error: any Error)] {
        outcomes.compactMap { outcome in
            guard case let .failure(error) = outcome.result else { return nil }
            return (outcome.tenant, error)
        }
    }

    var failure: (any Error)? {
        let failures = self.failures
        guard !failures.isEmpty else { return nil }
        if tenantCount == 1 { return CommandLineMessage.translating(failures[0].error, mode: mode) }
        return CLIError("\(failures.count) of \(tenantCount) tenants \(mode.isTrial ? "would fail" : "failed"): "
            + failures.map(\.tenant).joined(separator: ", "))
    }

    func printText() {
        guard !printedLive else { return }
        outcomes.forEach(printLine)
    }

    /// The tenant's line: its result, or FAILED and why when several tenants were named (a single
    /// tenant's error is the command's).
    func printLine(_ outcome: Outcome) {
        switch outcome.result {
        case let .success(result): result.printLine(mode: mode, operation: operation)
        case let .failure(error) where tenantCount > 1:
            Console.line("\(outcome.tenant): \(TextStyle.output.red("FAILED")): \(CommandLineMessage.describe(error, mode: mode))")
        case .failure: break
        }
    }

    func encode(to encoder: any Encoder) throws {
        // A failed migration carries its result (versions, time, error); an unknown tenant has none.
        let results = outcomes.compactMap { outcome -> TenantMigrationResult? in
            switch outcome.result {
            case let .success(result): result
            case let .failure(error): (error as? TenantMigrationError)?.result
            }
        }
        let failure = self.failure
        guard !results.isEmpty || failure == nil else { return try ErrorDocument(failure!).encode(to: encoder) }
        let error = failure.map {
            ErrorDocument.Failure(message: CommandLineMessage.describe($0), sqlState: failures.lazy.compactMap { CommandLineMessage.sqlState(of: $0.error) }.first)
        }
        try MoveDocument(family: family, target: target, operation: operation, mode: mode, startedAt: startedAt, results: results, error: error).encode(to: encoder)
    }
}
