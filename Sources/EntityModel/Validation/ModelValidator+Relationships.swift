extension ModelValidator {
    /// Checks a relationship's destination, inverse, counts and column override.
    mutating func checkRelationship(_ relationship: Relationship, of entity: Entity) {
        let what = "relationship \(entity.name).\(relationship.name)"
        let location = relationship.location
        checkCounts(relationship, what: what)
        guard let destination = graph.byName[relationship.destination] else {
            report(location, "\(what) points to entity \(relationship.destination), which does not exist.")
            return
        }
        if let inverseName = relationship.inverse {
            checkInverse(inverseName, of: relationship, in: entity, destination: destination, what: what)
        }
        guard relationship.columnOverride != nil else { return }
        let mapper = RelationalMapper(graph: graph)
        if relationship.isToMany {
            report(location, "\(what) is to-many, so it has no foreign-key column; column: applies only to a to-one.")
        } else if !mapper.holdsForeignKey(relationship, declaredBy: entity.name), let inverse = relationship.inverse {
            report(location, "\(what) does not hold the foreign key of its one-to-one pair "
                + "(\(destination.name).\(inverse) does, because it sorts first); put column: there.")
        }
    }

    private mutating func checkCounts(_ relationship: Relationship, what: String) {
        let location = relationship.location
        guard relationship.minCount != nil || relationship.maxCount != nil else { return }
        guard relationship.isToMany else {
            report(location, "\(what) is to-one; minCount and maxCount apply only to a to-many relationship.")
            return
        }
        if let min = relationship.minCount, min < 0 {
            report(location, "\(what) has minCount \(min); it cannot be negative.")
        }
        if let max = relationship.maxCount, max < 1 {
            report(location, "\(what) has maxCount \(max); it must be at least 1.")
        }
        if let min = relationship.minCount, let max = relationship.maxCount, min > max {
            report(location, "\(what) has minCount \(min) greater than maxCount \(max).")
        }
    }

    private mutating func checkInverse(
        _ inverseName: String, of relationship: Relationship, in entity: Entity, destination: Entity, what: String
    ) {
        let location = relationship.location
        let intro = "\(what) names inverse \(inverseName), but"
        guard let inverse = destination.relationship(named: inverseName) else {
            if destination.attribute(named: inverseName) != nil {
                report(location, "\(intro) \(destination.name).\(inverseName) is an attribute, not a relationship.")
            } else if graph.relationship(inverseName, of: destination.name) != nil {
                report(location, "\(intro) \(destination.name) only inherits it; "
                    + "an inverse must be declared by the destination entity itself.")
            } else {
                report(location, "\(intro) entity \(destination.name) has no relationship \(inverseName).")
            }
            return
        }
        if inverse.destination != entity.name {
            report(location, "\(intro) \(destination.name).\(inverseName) points to \(inverse.destination), "
                + "not back to \(entity.name).")
        } else if inverse.inverse == nil {
            report(location, "\(intro) \(destination.name).\(inverseName) names no inverse; "
                + "both sides must name each other.")
        } else if inverse.inverse != relationship.name {
            report(location, "\(intro) \(destination.name).\(inverseName) names \(inverse.inverse!) as its inverse, "
                + "not \(relationship.name).")
        }
    }
}
