import Logging

/// One warning that a policy gave about many source rows: logged once, with a count and samples.
struct AggregatedWarning {
    static let sampleCount = 5

    let mapping: String
    let message: String
    var count = 0
    var samples: [Int64] = []

    var line: String {
        "mapping \(mapping): \(message): \(count) row\(count == 1 ? "" : "s") (ids \(samples.map(String.init).joined(separator: ", "))\(count > samples.count ? ", …" : ""))"
    }
}

extension PolicyContext {
    /// Warns about a source row. Warnings with the same message in one mapping are logged as one
    /// line at the end of the step, with the number of rows and the first few ids, so a warning
    /// that applies to 3,000 rows is one line, not 3,000. Keep `message` free of row values.
    public func warn(_ message: String, sourceRow id: Int64) {
        if let index = aggregatedWarnings.firstIndex(where: { $0.mapping == mapping.name && $0.message == message }) {
            aggregatedWarnings[index].count += 1
            if aggregatedWarnings[index].samples.count < AggregatedWarning.sampleCount { aggregatedWarnings[index].samples.append(id) }
        } else {
            aggregatedWarnings.append(AggregatedWarning(mapping: mapping.name, message: message, count: 1, samples: [id]))
        }
    }

    /// Logs each aggregated warning once (the step ends).
    func logAggregatedWarnings() {
        for warning in aggregatedWarnings { logger.warning("\(warning.line)") }
        aggregatedWarnings = []
    }
}
