import Foundation

/// Rows printed as an aligned text table on stdout, a whole line at a time, as the commands print
/// them (for a runner's own commands too).
public enum TextTable {
    /// Prints `header` and `rows`, each column as wide as its widest cell; the last column is not padded.
    public static func print(_ header: [String], _ rows: [[String]], indent: String = "") {
        print(header, rows, indent: indent, styles: [:])
    }

    /// The same, with a style (a colour on a terminal) applied to the cells of some columns, by
    /// column index; widths are measured without it.
    static func print(_ header: [String], _ rows: [[String]], indent: String = "", styles: [Int: (String) -> String]) {
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String], styled: Bool) -> String {
            cells.enumerated().map { index, cell in
                let padded = index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                guard styled, let style = styles[index] else { return padded }
                // Style the text, not the padding.
                return style(cell) + String(padded.dropFirst(cell.count))
            }.joined(separator: "  ")
        }
        Console.line(indent + line(header, styled: false))
        rows.forEach { Console.line(indent + line($0, styled: true)) }
    }

    /// `text` on one line for a table cell: line breaks as spaces, and when longer than `limit`
    /// characters, cut at the last space before it and marked `…` (never mid-word).
    static func cut(_ text: String, at limit: Int) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        guard flat.count > limit else { return flat }
        let head = flat.prefix(limit)
        let words = head.lastIndex(of: " ").map { head[..<$0] } ?? head
        return words.trimmingCharacters(in: .whitespaces) + " …"
    }
}
