import Logging

extension Logger {
    /// A logger for `label` that lets only errors through: fleet runs log a line per tenant at info.
    public static func quiet(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .error
        return logger
    }
}
