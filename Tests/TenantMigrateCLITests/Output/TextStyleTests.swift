@testable import TenantMigrateCLI
import Testing

/// Colour on a terminal only, and never with NO_COLOR (no-color.org) or TERM=dumb.
@Suite("Text styles")
struct TextStyleTests {
    @Test func colourOnlyOnATerminalWithoutNoColor() {
        let red = "\u{1B}[31mFAILED\u{1B}[0m"
        #expect(TextStyle(isTerminal: true, environment: ["TERM": "xterm-256color"]).red("FAILED") == red)
        #expect(TextStyle(isTerminal: true, environment: ["NO_COLOR": ""]).red("FAILED") == red, "an empty NO_COLOR does not count")
        #expect(TextStyle(isTerminal: true, environment: ["NO_COLOR": "1"]).red("FAILED") == "FAILED")
        #expect(TextStyle(isTerminal: true, environment: ["TERM": "dumb"]).red("FAILED") == "FAILED")
        #expect(TextStyle(isTerminal: false, environment: [:]).red("FAILED") == "FAILED")
    }
}
