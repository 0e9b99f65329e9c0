import EntityModel
import TypedSQL

extension SQL.Interpolation {
    /// A column type as the model spells it (`text`, `numeric(12,2)`): the model's own DDL puts it
    /// into `CREATE TABLE` the same way (Column+DDL.swift).
    package mutating func appendInterpolation(type: SQLType) {
        appendInterpolation(type.sql)
    }
}
