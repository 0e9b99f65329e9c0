import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One `.xcdatamodel/contents` file as written: every element the importer reads, with its XML
/// attributes and the line it starts on, in document order. The meaning is given by
/// ``CoreDataModelConverter``.
struct CoreDataXML: Sendable {
    /// An XML element: its name, attributes, line and children.
    struct Element: Sendable {
        var name: String
        var attributes: [String: String]
        var line: Int
        var children: [Element] = []

        func children(named name: String) -> [Element] { children.filter { $0.name == name } }

        /// `YES` is true; anything else (or nothing) false.
        func flag(_ attribute: String) -> Bool { attributes[attribute] == "YES" }
    }

    /// The `<model>` element.
    var root: Element

    /// How deep elements may nest. Core Data writes five levels at most (`model`, `entity`,
    /// `uniquenessConstraints`, `uniquenessConstraint`, `constraint`); a file nested far deeper is
    /// not Core Data's, and its tree, torn down recursively, would overflow the stack.
    static let maximumDepth = 64

    /// Parses `data` (the text of a `contents` file).
    ///
    /// - Throws: ``CoreDataImportError/unreadable(file:line:reason:)`` naming `file` and the line
    ///   where the XML is broken, where elements nest deeper than ``maximumDepth``, or when the
    ///   root is not `<model>`.
    static func parse(_ data: Data, file: String) throws(CoreDataImportError) -> CoreDataXML {
        let parser = XMLParser(data: data)
        let builder = TreeBuilder()
        parser.delegate = builder
        let parsed = parser.parse()
        if let line = builder.tooDeepAtLine {
            throw CoreDataImportError.unreadable(file: file, line: line, reason:
                "elements are nested more than \(maximumDepth) deep; a Core Data model nests at most a few levels")
        }
        guard parsed, let root = builder.root else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "not XML"
            throw CoreDataImportError.unreadable(file: file, line: parser.lineNumber, reason: "the XML does not parse: \(reason)")
        }
        guard root.name == "model" else {
            throw CoreDataImportError.unreadable(file: file, line: root.line, reason: "the root element is <\(root.name)>, not a Core Data <model>")
        }
        return CoreDataXML(root: root)
    }
}

/// Builds the element tree while `XMLParser` reads, and stops the parser at the first element
/// nested deeper than ``CoreDataXML/maximumDepth``.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [CoreDataXML.Element] = []
    private(set) var root: CoreDataXML.Element?
    /// The line of the element that went too deep, if one did.
    private(set) var tooDeepAtLine: Int?

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        guard tooDeepAtLine == nil else { return }
        guard stack.count < CoreDataXML.maximumDepth else {
            tooDeepAtLine = parser.lineNumber
            parser.abortParsing()
            return
        }
        stack.append(CoreDataXML.Element(name: elementName, attributes: attributes, line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard tooDeepAtLine == nil, let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }
}
