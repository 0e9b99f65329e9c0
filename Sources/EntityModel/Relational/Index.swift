/// A (non-unique) B-tree index: `CREATE INDEX <table>_<column>_idx ON … (…)`, on its columns in order.
public typealias Index = NamedColumnList<IndexKind>

/// The kind of an ``Index``.
public enum IndexKind: NamedColumnListKind {}
