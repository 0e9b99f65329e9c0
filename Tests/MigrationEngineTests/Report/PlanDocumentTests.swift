import EntityModel
import Foundation
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import Testing
#if canImport(FoundationXML)
import FoundationXML
import TypedSQL
#endif

/// The visual plan: `plan --format markdown|html` and `check --format html`.
struct PlanDocumentTests {
    static func recipesPlanner() throws -> MigrationPlanner {
        let family = try ModelFamily.load(from: PackagePaths.migrationFamily("Recipes"))
        return MigrationPlanner(family: family, mappings: try MappingModel.loadAll(for: family, policies: RecipesPolicies.registry),
                                hooks: RecipesPolicies.registry)
    }

    /// The HTML of Recipes v2 → v3 holds a row for every entry of the step's account, with its fate
    /// and what is responsible, and needs nothing from the network: with Graphviz (inline SVG) and
    /// without (Mermaid source).
    @Test func theHTMLPlanOfRecipesV2ToV3HoldsTheAccountAndNeedsNoNetwork() throws {
        let plan = try Self.recipesPlanner().plan(from: "v2", to: "v3")
        let account = try #require(plan.steps.first).account
        #expect(account.entries.count >= 10)
        guard let graphviz = Graphviz.onPath() else {
            Issue.record("Graphviz is not installed (no dot on PATH): install the graphviz package (.ci/run does) to check the SVG diagrams")
            return
        }
        for graphviz in [graphviz, nil] {
            let html = PlanDocument(plan: plan, schema: "tenant_acme").html(graphviz: graphviz)
            let page = try HTMLPage(html)
            #expect(page.externalReferences == [], "the page fetches \(page.externalReferences)")
            #expect(page.elements.contains("svg") == (graphviz != nil))
            #expect(page.text(of: "pre").contains { $0.contains("erDiagram") } == (graphviz == nil))
            let rows = page.tableRows
            #expect(rows.count == account.entries.count)
            for entry in account.entries {
                let fate = switch entry.fate {
                case .carried: "carried"
                case .transformed: "transformed"
                case let .destroyed(change): change.table.isEmpty ? "lost" : "archived"
                }
                #expect(rows.contains { $0[0] == entry.item.description && $0[1] == fate }, "no row \(entry.item.description) \(fate)")
            }
            #expect(rows.contains { $0[0] == "column recipe.type (Recipe.type) in the rows mapping MeatAndFishToEntree selects (type IN ('Meat', 'Fish'))" && $0[1] == "transformed"
                && $0[3] == "policy RecipeTypeToEntree" })
            #expect(rows.contains { $0[0] == "column recipe.name (Recipe.name)" && $0[1] == "carried" && $0[2] == "to recipe.name"
                && $0[3] == "Recipes/Mappings/v2-to-v3.yaml" })
            #expect(rows.contains { $0[1] == "archived" && $0[0].hasPrefix("column recipe_ingredient.unit_of_measure") })
            // The SQL, folded away (and the rows the account names in words, as SQL).
            #expect(page.text(of: "summary").filter { !$0.hasPrefix("Which rows, as SQL") } == ["SQL (\(plan.steps[0].describe(inSchema: "tenant_acme", quoting: .postgreSQL).count) statements)"])
            #expect(page.text(of: "pre").contains { $0.contains("ALTER TABLE \"tenant_acme\".\"recipe_ingredient\" DROP COLUMN \"name\";") })
        }
    }

    @Test func theMarkdownPlanDrawsEachStepWithItsChangesMarked() throws {
        let plan = try Self.recipesPlanner().plan(from: "v1", to: "v3")
        let markdown = PlanDocument(plan: plan, schema: "<tenant schema>").markdown()
        #expect(markdown.hasPrefix("# Recipes: v1 → v3\n"))
        #expect(markdown.contains("## Step 1 of 2: v1 → v2: inferred\n"))
        #expect(markdown.contains("## Step 2 of 2: v2 → v3: mapped by Recipes/Mappings/v2-to-v3.yaml\n"))
        #expect(markdown.contains("- Recipe.method renamed from instructions\n"))
        #expect(markdown.contains("- entity Ingredient added\n"))
        #expect(markdown.contains("| column recipe.instructions (Recipe.instructions) | **carried** | to recipe.method | inferred |"))
        let diagrams = markdown.components(separatedBy: "```mermaid\n").dropFirst().map { $0.components(separatedBy: "```\n")[0] }
        #expect(diagrams.count == 2)
        for diagram in diagrams { #expect(MermaidERSyntax.problems(in: diagram) == []) }
        #expect(markdown.contains("<details><summary>SQL ("))
    }

    /// The document is the plan's JSON too (`plan --json`): the plan's facts and each step's, in
    /// the keys the command line has always printed, and none of the prose or diagrams.
    @Test func theDocumentsJSONHoldsThePlanAndItsSteps() throws {
        let plan = try Self.recipesPlanner().plan(from: "v3", to: "v2")
        let document = PlanDocument(plan: plan, tenant: "acme", schema: "tenant_acme", givenBack: [])
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(document)) as? [String: Any])
        #expect(Set(json.keys) == ["tenant", "schema", "family", "source", "destination", "direction", "steps", "givenBack"])
        #expect(json["tenant"] as? String == "acme" && json["direction"] as? String == "down" && (json["givenBack"] as? [Any])?.isEmpty == true)
        let step = try #require((json["steps"] as? [[String: Any]])?.first)
        #expect(Set(step.keys) == ["title", "source", "destination", "versions", "statements", "destructiveChanges",
                                   "dataDependentLosses", "archived", "lost", "online"])
        #expect(step["title"] as? String == plan.steps[0].description)
        #expect((step["statements"] as? [String]) == plan.steps[0].describe(inSchema: "tenant_acme"))
        #expect((step["lost"] as? [Any])?.count == plan.steps[0].account.lostChanges(archiving: true).count)

        // Without a tenant: no tenant and no givenBack keys.
        let offline = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(PlanDocument(plan: plan, schema: "s"))) as? [String: Any])
        #expect(Set(offline.keys) == ["schema", "family", "source", "destination", "direction", "steps"])
    }

    /// `check --format html`: every adjacent pair both ways, an impossible one with its reasons.
    @Test func theCheckDocumentCoversEveryAdjacentPair() throws {
        let recipes = PlanDocument(checking: try Self.recipesPlanner())
        #expect(recipes.sections.map(\.heading) == ["v1 → v2", "v2 → v1", "v2 → v3", "v3 → v2"])
        #expect(recipes.sections.map(\.resolution) == [
            "inferred", "inferred", "mapped by Recipes/Mappings/v2-to-v3.yaml", "mapped by Recipes/Mappings/v3-to-v2.yaml",
        ])
        #expect(recipes.sections.allSatisfy { !$0.rows.isEmpty && !$0.statements.isEmpty && $0.problems.isEmpty })

        let strict = try ModelFamily.load(from: PackagePaths.root.appendingPathComponent("Tests/TenantMigratorTests/Fixtures/Strict"))
        let document = PlanDocument(checking: MigrationPlanner(family: strict))
        let impossible = try #require(document.sections.first { $0.resolution == "IMPOSSIBLE" })
        #expect(!impossible.problems.isEmpty)
        let page = try HTMLPage(document.html(graphviz: Graphviz.onPath()))
        #expect(page.text(of: "li").contains(impossible.problems[0]))
        #expect(page.externalReferences == [])
    }

    /// The reader that proves "no network" does see what a page would fetch.
    @Test func aPageThatFetchesIsCaught() throws {
        let page = try HTMLPage("""
            <html><head><link rel="stylesheet" href="https://cdn.example/x.css"/><style>@import "a.css";</style></head>
            <body><script src="https://cdn.example/mermaid.js"></script><a href="#top">top</a><div style="background: url(x.png)"></div></body></html>
            """)
        #expect(page.externalReferences == ["<link>", "href=https://cdn.example/x.css", "style url()", "<script>", "src=https://cdn.example/mermaid.js", "style url()"])
    }
}

