/// A SQL statement with its parameters already in wire form, ready to execute or to pipeline.
///
/// Its text comes from typed ``SQL`` (`Statement("SELECT … WHERE name = $1", [name])`, or with
/// names and values interpolated by kind: see Statement+SQL.swift), or, unchecked, from
/// ``init(unsafeSQL:_:)``, whose name says that nothing checked it.
public struct Statement: Sendable, CustomStringConvertible {
    /// The SQL text, with `$1`, `$2`, … placeholders.
    public private(set) var sql: String
    /// The parameters, in order.
    public var binds: [PQBind]
    /// Whether each connection prepares the text once and then only binds and executes it
    /// (``preparedPerConnection()``).
    public private(set) var isPreparedPerConnection = false

    /// `sql` as it is, unchecked, with `parameters` for its `$1`, `$2`, …: for text that really comes
    /// from outside (a test's, a user's checked expression). Everything else is typed ``SQL``.
    public init(unsafeSQL sql: String, _ parameters: [(any PQEncodable)?] = []) {
        self.sql = sql
        self.binds = parameters.map { $0?.postgresBind ?? .null }
    }

    /// `sql` as it is, unchecked, with parameters already in wire form.
    public init(unsafeSQL sql: String, binds: [PQBind]) {
        self.sql = sql
        self.binds = binds
    }

    public var description: String { sql }

    /// This statement, prepared by each connection the first time it runs it there, then only bound
    /// and executed: PostgreSQL parses and plans the text once per session (and after five runs may
    /// keep a generic plan), where it parses and plans an unprepared statement on every run. For
    /// the statements a connection sends again and again with other values: the per-tenant catalog
    /// statements of a fleet run. The parameters' types are fixed by the first run.
    ///
    /// A connection with ``Connection/preparesStatements`` off sends it unprepared.
    public func preparedPerConnection() -> Statement {
        var prepared = self
        prepared.isPreparedPerConnection = true
        return prepared
    }
}

extension Statement {
    /// Calls `body` with the libpq parameter arrays (types, values, lengths, formats).
    func withParameterArrays<R>(
        _ body: (
            UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?
        ) -> R
    ) -> R {
        let types = binds.map(\.typeOID)
        let lengths = binds.map { Int32($0.bytes?.count ?? 0) }
        let formats = binds.map(\.format.rawValue)
        // Copy every value into one contiguous buffer so the pointers stay valid during the call.
        var storage: [UInt8] = []
        storage.reserveCapacity(binds.reduce(0) { $0 + ($1.bytes?.count ?? 0) + 1 })
        var offsets: [Int?] = []
        for bind in binds {
            if let bytes = bind.bytes {
                offsets.append(storage.count)
                storage.append(contentsOf: bytes)
                storage.append(0)
            } else {
                offsets.append(nil)
            }
        }
        return storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress)
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                // A non-NULL value always appended at least its terminator, so `base` exists.
                guard let offset, let base else { return nil }
                return (base + offset).assumingMemoryBound(to: CChar.self)
            }
            return types.withUnsafeBufferPointer { typePointer in
                values.withUnsafeBufferPointer { valuePointer in
                    lengths.withUnsafeBufferPointer { lengthPointer in
                        formats.withUnsafeBufferPointer { formatPointer in
                            body(typePointer.baseAddress, valuePointer.baseAddress, lengthPointer.baseAddress, formatPointer.baseAddress)
                        }
                    }
                }
            }
        }
    }
}
