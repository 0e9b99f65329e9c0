import EntityModel
import LibPQ

/// A connection quotes through libpq, so it can render DDL.
extension Connection: SQLQuoting {}
