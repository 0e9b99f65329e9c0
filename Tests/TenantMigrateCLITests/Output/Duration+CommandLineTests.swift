@testable import TenantMigrateCLI
import Testing

/// Durations in milliseconds below a second (issue 20: no more "0.0 s").
@Suite("Durations")
struct DurationCommandLineTests {
    @Test func millisecondsBelowASecondThenSecondsThenMinutes() {
        #expect(Duration.milliseconds(0).commandLineText == "0 ms")
        #expect(Duration.milliseconds(12.4).commandLineText == "12 ms")
        #expect(Duration.milliseconds(999.4).commandLineText == "999 ms")
        #expect(Duration.milliseconds(1000).commandLineText == "1.0 s")
        #expect(Duration.seconds(12.34).commandLineText == "12.3 s")
        #expect(Duration.seconds(200).commandLineText == "3 min 20 s")
    }
}
