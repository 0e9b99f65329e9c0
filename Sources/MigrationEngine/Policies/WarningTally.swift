/// Warnings that policies gave about source rows, counted per mapping and message, so a warning
/// that applies to 3,000 rows is logged as one line with the count and the first few ids.
struct WarningTally {
    static let sampleCount = 5

    private struct Entry {
        let mapping: String
        let message: String
        var count = 0
        var samples: [Int64] = []
    }

    private var entries: [Entry] = []

    mutating func add(_ message: String, mapping: String, sourceRow id: Int64) {
        if let index = entries.firstIndex(where: { $0.mapping == mapping && $0.message == message }) {
            entries[index].count += 1
            if entries[index].samples.count < Self.sampleCount { entries[index].samples.append(id) }
        } else {
            entries.append(Entry(mapping: mapping, message: message, count: 1, samples: [id]))
        }
    }

    /// One line per mapping and message.
    var lines: [String] {
        entries.map { entry in
            "mapping \(entry.mapping): \(entry.message): \(entry.count) row\(entry.count == 1 ? "" : "s") "
                + "(ids \(entry.samples.map(String.init).joined(separator: ", "))\(entry.count > entry.samples.count ? ", …" : ""))"
        }
    }
}
