/// What happens to the destination of a relationship when its source object is deleted (Core Data's
/// `NSDeleteRule`).
///
/// In the relational layer a rule becomes the `ON DELETE` action of the foreign key that points at the
/// relationship's *source* entity, i.e. the foreign key held by its inverse: `Recipe.ingredients` with
/// `cascade` makes `recipe_ingredient.recipe_id … ON DELETE CASCADE`.
public enum DeleteRule: String, CaseIterable, Hashable, Sendable, Codable {
    /// Clear the reference to the deleted object (`ON DELETE SET NULL`). The default.
    case nullify
    /// Delete the objects at the destination too (`ON DELETE CASCADE`).
    case cascade
    /// Refuse the deletion while the relationship is not empty (`ON DELETE RESTRICT`).
    case deny
    /// Do nothing; the database checks the reference at the end of the statement (`ON DELETE NO ACTION`).
    case noAction

    /// The foreign-key action that implements this rule.
    public var referentialAction: ReferentialAction {
        switch self {
        case .nullify: .setNull
        case .cascade: .cascade
        case .deny: .restrict
        case .noAction: .noAction
        }
    }
}
