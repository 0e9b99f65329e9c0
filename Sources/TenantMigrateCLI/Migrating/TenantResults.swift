import Foundation
import TenantMigrator

/// Runs one operation per named tenant, in order, printing each result; the others carry on when
/// one fails. With `--json`, one ``MoveDocument`` (the shape of a fleet run's): every tenant's
/// result, failures included, and the error; or the ``ErrorDocument`` alone when no tenant got as
/// far as a result (an unknown tenant or version).
struct TenantResults {
    let json: Bool
    let mode: MigrationRunMode
    /// `migrate` or `rollback`.
    let operation: MigrationRequest.Operation
    let family: String
    /// The target version (the latest, when the command names none).
    let target: String

    /// A single tenant's error is rethrown as is; several failures become one summary error.
    func collect(_ tenants: [String], _ run: (String) async throws -> TenantMigrationResult) async throws {
        let startedAt = Date()
        var results: [TenantMigrationResult] = []
        var failures: [(tenant: String, error: any Error)] = []
        for tenant in tenants {
            do {
                let result = try await run(tenant)
                results.append(result)
                if !json { result.printLine(mode: mode, operation: operation) }
            } catch {
                failures.append((tenant, error))
                if let failure = error as? TenantMigrationError { results.append(failure.result) }
                if tenants.count > 1 && !json {
                    Console.line("\(tenant): \(TextStyle.output.red("FAILED")): \(CommandLineMessage.describe(error, mode: mode))")
                }
            }
        }
        let failure: (any Error)? = failures.isEmpty ? nil : tenants.count == 1
            ? CommandLineMessage.translating(failures[0].error, mode: mode)
            : CLIError("\(failures.count) of \(tenants.count) tenants \(mode.isTrial ? "would fail" : "failed"): "
                + failures.map(\.tenant).joined(separator: ", "))
        guard json else {
            if let failure { throw failure }
            return
        }
        // (Failed before any result: the caller prints the error document alone.)
        guard !results.isEmpty || failure == nil else { throw failure! }
        let error = failure.map { ErrorDocument.Failure(message: CommandLineMessage.describe($0), sqlState: failures.lazy.compactMap { CommandLineMessage.sqlState(of: $0.error) }.first) }
        try Console.printJSON(MoveDocument(family: family, target: target, operation: operation, mode: mode, startedAt: startedAt, results: results, error: error))
        if let failure { throw ReportedFailure(error: failure) }
    }
}
