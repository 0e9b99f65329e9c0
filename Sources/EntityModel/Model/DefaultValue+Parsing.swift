import Foundation

extension DefaultValue {
    /// How a default was written in YAML: its text and whether it was quoted.
    struct Written {
        var text: String
        var isQuoted: Bool
        /// A YAML mapping or sequence, already converted to JSON text (only `json` accepts these).
        var collectionJSON: String?
    }

    /// Checks `written` against `type` and returns the canonical default, or a sentence saying what is
    /// wrong (completed by the caller with the attribute's name).
    static func parse(_ written: Written, as type: AttributeType) -> Result<DefaultValue, DefaultValueProblem> {
        if let json = written.collectionJSON {
            return type == .json ? .success(.json(json)) : .failure(.notOfType)
        }
        let text = written.text
        switch type {
        case .string:
            return .success(.string(text))
        case .int16, .int32, .int64:
            guard !written.isQuoted, let value = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
                return .failure(.notOfType)
            }
            let range = type.integerRange
            guard range.contains(value) else { return .failure(.outOfRange("\(range.lowerBound)...\(range.upperBound)")) }
            return .success(.integer(value))
        case .decimal:
            guard text.wholeMatch(of: /[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/) != nil else { return .failure(.notOfType) }
            return .success(.decimal(text.hasPrefix("+") ? String(text.dropFirst()) : text))
        case .double, .float:
            guard !written.isQuoted, let value = parseFloatingPoint(text) else { return .failure(.notOfType) }
            if type == .float, value.isFinite, !Float(value).isFinite { return .failure(.outOfRange("a 32-bit float")) }
            return .success(.floatingPoint(value))
        case .bool:
            switch (written.isQuoted, text) {
            case (false, "true"), (false, "True"), (false, "TRUE"): return .success(.bool(true))
            case (false, "false"), (false, "False"), (false, "FALSE"): return .success(.bool(false))
            default: return .failure(.notOfType)
            }
        case .date:
            guard let date = ISO8601Timestamp.canonical(text) else { return .failure(.notADate) }
            return .success(.date(date))
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { return .failure(.notAUUID) }
            return .success(.uuid(uuid.uuidString.lowercased()))
        case .binary:
            guard let data = Data(base64Encoded: text) else { return .failure(.notBase64) }
            return .success(.binary(Array(data)))
        case .json:
            guard let canonical = CanonicalJSON.canonicalize(text) else { return .failure(.notJSON) }
            return .success(.json(canonical))
        }
    }

    private static func parseFloatingPoint(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        default:
            guard text.wholeMatch(of: /[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?/) != nil else { return nil }
            return Double(text)
        }
    }
}

extension AttributeType {
    /// The values an integer type can hold.
    var integerRange: ClosedRange<Int64> {
        switch self {
        case .int16: Int64(Int16.min)...Int64(Int16.max)
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
    }
}
