import TypedSQL

extension ModelSequence {
    /// `CREATE SEQUENCE <schema>."name" AS bigint START WITH 1 INCREMENT BY 50`, with `MINVALUE`,
    /// `MAXVALUE`, `CACHE` and `CYCLE` where they are not the defaults.
    public var creation: SQL {
        let options: [SQL] = [minValue.map { " MINVALUE \(raw: String($0))" }, maxValue.map { " MAXVALUE \(raw: String($0))" },
                              cache == 1 ? nil : " CACHE \(raw: String(cache))", cycle ? " CYCLE" : nil].compactMap { $0 }
        return "CREATE SEQUENCE \(table: name) AS \(raw: type.rawValue) START WITH \(raw: String(start)) INCREMENT BY \(raw: String(increment))\(options, joinedBy: "")"
    }
}
