import LibPQ
import Testing

@Suite struct ConnectionStringTests {
    @Test func redactsThePasswordInAURI() {
        let redacted = ConnectionString.redacted("postgres://alice:s3cr3t@db.example.com:5432/app")
        #expect(redacted == "postgres://alice:***@db.example.com:5432/app")
    }

    @Test func redactsThePasswordQueryParameter() {
        let redacted = ConnectionString.redacted("postgresql://alice@db.example.com/app?sslmode=require&password=s3cr3t")
        #expect(redacted == "postgresql://alice@db.example.com/app?sslmode=require&password=***")
    }

    @Test func redactsBothInOneURI() {
        let redacted = ConnectionString.redacted("postgres://alice:first%40secret@host/app?password=second-secret&application_name=x")
        #expect(!redacted.contains("secret"))
        #expect(redacted.contains("alice:***@host"))
        #expect(redacted.contains("application_name=x"))
    }

    @Test func uriWithoutPasswordIsUnchanged() {
        #expect(ConnectionString.redacted("postgres://alice@host:5433/app") == "postgres://alice@host:5433/app")
    }

    @Test func redactsKeyValueStrings() {
        #expect(ConnectionString.redacted("host=db user=alice password=s3cr3t dbname=app") == "user=alice password=*** dbname=app host=db")
        let quoted = ConnectionString.redacted("host=db password='my s3cr3t \\' pass' user=alice")
        #expect(!quoted.contains("s3cr3t"))
        #expect(!quoted.contains("pass'"))
        #expect(quoted.contains("password=***"))
        #expect(quoted.contains("user=alice"))
    }

    /// The redacted string is still a valid conninfo with the same values, except the password.
    @Test func redactedKeyValueStringsParseBackToTheSameValues() throws {
        let original = "host='/tmp/some dir' port=5999 options='-c\tsearch_path=x' application_name='it\\'s \\\\ here' password='a b' dbname=''"
        let redacted = ConnectionString.redacted(original)
        #expect(!redacted.contains("a b"))
        let parsedOriginal = try #require(ConnectionString.parse(original))
        let parsedRedacted = try #require(ConnectionString.parse(redacted), "\(redacted)")
        #expect(parsedRedacted.map(\.key) == parsedOriginal.map(\.key))
        #expect(parsedRedacted.map(\.value) == parsedOriginal.map { $0.key == "password" ? "***" : $0.value })
    }

    @Test func unparseableStringsAreNotPrinted() {
        #expect(ConnectionString.redacted("host='unterminated password=s3cr3t") == "<unparseable connection string>")
        #expect(ConnectionString.redacted("password=s3cr3t nonsense") == "<unparseable connection string>")
        #expect(!ConnectionString.redacted("postgres://alice:s3cr3t@h1:5432,h2:5433/app").contains("s3cr3t"))
        #expect(!ConnectionString.redacted("postgres://alice:s3cr3t@[::1/app").contains("s3cr3t"))
    }

    @Test func parsesKeywordsAndValues() throws {
        let options = try #require(ConnectionString.parse("host=/tmp port=5432 dbname='my db' user=alice"))
        let dictionary = Dictionary(uniqueKeysWithValues: options.map { ($0.key, $0.value) })
        #expect(dictionary == ["host": "/tmp", "port": "5432", "dbname": "my db", "user": "alice"])
        let uri = try #require(ConnectionString.parse("postgres://bob:pw@localhost:6543/shop?connect_timeout=3"))
        let fromURI = Dictionary(uniqueKeysWithValues: uri.map { ($0.key, $0.value) })
        #expect(fromURI == ["user": "bob", "password": "pw", "host": "localhost", "port": "6543", "dbname": "shop", "connect_timeout": "3"])
        #expect(ConnectionString.parse("not a conninfo") == nil)
        #expect(ConnectionString.parse("")?.isEmpty == true)
    }
}

/// ``ConnectionString/validate(_:)`` rejects, without quoting the string, what libpq's parser would
/// reject with a message that quotes it, and accepts what libpq accepts.
@Suite struct ConnectionStringValidationTests {
    @Test(arguments: [
        "postgres://alice:s3cr3t@db.example.com:5432/app",
        "postgresql://alice@h1:5432,h2,[::1]:5433/app?sslmode=disable&application_name=a%20b&",
        "postgres://%2Ftmp%2Fsockets:5432/app",
        "postgres://:pw@host",
        "postgres://",
        "postgres://alice:pa%25ss%40word@host/app?password=x%3Dy",
        "host=/tmp port=5432 password='a b' dbname=app",
        "",
    ])
    func acceptsWhatLibpqAccepts(_ conninfo: String) throws {
        #expect(ConnectionString.parse(conninfo) != nil)
        try ConnectionString.validate(conninfo)
    }

