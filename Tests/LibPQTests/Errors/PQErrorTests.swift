import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct PQErrorTests {
    private static let schema = """
        CREATE TABLE account (
            id int PRIMARY KEY,
            email text NOT NULL CONSTRAINT account_email_key UNIQUE,
            age int CONSTRAINT account_age_check CHECK (age >= 0)
        );
        CREATE TABLE login (account_id int CONSTRAINT login_account_fkey REFERENCES account (id));
        INSERT INTO account VALUES (1, 'a@example.com', 30);
        """

    @Test func uniqueViolationCarriesStateConstraintAndTable() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript(Self.schema)
            let sql = "INSERT INTO account (id, email) VALUES ($1, $2)"
            let error = try expectPostgresError { try connection.execute(unsafeSQL: sql, [2, "a@example.com"]) }
            #expect(error.kind == .server)
            #expect(error.sqlState == .uniqueViolation)
            #expect(error.sqlState?.rawValue == "23505")
            #expect(error.severity == "ERROR")
            #expect(error.constraint == "account_email_key")
            #expect(error.table == "account")
            #expect(error.schema == "public")
            #expect(error.statement == sql)
            #expect(error.message == "duplicate key value violates unique constraint \"account_email_key\"")
            #expect(error.detail == "Key (email)=(a@example.com) already exists.")
            #expect(error.description.hasPrefix("ERROR 23505: duplicate key value"))
            #expect(error.description.contains("(table public.account, constraint account_email_key)"))
            #expect(error.description.contains("\nDETAIL: Key (email)=(a@example.com) already exists."))
            // The connection is still usable, outside any transaction.
            #expect(try connection.scalar("SELECT count(*) FROM account", as: Int.self) == 1)
        }
    }

    @Test func catchesByExactState() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript(Self.schema)
            var caught = "nothing"
            do {
                try connection.execute("INSERT INTO account VALUES (1, 'other@example.com', 1)")
            } catch SQLState.foreignKeyViolation {
                caught = "foreign key"
            } catch SQLState.uniqueViolation {
                caught = "unique"
            } catch {
                caught = "other: \(error)"
            }
            #expect(caught == "unique")
        }
    }

    @Test func catchesByClass() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript(Self.schema)
            func classify(_ sql: String) -> String {
                do {
                    try connection.execute(unsafeSQL: sql)
                    return "ok"
                } catch SQLState.uniqueViolation {
                    return "unique"
                } catch SQLState.integrityConstraintViolation {
                    return "integrity"
                } catch SQLState.syntaxErrorOrAccessRuleViolation {
                    return "syntax"
                } catch {
                    return "other"
                }
            }
            #expect(classify("INSERT INTO account VALUES (1, 'x', 1)") == "unique")
            #expect(classify("INSERT INTO account VALUES (2, NULL, 1)") == "integrity")
            #expect(classify("INSERT INTO account VALUES (2, 'b', -1)") == "integrity")
            #expect(classify("INSERT INTO login VALUES (99)") == "integrity")
            #expect(classify("SELECT * FROM no_such_table") == "syntax")
            #expect(classify("SELECT 1/0") == "other")
            #expect(classify("INSERT INTO account VALUES (2, 'b', 1)") == "ok")
        }
    }

    @Test func constraintViolationsNameTheirColumnAndConstraint() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript(Self.schema)
            let notNull = try expectPostgresError { try connection.execute("INSERT INTO account VALUES (2, NULL, 1)") }
            #expect(notNull.sqlState == .notNullViolation)
            #expect(notNull.column == "email")
            #expect(notNull.table == "account")

            let check = try expectPostgresError { try connection.execute("INSERT INTO account VALUES (2, 'b', -1)") }
            #expect(check.sqlState == .checkViolation)
            #expect(check.constraint == "account_age_check")

            let foreignKey = try expectPostgresError { try connection.execute("INSERT INTO login VALUES (99)") }
            #expect(foreignKey.sqlState == .foreignKeyViolation)
            #expect(foreignKey.constraint == "login_account_fkey")
            #expect(foreignKey.table == "login")
        }
    }

    @Test func syntaxErrorCarriesStateAndPosition() async throws {
        try await TestPostgres.withDatabase { connection in
            let sql = "SELECT 1 FROM account WHERE id = 1 ORDER id"
            let error = try expectPostgresError { try connection.execute(unsafeSQL: sql) }
            #expect(error.kind == .server)
            #expect(error.sqlState == .syntaxError)
            #expect(error.sqlState?.rawValue == "42601")
            #expect(error.message == "syntax error at or near \"id\"")
            let position = try #require(error.position)
            #expect(position == 42)
            let character = sql[sql.index(sql.startIndex, offsetBy: position - 1)...]
            #expect(character.hasPrefix("id"))
            #expect(error.statement == sql)
        }
    }

    @Test func scriptErrorsAreServerErrorsToo() async throws {
        try await TestPostgres.withDatabase { connection in
            let error = try expectPostgresError { try connection.fixtureScript("CREATE TABLE t (a int); CREATE TABLE t (a int)") }
            #expect(error.sqlState == .duplicateTable)
            // The script is one implicit transaction: the first CREATE is rolled back too.
            #expect(try connection.scalar("SELECT to_regclass('t') IS NULL", as: Bool.self))
        }
    }

    @Test func raisedExceptionsCarryHintAndDetail() async throws {
        try await TestPostgres.withDatabase { connection in
            let error = try expectPostgresError {
                try connection.script("DO $$ BEGIN RAISE EXCEPTION 'tenant % broken', 42 USING DETAIL = 'the detail', HINT = 'the hint', ERRCODE = 'P0001'; END $$")
            }
            #expect(error.sqlState == .raiseException)
            #expect(error.message == "tenant 42 broken")
            #expect(error.detail == "the detail")
            #expect(error.hint == "the hint")
            #expect(error.context?.contains("PL/pgSQL") == true)
            #expect(error.description.hasSuffix("\nHINT: the hint"))
        }
    }
}
