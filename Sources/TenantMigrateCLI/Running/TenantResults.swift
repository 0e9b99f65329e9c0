import TenantMigrator

/// Runs one operation per named tenant, in order, printing each result; the others carry on when
/// one fails. With `--json`, one document: every tenant's result, failures included.
struct TenantResults {
    let json: Bool
    let mode: MigrationRunMode

    /// A single tenant's error is rethrown as is; several failures become one summary error.
    func collect(_ tenants: [String], _ operation: (String) async throws -> TenantMigrationResult) async throws {
        var results: [TenantMigrationResult] = []
        var failures: [(tenant: String, error: any Error)] = []
        for tenant in tenants {
            do {
                let result = try await operation(tenant)
                results.append(result)
                if !json { result.printLine(mode: mode) }
            } catch {
                failures.append((tenant, error))
                if let failure = error as? TenantMigrationError { results.append(failure.result) }
                if tenants.count > 1 && !json {
                    Console.line("\(tenant): \(TextStyle.output.red("FAILED")): \(CommandLineMessage.describe(error, mode: mode))")
                }
            }
        }
        if json { try Console.printJSON(results) }
        guard !failures.isEmpty else { return }
        let failure: any Error = tenants.count == 1
            ? CommandLineMessage.translating(failures[0].error, mode: mode)
            : CLIError("\(failures.count) of \(tenants.count) tenants \(mode.isTrial ? "would fail" : "failed"): "
                + failures.map(\.tenant).joined(separator: ", "))
        throw json ? ReportedFailure(error: failure) : failure
    }
}
