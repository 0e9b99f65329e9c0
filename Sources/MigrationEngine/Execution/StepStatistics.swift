/// What one step did.
public struct StepStatistics: Sendable, Codable, Hashable {
    /// Statements executed.
    public var statements: Int = 0
    /// Rows inserted, updated or deleted by data-moving statements.
    public var rowsAffected: Int = 0
    /// Wall time in milliseconds.
    public var milliseconds: Double = 0

    public init(statements: Int = 0, rowsAffected: Int = 0, milliseconds: Double = 0) {
        self.statements = statements
        self.rowsAffected = rowsAffected
        self.milliseconds = milliseconds
    }

    public static func + (lhs: StepStatistics, rhs: StepStatistics) -> StepStatistics {
        StepStatistics(statements: lhs.statements + rhs.statements, rowsAffected: lhs.rowsAffected + rhs.rowsAffected,
                       milliseconds: lhs.milliseconds + rhs.milliseconds)
    }
}
