/// A test's own failure: a fixture that did not set up, a query that returned nothing.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
