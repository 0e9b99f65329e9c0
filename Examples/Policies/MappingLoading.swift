import EntityModel
import MigrationEngine

/// Below the facade: the family's mapping models, one of them replaced by `text`, handed to a
/// planner by hand.
public func makePlanner(family: ModelFamily, policies: PolicyRegistry, v2ToV3 text: String) throws -> MigrationPlanner {
    let mappings = try MappingModel.loadAll(for: family, policies: policies)   // every Mappings/*.yaml
    let one = try MappingModel.load(yaml: text, file: "Recipes/Mappings/v2-to-v3.yaml", family: family, policies: policies)
    let planner = MigrationPlanner(family: family, mappings: mappings.filter { $0.file != one.file } + [one], hooks: policies)
    return planner
}
