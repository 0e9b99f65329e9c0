import Foundation

/// Colour for one stream: on a terminal only, and never when `NO_COLOR` is set (no-color.org) or
/// `TERM` is `dumb`. Off a terminal, every style returns its text unchanged.
struct TextStyle: Sendable {
    let isEnabled: Bool

    init(for stream: StandardStream) {
        self.init(isTerminal: stream.isTerminal, environment: ProcessInfo.processInfo.environment)
    }

    init(isTerminal: Bool, environment: [String: String]) {
        isEnabled = isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// The style of results on stdout.
    static let output = TextStyle(for: .output)
    /// The style of notes, logs and progress on stderr.
    static let error = TextStyle(for: .error)

    func red(_ text: String) -> String { styled(text, "31") }
    func green(_ text: String) -> String { styled(text, "32") }
    func yellow(_ text: String) -> String { styled(text, "33") }
    func bold(_ text: String) -> String { styled(text, "1") }
    func dim(_ text: String) -> String { styled(text, "2") }

    private func styled(_ text: String, _ code: String) -> String {
        isEnabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
