import Foundation

extension Duration {
    /// A duration as the commands print it: milliseconds below a second (`850 ms`), seconds to
    /// one decimal below a minute (`12.3 s`), then minutes and seconds (`3 min 20 s`).
    var commandLineText: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        return "\(whole / 60) min \(whole % 60) s"
    }
}
