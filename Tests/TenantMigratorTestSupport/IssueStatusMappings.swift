/// The mapping models of an Issue whose status becomes a Status of its own, one per distinct
/// status (`distinct: source.status`), and back: the status filled again from the link. Shared
/// by the families whose v1 has `Issue.status` and whose v2 has `Issue.status → Status.name`
/// (an enum key, a text key drawn from a kept sequence).
public enum IssueStatusMappings {
    /// v1 → v2: a Status per distinct status, from its first issue; each issue linked to its own.
    public static let up = """
        source: v1
        destination: v2
        entityMappings:
          - name: IssueToStatus
            source: Issue
            destination: Status
            distinct: "source.status"
            attributes:
              name: source.status
          - name: IssueToIssue
            source: Issue
            destination: Issue
            relationships:
              status: IssueToStatus
        """

    /// v2 → v1: each issue's status read back through its link.
    public static let down = """
        source: v2
        destination: v1
        entityMappings:
          - name: IssueToIssue
            source: Issue
            destination: Issue
            attributes:
              status: source.status.name
        """
}
