import Foundation

/// Converts between `Date` and PostgreSQL's ISO timestamp text, with microsecond precision,
/// without Foundation's locale-dependent formatters.
enum PQTimestamp {
    /// `2024-03-01 12:34:56.123456+00`
    static func format(_ date: Date) -> String {
        let totalMicros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let micros = Int64(totalMicros)
        var seconds = micros.floorDiv(1_000_000)
        let fraction = micros - seconds * 1_000_000
        let days = seconds.floorDiv(86_400)
        seconds -= days * 86_400
        let (year, month, day) = civil(fromDays: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let yearText = year > 0 ? pad(year, 4) : pad(1 - year, 4)
        return "\(yearText)-\(pad(month, 2))-\(pad(day, 2)) \(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(fraction, 6))+00\(year > 0 ? "" : " BC")"
    }

    /// Parses `YYYY-MM-DD HH:MM:SS[.ffffff][±HH[:MM[:SS]]][ BC]` (years of four or more digits), also with a `T` separator, and
    /// `infinity` / `-infinity`.
    static func parse(_ text: String) -> Date? {
        if text == "infinity" { return .distantFuture }
        if text == "-infinity" { return .distantPast }
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + width] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            index += width
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        // Years after 9999 have five or six digits (PostgreSQL goes up to 294276).
        var yearDigits = 0
        while index + yearDigits < bytes.count, bytes[index + yearDigits] >= 48, bytes[index + yearDigits] <= 57 { yearDigits += 1 }
        guard yearDigits >= 4, let year = number(yearDigits), expect("-"), let month = number(2), expect("-"), let day = number(2) else { return nil }
        var seconds: Int64 = 0
        var micros: Int64 = 0
        var offset: Int64 = 0
        if expect(" T") {
            guard let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2) else { return nil }
            seconds = hour * 3600 + minute * 60 + second
            if expect(".") {
                var digits = 0
                while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                    if digits < 6 { micros = micros * 10 + Int64(bytes[index] - 48) }
                    digits += 1
                    index += 1
                }
                if digits < 6 { for _ in digits..<6 { micros *= 10 } }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let hours = number(2) else { return nil }
                var total = hours * 3600
                if expect(":") { guard let minutes = number(2) else { return nil }; total += minutes * 60 }
                if expect(":") { guard let secs = number(2) else { return nil }; total += secs }
                offset = sign * total
            } else if index < bytes.count, bytes[index] == UInt8(ascii: "Z") {
                index += 1
            }
        }
        var civilYear = year
        if text.hasSuffix(" BC") { civilYear = 1 - year; index += 3 }
        guard index == bytes.count else { return nil }
        let days = days(fromCivil: civilYear, month, day)
        let epochSeconds = days * 86_400 + seconds - offset
        return Date(timeIntervalSince1970: Double(epochSeconds) + Double(micros) / 1_000_000)
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDiv(400)
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = z.floorDiv(146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
