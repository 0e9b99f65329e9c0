import Foundation

/// Rows printed as an aligned text table on stdout, as the commands print them (for a runner's
/// own commands too).
public enum TextTable {
    /// Prints `header` and `rows`, each column as wide as its widest cell; the last column is not padded.
    public static func print(_ header: [String], _ rows: [[String]], indent: String = "") {
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        Swift.print(indent + line(header))
        rows.forEach { Swift.print(indent + line($0)) }
    }
}
