/// What one step did.
public struct StepStatistics: Sendable, Codable, Hashable {
    /// Statements executed.
    public var statements: Int = 0
    /// Rows inserted, updated or deleted by data-moving statements.
    public var rowsAffected: Int = 0
    /// Wall time in milliseconds.
    public var milliseconds: Double = 0
    /// Archived values a way back did not give back because the app's change won (or their row is
    /// gone): kept in the archive, marked superseded (`archive list`, `archive restore --superseded`).
    public var supersededEntries: Int = 0
    /// Archived values and rows the step's way back gave back (compare-and-restore), counted in
    /// ``rowsAffected`` too.
    public var restoredEntries: Int = 0

    public init(statements: Int = 0, rowsAffected: Int = 0, milliseconds: Double = 0, supersededEntries: Int = 0, restoredEntries: Int = 0) {
        self.statements = statements
        self.rowsAffected = rowsAffected
        self.milliseconds = milliseconds
        self.supersededEntries = supersededEntries
        self.restoredEntries = restoredEntries
    }

    public static func + (lhs: StepStatistics, rhs: StepStatistics) -> StepStatistics {
        StepStatistics(statements: lhs.statements + rhs.statements, rowsAffected: lhs.rowsAffected + rhs.rowsAffected,
                       milliseconds: lhs.milliseconds + rhs.milliseconds, supersededEntries: lhs.supersededEntries + rhs.supersededEntries,
                       restoredEntries: lhs.restoredEntries + rhs.restoredEntries)
    }

    private enum CodingKeys: String, CodingKey { case statements, rowsAffected, milliseconds, supersededEntries, restoredEntries }

    /// (Reports written before ``supersededEntries`` or ``restoredEntries`` decode with 0.)
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        statements = try container.decode(Int.self, forKey: .statements)
        rowsAffected = try container.decode(Int.self, forKey: .rowsAffected)
        milliseconds = try container.decode(Double.self, forKey: .milliseconds)
        supersededEntries = try container.decodeIfPresent(Int.self, forKey: .supersededEntries) ?? 0
        restoredEntries = try container.decodeIfPresent(Int.self, forKey: .restoredEntries) ?? 0
    }
}
