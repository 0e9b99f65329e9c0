import ArgumentParser
import Foundation
import LibPQ
import Logging

/// `tenant-migrate-bench copy`: bulk loading through LibPQ's `copyIn` against `psql \copy`.
///
/// Both load the same rows into the same table, in alternating order, truncating (and
/// checkpointing) before every run. The LibPQ time includes encoding the rows into COPY text;
/// the psql time includes starting psql and reading the file.
struct CopyBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Time COPY FROM STDIN through LibPQ against psql's \\copy of the same rows."
    )

    @Option(help: "Rows to load.")
    var rows = 1_000_000

    @Option(help: "Runs of each loader (alternating order); the best and the median are reported.")
    var repetitions = 3

    @OptionGroup var server: ServerOptions

    static let table = "bench_copy"
    static let columns = "(id, name, n)"

    func run() throws {
        guard rows > 0, repetitions > 0 else { throw ValidationError("--rows and --repetitions must be positive") }
        let server = try self.server.start()
        defer { server.stop() }
        let psql = try server.program("psql")
        let logger = quietLogger()
        let connection = try Connection(server.conninfo, logger: logger)
        try connection.script(unsafeSQL: "DROP TABLE IF EXISTS \(Self.table)")
        try connection.script(unsafeSQL: "CREATE TABLE \(Self.table) (id uuid, name text, n int)")
        defer { _ = try? connection.script(unsafeSQL: "DROP TABLE IF EXISTS \(Self.table)") }

        var data: [BenchRow] = []
        let generation = measure { data = BenchRow.generate(count: rows) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tenant-migrate-bench-\(getuid())-copy.tsv")
        defer { try? FileManager.default.removeItem(at: file) }
        let text = BenchRow.copyText(data)
        try text.write(to: file)
        print("rows: \(format(count: rows)) generated in \(format(generation)); COPY text \(String(format: "%.1f", Double(text.count) / 1_048_576)) MiB in \(file.path)")
        print("psql: \(psql); server \(connection.parameterStatus("server_version") ?? "?"), fsync \((try? connection.execute("SHOW fsync").first?[0]) ?? nil ?? "?")")

        var libpq = Timings()
        var psqlTimings = Timings()
        var reference: Checksum?
        for repetition in 0..<repetitions {
            let order: [Loader] = repetition % 2 == 0 ? [.libpq, .psql] : [.psql, .libpq]
            var line = "run \(repetition + 1):"
            for loader in order {
                try connection.script(unsafeSQL: "TRUNCATE \(Self.table)")
                // So that no checkpoint falls inside a timed run (needs rights DATABASE_URL may lack).
                _ = try? connection.script("CHECKPOINT")
                let elapsed: Duration
                switch loader {
                case .libpq:
                    elapsed = try measure { try copyThroughLibPQ(connection, data) }
                    libpq.add(elapsed)
                case .psql:
                    elapsed = try measure { try copyThroughPsql(psql, conninfo: server.conninfo, file: file.path) }
                    psqlTimings.add(elapsed)
                }
                let checksum = try Checksum(connection)
                guard checksum.count == rows else {
                    throw BenchError("\(loader.rawValue) loaded \(checksum.count) rows instead of \(rows)")
                }
                if let reference, reference != checksum {
                    throw BenchError("\(loader.rawValue) loaded different rows: checksum \(checksum) instead of \(reference)")
                }
                reference = checksum
                line += "  \(loader.rawValue) \(format(elapsed))"
            }
            print(line)
        }
        let rate = Double(rows) / libpq.best.inSeconds
        print("checksums: all \(repetitions * 2) loads equal (\(reference!))")
        print("LibPQ copyIn: best \(format(libpq.best)), median \(format(libpq.median)) (\(format(count: Int(rate))) rows/s)")
        print("psql \\copy:   best \(format(psqlTimings.best)), median \(format(psqlTimings.median))")
        let ratio = libpq.best.inSeconds / psqlTimings.best.inSeconds
        let medianRatio = libpq.median.inSeconds / psqlTimings.median.inSeconds
        print(String(format: "ratio LibPQ/psql: best %.2f, median %.2f (target <= 1.30)%@", ratio, medianRatio, ratio <= 1.3 ? "" : "  ABOVE TARGET"))
    }

    enum Loader: String { case libpq = "LibPQ", psql = "psql" }

    private func copyThroughLibPQ(_ connection: Connection, _ data: [BenchRow]) throws {
        let copied = try connection.copyIn(unsafeSQL: "COPY \(Self.table) \(Self.columns) FROM STDIN") { writer in
            for row in data {
                writer.append(row.id)
                writer.append(row.name)
                writer.append(row.n)
                try writer.endRow()
            }
        }
        guard copied == data.count else { throw BenchError("copyIn reported \(copied) rows") }
    }

    private func copyThroughPsql(_ psql: String, conninfo: String, file: String) throws {
        let (status, output) = try runProgram(psql, [
            "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", conninfo,
            "-c", "\\copy \(Self.table) \(Self.columns) FROM '\(file)'",
        ])
        guard status == 0 else { throw BenchError("psql exited with \(status): \(output)") }
    }

    /// Row count and an order-independent hash of every row, computed by the server.
    struct Checksum: Equatable, CustomStringConvertible {
        var count: Int
        var hash: String

        init(_ connection: Connection) throws {
            let row = try connection.execute(unsafeSQL: """
                SELECT count(*), coalesce(sum(hashtext(id::text || '|' || name || '|' || n::text)::int8), 0)::text
                FROM \(CopyBenchmark.table)
                """)[0]
            count = try row.decode(Int.self, at: 0)
            hash = try row.decode(String.self, at: 1)
        }

        var description: String { "count \(count), hash sum \(hash)" }
    }
}

/// One generated row: a UUID, a name with some non-ASCII text, and an integer.
struct BenchRow {
    var id: UUID
    var name: String
    var n: Int32

    static func generate(count: Int) -> [BenchRow] {
        var random = SplitMix64(seed: 0x7e4a_47c0_ffee)
        let words = ["tenant", "Zürich", "Ελλάδα", "東京", "café", "naïve", "north", "Ñandú", "plain", "data"]
        return (0..<count).map { index in
            let high = random.next()
            let low = random.next()
            var bytes = [UInt8](repeating: 0, count: 16)
            for shift in 0..<8 {
                bytes[shift] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(shift)))
                bytes[8 + shift] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(shift)))
            }
            bytes[6] = bytes[6] & 0x0f | 0x40  // version 4
            bytes[8] = bytes[8] & 0x3f | 0x80  // RFC 4122 variant
            let id = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                 bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
            var name = "\(words[Int(high % 10)]) \(index) \(words[Int(low % 10)])"
            if index % 1000 == 0 { name += "\ttab \\ backslash" }  // a few fields that need escaping
            return BenchRow(id: id, name: name, n: Int32(truncatingIfNeeded: high >> 32))
        }
    }

    /// The rows in COPY text format, escaped as PostgreSQL expects (the file psql reads).
    static func copyText(_ rows: [BenchRow]) -> Data {
        var text = ""
        text.reserveCapacity(rows.count * 64)
        for row in rows {
            text += row.id.uuidString.lowercased()
            text += "\t"
            for character in row.name.unicodeScalars {
                switch character {
                case "\\": text += "\\\\"
                case "\t": text += "\\t"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                default: text.unicodeScalars.append(character)
                }
            }
            text += "\t\(row.n)\n"
        }
        return Data(text.utf8)
    }
}
