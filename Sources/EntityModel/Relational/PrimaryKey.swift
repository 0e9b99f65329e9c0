/// A primary key: `CONSTRAINT <table>_pkey PRIMARY KEY (…)`, on its columns in key order.
public typealias PrimaryKey = NamedColumnList<PrimaryKeyKind>

/// The kind of a ``PrimaryKey``.
public enum PrimaryKeyKind: NamedColumnListKind {}
