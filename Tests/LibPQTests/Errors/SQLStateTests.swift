import LibPQ
import Testing

@Suite struct SQLStateTests {
    @Test func classCodesMatchTheirWholeClass() {
        #expect(SQLState.integrityConstraintViolation.isClass)
        #expect(!SQLState.uniqueViolation.isClass)
        #expect(SQLState.uniqueViolation.errorClass == "23")
        #expect(SQLState.integrityConstraintViolation.matches(.uniqueViolation))
        #expect(SQLState.integrityConstraintViolation.matches("23P01"))
        #expect(!SQLState.integrityConstraintViolation.matches(.syntaxError))
        #expect(SQLState.uniqueViolation.matches(.uniqueViolation))
        #expect(!SQLState.uniqueViolation.matches(.integrityConstraintViolation))
        #expect(!SQLState.uniqueViolation.matches(.foreignKeyViolation))
    }

    @Test func matchesInASwitchOverAState() {
        func name(_ state: SQLState) -> String {
            switch state {
            case .uniqueViolation: return "unique"
            case .integrityConstraintViolation: return "integrity"
            case .transactionRollback: return "retry"
            default: return "other"
            }
        }
        #expect(name("23505") == "unique")
        #expect(name("23503") == "integrity")
        #expect(name("40001") == "retry")
        #expect(name("40P01") == "retry")
        #expect(name("42601") == "other")
    }

    @Test func matchesErrors() {
        var error = PQError(kind: .server, message: "boom", sqlState: .serializationFailure)
        #expect(SQLState.serializationFailure ~= error as any Error)
        #expect(SQLState.transactionRollback ~= error as any Error)
        #expect(!(SQLState.deadlockDetected ~= error as any Error))
        error.sqlState = nil
        #expect(!(SQLState.transactionRollback ~= error as any Error))
        struct Other: Error {}
        #expect(!(SQLState.transactionRollback ~= Other() as any Error))
    }

    @Test func describesItselfByCode() {
        #expect(SQLState.queryCanceled.description == "57014")
        #expect(SQLState(rawValue: "XX000") == "XX000")
    }
}
