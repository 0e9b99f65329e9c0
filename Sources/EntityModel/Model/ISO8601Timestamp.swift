import Foundation

/// ISO-8601 timestamps for `date` defaults.
///
/// Accepted: `2024-01-01` (midnight UTC), `2024-01-01T10:30:00Z`, `2024-01-01T10:30:00+02:00`, and the
/// same with fractional seconds. The canonical form is UTC with a `Z`, with milliseconds only when
/// they are not zero.
enum ISO8601Timestamp {
    /// The canonical UTC text of `text`, or `nil` if it is not an ISO-8601 date or timestamp.
    static func canonical(_ text: String) -> String? {
        let pattern = /[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[-+][0-9]{2}:[0-9]{2}))?/
        guard text.wholeMatch(of: pattern) != nil else { return nil }
        let date: Date?
        if text.count == 10 {
            date = formatter([.withFullDate]).date(from: text)
        } else if text.contains(".") {
            date = formatter([.withInternetDateTime, .withFractionalSeconds]).date(from: text)
        } else {
            date = formatter([.withInternetDateTime]).date(from: text)
        }
        guard let date else { return nil }
        let hasFraction = date.timeIntervalSince1970.rounded(.down) != date.timeIntervalSince1970
        let options: ISO8601DateFormatter.Options = hasFraction
            ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter(options).string(from: date)
    }

    private static func formatter(_ options: ISO8601DateFormatter.Options) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = options
        return formatter
    }
}
