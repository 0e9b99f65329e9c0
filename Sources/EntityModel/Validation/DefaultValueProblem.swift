/// Why a default does not fit its attribute's type.
enum DefaultValueProblem: Error, Equatable {
    case notOfType
    case outOfRange(String)
    case notADate
    case notAUUID
    case notBase64
    case notJSON
}

extension DefaultValueProblem {
    /// The end of a sentence that starts "the default X of attribute E.a ".
    func sentence(for type: AttributeType) -> String {
        switch self {
        case .notOfType: "is not a\(type.rawValue.first.map { "aeiou".contains($0) } == true ? "n" : "") \(type.rawValue) value."
        case .outOfRange(let range): "is out of range for \(type.rawValue) (\(range))."
        case .notADate: "is not an ISO-8601 date such as \"2024-01-01T00:00:00Z\"."
        case .notAUUID: "is not a valid UUID such as \"123e4567-e89b-12d3-a456-426614174000\"."
        case .notBase64: "is not base64-encoded bytes."
        case .notJSON: "is not a JSON document."
        }
    }
}