    @Test(arguments: [
        ("postgres://alice:s3cr3t%ZZ@host/app", "postgres://alice:***@host/app", "the password has a '%'"),
        ("postgres://alice:s3cr3t%0@host/app", "postgres://alice:***@host/app", "the password has a '%'"),
        ("postgres://alice:s3cr3t%00@host/app", "postgres://alice:***@host/app", "the password contains %00"),
        ("postgres://alice:s3cr3t@[::1:5432/app", "postgres://alice:***@[::1:5432/app", "no matching ']'"),
        ("postgres://alice:s3cr3t@[::1]x/app", "postgres://alice:***@[::1]x/app", "a ']' is followed by"),
        ("postgres://alice:s3cr3t@[]/app", "postgres://alice:***@[]/app", "empty IPv6"),
        ("postgres://alice:s3/cr3t@host/app", "postgres://alice:***@host/app", "the database name contains '@'"),
        ("postgres://alice:s3@cr3t@host/app", "postgres://alice:***@host/app", "a host contains '@'"),
        ("postgres://alice@host/app?password=s3cr3t=", "postgres://alice@host/app?password=***", "more than one '='"),
        ("postgres://alice@host/app?s3cr3t", "postgres://alice@host/app?***", "has no '='"),
        ("postgres://alice@host/app?password=s3cr3t%G1", "postgres://alice@host/app?password=***", "a query parameter has a '%'"),
    ])
    func rejectsAMalformedURIShowingItRedacted(_ uri: String, _ redacted: String, _ problem: String) {
        #expect(!ConnectionString.redacted(uri).contains("cr3t"))
        do {
            try ConnectionString.validate(uri)
            Issue.record("\(uri) must be rejected")
        } catch {
            let message = "\(error)"
            #expect(message.contains("invalid connection URI \(redacted): "), "\(message)")
            #expect(message.contains(problem), "\(message)")
            #expect(!message.contains("cr3t"))
        }
    }

    @Test func rejectsAMalformedConninfoWithoutQuotingIt() {
        for conninfo in ["password=s3 cr3t host=x", "host=x password='s3cr3t", "password=s3 cr3t=x"] {
            #expect(throws: PQError.self) { try ConnectionString.validate(conninfo) }
            do { try ConnectionString.validate(conninfo) } catch { #expect(!"\(error)".contains("cr3t"), "\(error)") }
        }
    }

    /// Issue 22: a password pasted into DATABASE_URL by mistake is neither a URI nor key=value,
    /// and libpq's message quotes it (`missing "=" after "…"`): nothing of the string is shown.
    @Test(arguments: ["hunter2-Secret", "Tr0ub4dor &3 horse", "abc=def ghi", "'quoted secret", "host=x s3cr3t"])
    func aStringThatIsNotConninfoIsNeverEchoed(_ conninfo: String) {
        do {
            try ConnectionString.validate(conninfo)
            Issue.record("\(conninfo) must be rejected")
        } catch {
            let message = "\(error)"
            #expect(message.hasPrefix("invalid connection string: ") || message.contains("invalid connection string: "), "\(message)")
            let words = conninfo.split(whereSeparator: { " ='".contains($0) }).filter { $0.count > 1 && $0 != "host" }
            for word in words { #expect(!message.contains(word), "\(message) quotes \(word)") }
        }
        #expect(ConnectionString.redacted(conninfo) == "<unparseable connection string>")
    }

    @Test func scrubsEveryFormOfThePassword() {
        let uri = "postgres://alice:pa%25ss@host/app?password=other"
        #expect(Set(ConnectionString.secrets(in: uri)) == ["other", "pa%25ss", "pa%ss"])
        #expect(ConnectionString.scrubbing("token \"pa%25ss\" or pa%ss or other", secretsOf: uri) == "token \"***\" or *** or ***")
        #expect(ConnectionString.scrubbing("failed for s3cr3t", secretsOf: "host=h password=s3cr3t") == "failed for ***")
    }
}
