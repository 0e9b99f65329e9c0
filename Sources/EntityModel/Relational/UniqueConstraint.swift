/// A unique constraint: `CONSTRAINT <table>_<column>_key UNIQUE (…)`, on the constrained columns;
/// its name is also the name of its index.
public typealias UniqueConstraint = NamedColumnList<UniqueConstraintKind>

/// The kind of a ``UniqueConstraint``.
public enum UniqueConstraintKind: NamedColumnListKind {}
