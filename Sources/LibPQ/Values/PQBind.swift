/// One parameter value as it goes on the wire: its bytes (nil for NULL), their format and a type OID.
public struct PQBind: Sendable, Hashable {
    /// The wire format of ``bytes``.
    public enum Format: Int32, Sendable { case text = 0, binary = 1 }

    /// The bytes, or nil for SQL NULL.
    public var bytes: [UInt8]?
    public var format: Format
    /// The parameter's type OID; 0 lets the server infer it from the statement.
    public var typeOID: UInt32

    public init(bytes: [UInt8]?, format: Format = .text, typeOID: UInt32 = 0) {
        self.bytes = bytes
        self.format = format
        self.typeOID = typeOID
    }

    /// SQL NULL.
    public static let null = PQBind(bytes: nil)

    /// A value in PostgreSQL's text format.
    public static func text(_ string: String, typeOID: UInt32 = 0) -> PQBind {
        PQBind(bytes: Array(string.utf8), format: .text, typeOID: typeOID)
    }
}

/// Well-known type OIDs (from pg_type).
public enum PQOID {
    public static let bool: UInt32 = 16
    public static let bytea: UInt32 = 17
    public static let int8: UInt32 = 20
    public static let int2: UInt32 = 21
    public static let int4: UInt32 = 23
    public static let text: UInt32 = 25
    public static let json: UInt32 = 114
    public static let float4: UInt32 = 700
    public static let float8: UInt32 = 701
    public static let varchar: UInt32 = 1043
    public static let timestamp: UInt32 = 1114
    public static let timestamptz: UInt32 = 1184
    public static let numeric: UInt32 = 1700
    public static let uuid: UInt32 = 2950
    public static let jsonb: UInt32 = 3802
}
