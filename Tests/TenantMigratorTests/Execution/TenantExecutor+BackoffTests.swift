import MigrationEngine
@testable import TenantMigrator
import Testing

@Suite("Retry backoff")
struct TenantExecutorBackoffTests {
    @Test func backoffGrowsExponentiallyWithJitterAndIsCapped() throws {
        var settings = MigrationSettings()
        settings.backoffBase = .milliseconds(200)
        settings.backoffCap = .seconds(1)
        let runner = TenantExecutor(catalog: TenantCatalog(), planner: MigrationPlanner(family: try fixtureFamily("Catalogue")), settings: settings)
        for attempt in 1...8 {
            let ceiling = min(1.0, 0.2 * Double(1 << (attempt - 1)))
            for _ in 0..<50 {
                let delay = runner.backoff(afterAttempt: attempt)
                #expect(delay >= ceiling / 2 && delay <= ceiling, "attempt \(attempt): \(delay)")
            }
        }
        let spread = Set((0..<20).map { _ in runner.backoff(afterAttempt: 3) })
        #expect(spread.count > 1, "jitter must vary the delay")
        #expect(TenantExecutor.wholeMilliseconds(.microseconds(1)) == 1, "a positive timeout never becomes 0 (no limit)")
        #expect(TenantExecutor.wholeMilliseconds(.zero) == 0)
        #expect(MigrationSettings(maxAttempts: 0).maxAttempts == 1)
    }
}
