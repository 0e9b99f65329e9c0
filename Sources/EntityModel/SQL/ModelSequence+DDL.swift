import TypedSQL

extension ModelSequence {
    /// `CREATE SEQUENCE <schema>."name" AS bigint START WITH 1 INCREMENT BY 50`, with `MINVALUE`,
    /// `MAXVALUE`, `CACHE` and `CYCLE` where they are not the defaults.
    public var creation: SQL {
        "CREATE SEQUENCE \(table: name) AS \(type.sql) \(KeySequenceOptions(self).clauses)"
    }
}

extension KeySequenceOptions {
    /// `START WITH 1 INCREMENT BY 50`, then `MINVALUE …`, `MAXVALUE …`, `CACHE …` and `CYCLE`
    /// where they are not the defaults: the options as `CREATE SEQUENCE`, `ALTER SEQUENCE` and an
    /// identity's `(…)` take them.
    public var clauses: SQL {
        let options: [SQL?] = ["START WITH \(int: start) INCREMENT BY \(int: increment)",
                               minValue.map { "MINVALUE \(int: $0)" }, maxValue.map { "MAXVALUE \(int: $0)" },
                               cache == 1 ? nil : "CACHE \(int: cache)", cycle ? "CYCLE" : nil]
        return "\(options.compactMap { $0 }, joinedBy: " ")"
    }
}