/// An HTML page read as XML (the documents are well-formed): its elements, the text of some, its
/// table rows, and every reference to something outside the page.
private struct HTMLPage {
    var elements: Set<String> = []
    var texts: [(element: String, text: String)] = []
    var tableRows: [[String]] = []
    var externalReferences: [String] = []

    init(_ html: String) throws {
        let parser = XMLParser(data: Data(html.utf8))
        let reader = Reader()
        parser.delegate = reader
        guard parser.parse() else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "not well-formed at line \(parser.lineNumber): \(String(describing: parser.parserError))"]) }
        self = reader.page
    }

    func text(of element: String) -> [String] { texts.filter { $0.element == element }.map(\.text) }

    private final class Reader: NSObject, XMLParserDelegate {
        var page = HTMLPage(empty: ())
        private var stack: [(name: String, text: String)] = []
        private var row: [String]?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            page.elements.insert(name)
            if ["script", "link", "img", "iframe", "object", "embed", "image", "use", "base"].contains(name.lowercased()) {
                page.externalReferences.append("<\(name)>")
            }
            for (key, value) in attributes where ["src", "href", "xlink:href", "action", "data", "srcset"].contains(key.lowercased()) && !value.hasPrefix("#") {
                page.externalReferences.append("\(key)=\(value)")
            }
            if attributes["style"]?.contains("url(") == true { page.externalReferences.append("style url()") }
            if name == "tr" { row = [] }
            stack.append((name, ""))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            for index in stack.indices { stack[index].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard let element = stack.popLast() else { return }
            page.texts.append((name, element.text))
            if name == "style", element.text.contains("url(") || element.text.contains("@import") { page.externalReferences.append("style url()") }
            if name == "td" { row?.append(element.text) }
            if name == "tr", let finished = row {
                if !finished.isEmpty { page.tableRows.append(finished) }
                row = nil
            }
        }
    }

    private init(empty: Void) {}
}
