import EntityModel
import MigrationEngine

extension OnlinePreconditions {
    /// Why a tenant whose tables are keyed otherwise than by integers does not migrate online
    /// (``MigrationPlan/onlineKeyRefusal``).
    var keyRefusal: String? { plan.onlineKeyRefusal }
}
