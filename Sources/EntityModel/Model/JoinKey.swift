/// How a join table keeps its pairs unique: the model's `PRIMARY KEY` on its two columns, or a
/// `UNIQUE` index on them and no primary key, as Prisma makes its implicit many-to-many tables
/// (`_CategoryToPost_AB_unique`). The relationship's `joinKey:` (docs/ModelFormat.md).
public enum JoinKey: String, Hashable, Sendable, Codable, CaseIterable {
    /// `CONSTRAINT <join>_pkey PRIMARY KEY (source, destination)`: the default.
    case primaryKey
    /// `CREATE UNIQUE INDEX <join>_<source>_<destination>_key ON … (source, destination)`, both
    /// columns `NOT NULL`, and no primary key.
    case uniqueIndex
}
