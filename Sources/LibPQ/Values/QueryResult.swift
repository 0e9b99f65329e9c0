import CLibPQ

/// The rows and status of one executed statement. It owns its libpq result and frees it when released.
///
/// Iterate it for ``Row`` values; decode fields by index or column name.
public final class QueryResult: Sequence {
    let handle: OpaquePointer
    /// The number of rows returned.
    public let rowCount: Int
    /// The number of columns returned.
    public let columnCount: Int
    private lazy var columnIndexes: [String: Int] = {
        var indexes: [String: Int] = [:]
        for index in 0..<columnCount where indexes[columnNames[index]] == nil {
            indexes[columnNames[index]] = index
        }
        return indexes
    }()

    init(handle: OpaquePointer) {
        self.handle = handle
        rowCount = Int(PQntuples(handle))
        columnCount = Int(PQnfields(handle))
    }

    deinit { PQclear(handle) }

    /// The column names, in order.
    public private(set) lazy var columnNames: [String] = (0..<columnCount).map { String(cString: PQfname(handle, Int32($0))) }

    /// The index of a column by its exact name (unlike `PQfnumber`, without case folding).
    public func columnIndex(named name: String) -> Int? { columnIndexes[name] }

    /// The command tag, such as `INSERT 0 5`.
    public var commandTag: String { String(cString: PQcmdStatus(handle)) }

    /// Rows inserted, updated, deleted, copied or selected by the command, when it reports a count.
    public var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// The row at `index`.
    public subscript(index: Int) -> Row {
        precondition(index >= 0 && index < rowCount, "row \(index) out of range 0..<\(rowCount)")
        return Row(result: self, index: index)
    }

    public func makeIterator() -> AnyIterator<Row> {
        var next = 0
        return AnyIterator { [self] in
            guard next < rowCount else { return nil }
            defer { next += 1 }
            return Row(result: self, index: next)
        }
    }

    /// The first row, if any.
    public var first: Row? { rowCount > 0 ? self[0] : nil }

    func cell(row: Int, column: Int) -> PQCell {
        let name = columnNames[column]
        let oid = UInt32(PQftype(handle, Int32(column)))
        if PQgetisnull(handle, Int32(row), Int32(column)) == 1 {
            return PQCell(bytes: nil, typeOID: oid, columnName: name)
        }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        let pointer = UnsafeRawPointer(PQgetvalue(handle, Int32(row), Int32(column)))
        return PQCell(bytes: UnsafeRawBufferPointer(start: pointer, count: length), typeOID: oid, columnName: name)
    }
}

/// One row of a ``QueryResult``.
public struct Row {
    let result: QueryResult
    /// The row's position in its result.
    public let index: Int

    /// Decodes the field at `column` (0-based).
    public func decode<T: PQDecodable>(_ type: T.Type = T.self, at column: Int) throws -> T {
        guard column >= 0, column < result.columnCount else {
            throw RowDecodingError(column: "#\(column)", type: T.self, reason: "the result has \(result.columnCount) columns")
        }
        return try withExtendedLifetime(result) { try T.decode(from: result.cell(row: index, column: column)) }
    }

    /// Decodes the field of the column named `column`.
    public func decode<T: PQDecodable>(_ type: T.Type = T.self, column: String) throws -> T {
        guard let position = result.columnIndex(named: column) else {
            throw RowDecodingError(column: column, type: T.self, reason: "the result has no such column (it has \(result.columnNames.joined(separator: ", ")))")
        }
        return try decode(type, at: position)
    }

    /// Whether the field at `column` is NULL.
    public func isNull(at column: Int) -> Bool { PQgetisnull(result.handle, Int32(index), Int32(column)) == 1 }

    /// The field at `column` as text, or nil for NULL.
    public subscript(column: Int) -> String? { try? decode(String?.self, at: column) }

    /// The field of the named column as text, or nil for NULL or an unknown column.
    public subscript(column: String) -> String? { (try? decode(String?.self, column: column)) ?? nil }
}
