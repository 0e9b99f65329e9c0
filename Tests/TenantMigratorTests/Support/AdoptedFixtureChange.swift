import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import Testing

/// A schema of `Fixtures/Schemas` (as Rails, Django, Prisma, Hibernate or a hand writes it) made
/// again under another name, and a v2 of the model imported from it that sends one of its tables
/// through an online run's shadow: a column's type widened (a rewrite; `allowsNarrowing` on both
/// versions for the way back), a column added with a check, and one dropped (archived on the way
/// up, given back on the way down). With the app's writes at each phase of the online run, on v1's
/// columns on the way up and on v2's on the way down (`S.` for the tenant's schema; ids the
/// sequences draw are the same in the online tenant and its offline twin, which gets the same writes).
struct AdoptedFixtureChange: Sendable, CustomTestStringConvertible {
    /// The fixture's file name without `.sql`.
    let fixture: String
    /// The schema the fixture makes.
    let schema: String
    /// Statements run in each tenant after the fixture (with `S.` for its schema): values the
    /// fixture leaves to the clock (`now()`, `statement_timestamp()`) set to one instant, so that
    /// two tenants made from it have the same rows; and grants, and comments on indexes and
    /// constraints, the swap must keep.
    let settle: [String]
    /// v1 (the import) as the family carries it: `(text, replacement)` pairs.
    let v1: [(String, String)]
    /// v2, from v1 as the family carries it: `(text, replacement)` pairs.
    let v2: [(String, String)]
    let writesUp: [OnlinePhase: [String]]
    let writesDown: [OnlinePhase: [String]]
    /// The tables keyed otherwise than by integers (online runs log their keys' text, docs/Online.md,
    /// "Keys"; they refused such a tenant while they logged keys as `int8[]`), nil when none is.
    var keyedOtherwise: String? = nil
    /// Statements (with `S.` for the schema) that drop those tables, and the foreign keys to them:
    /// the rest of the fixture then migrates online. Empty when the change is on such a table.
    var setAside: [String] = []
    /// What differs, online against offline, in the whole case with those tables set aside: nil when nothing.
    var knownIssue: String? = nil
    /// What differs, online against offline, in the whole case (no table set aside): nil when nothing.
    var onlineIssue: String? = nil
    /// How the case is named where the fixture's name does not say it.
    var name: String? = nil

    var testDescription: String { name ?? fixture }

    /// The fixture's SQL, making schema `name` instead of its own.
    func sql(inSchema name: String) throws -> String {
        var text = try String(
            contentsOf: PackagePaths.root.appendingPathComponent("Tests/TenantMigratorTests/Fixtures/Schemas/\(fixture).sql"), encoding: .utf8)
        for form in ["CREATE SCHEMA ", "create schema ", "SET search_path = ", "set search_path = "] {
            text = text.replacingOccurrences(of: "\(form)\(schema);", with: "\(form)\(name);")
        }
        return text.replacingOccurrences(of: "\(schema).", with: "\(name).")
    }

    /// `text` with each of `edits` made; every edit must change it.
    static func edited(_ text: String, _ edits: [(String, String)]) throws -> String {
        try edits.reduce(text) { text, edit in
            guard text.contains(edit.0) else { throw EditMissed(text: edit.0) }
            return text.replacingOccurrences(of: edit.0, with: edit.1)
        }
    }

    struct EditMissed: Error, CustomStringConvertible {
        let text: String
        var description: String { "the imported model has no \(text)" }
    }

    static let all: [AdoptedFixtureChange] = [rails, django, prisma, hibernate, market]

    /// Rails: `volumes` (bigserial id, referenced by `checkouts` with an `fk_rails_…` key, unique
    /// and composite indexes named `index_volumes_on_…`).
    static let rails = AdoptedFixtureChange(
        fixture: "rails", schema: "rails_app",
        settle: ["branches", "volumes", "patrons", "checkouts"].map { "UPDATE S.\($0) SET created_at = '2024-04-01 12:00:00', updated_at = '2024-04-01 12:00:00'" }
            + ["GRANT SELECT, INSERT ON S.volumes TO PUBLIC", "COMMENT ON INDEX S.index_volumes_on_isbn IS 'One volume per ISBN'",
               "COMMENT ON CONSTRAINT fk_rails_0a1b2c3d4e ON S.volumes IS 'The branch that shelves it'"],
        v1: [("      pageCount: { type: int32, default: 0 }", "      pageCount: { type: int32, default: 0, allowsNarrowing: true }")],
        v2: [
            ("pageCount: { type: int32, default: 0, allowsNarrowing: true }", "pageCount: { type: int64, default: 0, allowsNarrowing: true, check: \"page_count >= 0\" }"),
            ("      lendable: { type: bool, default: true }\n", ""),
            ("      publishedOn: { type: pg.date, optional: true }\n", "      publishedOn: { type: pg.date, optional: true }\n      summary: { type: string, optional: true }\n"),
        ],
        writesUp: [
            .copying: ["INSERT INTO S.volumes (branch_id, title, isbn, price, page_count, lendable, created_at, updated_at) VALUES (1, 'Lichens', NULL, 12.50, 100, false, '2026-01-01', '2026-01-01')",
                       "UPDATE S.volumes SET page_count = 320, updated_at = '2026-01-02' WHERE id = 1"],
            .built: ["UPDATE S.volumes SET lendable = false WHERE id = 2",
                     "INSERT INTO S.checkouts (volume_id, patron_id, due_on, created_at, updated_at) VALUES (3, 1, '2026-02-01', '2026-01-01', '2026-01-01')"],
            .catchingUp: ["DELETE FROM S.volumes WHERE id = 2", "UPDATE S.volumes SET isbn = '978-0-00-000009-9' WHERE id = 3"],
        ],
        writesDown: [
            .copying: ["INSERT INTO S.volumes (branch_id, title, page_count, summary, created_at, updated_at) VALUES (2, 'Ferns', 77, 'green', '2026-03-01', '2026-03-01')"],
            .catchingUp: ["UPDATE S.volumes SET summary = 'grey' WHERE id = 1"],
        ],
        keyedOtherwise: "ar_internal_metadata (key character varying), schema_migrations (version character varying)",
        setAside: ["DROP TABLE S.ar_internal_metadata, S.schema_migrations"]
    )

    /// Django: `shop_product` (identity id, uuid, `_like` index with varchar_pattern_ops, a check,
    /// deferred foreign keys both ways) and `auth_user`, which deferred keys of three tables reference.
    static let django = AdoptedFixtureChange(
        fixture: "django", schema: "django_app",
        settle: ["UPDATE S.shop_product SET created = '2024-05-02 10:00:00+00'", "GRANT SELECT ON S.shop_product TO PUBLIC"],
        v1: [("      stock: { type: int32 }", "      stock: { type: int32, allowsNarrowing: true }")],
        v2: [
            ("stock: { type: int32, allowsNarrowing: true }", "stock: { type: int64, allowsNarrowing: true }"),
            ("      lastLogin: { type: date, optional: true }\n", ""),
            ("      created: { type: date, defaultExpression: \"statement_timestamp()\" }\n",
             "      created: { type: date, defaultExpression: \"statement_timestamp()\" }\n      discountPercent: { type: int16, default: 0, check: \"discount_percent >= 0\" }\n"),
        ],
        writesUp: [
            .copying: [#"INSERT INTO S.shop_product (public_id, name, slug, price, stock, attributes, created, owner_id) VALUES ('00000000-0000-4000-8000-000000000001', 'Chair', 'chair', 59.00, 4, '{}', '2026-01-01 00:00:00+00', 2)"#,
                       "UPDATE S.auth_user SET last_login = '2026-01-01 10:00:00+00' WHERE id = 2"],
            .built: ["UPDATE S.shop_product SET stock = stock + 10 WHERE slug = 'walnut-desk'",
                     "INSERT INTO S.auth_user (password, is_superuser, username, first_name, last_name, email, is_staff, is_active, date_joined, last_login) VALUES ('x', false, 'kai', 'Kai', 'Berg', 'kai@example.org', false, true, '2026-01-02 00:00:00+00', '2026-01-03 00:00:00+00')"],
            .catchingUp: ["DELETE FROM S.shop_review WHERE id = 1", "DELETE FROM S.shop_product WHERE slug = 'desk-lamp'",
                          "INSERT INTO S.shop_review (rating, body, posted, author_id, product_id) VALUES (4, 'Fine', '2026-01-04 00:00:00+00', 3, 1)"],
        ],
        writesDown: [
            .copying: [#"INSERT INTO S.shop_product (public_id, name, slug, price, stock, attributes, created, discount_percent) VALUES ('00000000-0000-4000-8000-000000000002', 'Shelf', 'shelf', 80.00, 2, '{}', '2026-02-01 00:00:00+00', 15)"#],
            .catchingUp: ["UPDATE S.shop_product SET discount_percent = 5 WHERE slug = 'chair'", "UPDATE S.auth_user SET first_name = 'Kay' WHERE username = 'kai'"],
        ],
        keyedOtherwise: "django_session (session_key character varying(40))",
        setAside: ["DROP TABLE S.django_session"]
    )

    /// Prisma: `Post` (a `TEXT` id, referenced by the implicit `_CategoryToPost` with cascading
    /// keys, its own key to `User` with `ON UPDATE CASCADE`) and `_prisma_migrations`.
    static let prisma = AdoptedFixtureChange(
        fixture: "prisma", schema: "prisma_app",
        settle: [#"UPDATE S."User" SET "createdAt" = '2024-06-11 08:00:00'"#, #"UPDATE S."Post" SET "createdAt" = '2024-06-12 09:00:00'"#,
                 #"GRANT SELECT ON S."Post" TO PUBLIC"#],
        v1: [("      appliedStepsCount: { type: int32, default: 0 }", "      appliedStepsCount: { type: int32, default: 0, allowsNarrowing: true }")],
        v2: [
            ("appliedStepsCount: { type: int32, default: 0, allowsNarrowing: true }", "appliedStepsCount: { type: int64, default: 0, allowsNarrowing: true }"),
            ("      content: { type: string, optional: true }\n", ""),
            ("      title: { type: \"character varying(200)\" }\n", "      title: { type: \"character varying(200)\" }\n      views: { type: int32, default: 0, check: \"views >= 0\" }\n"),
        ],
        writesUp: [
            .copying: [#"INSERT INTO S."Post" (id, title, content, published, "authorId", "createdAt", "updatedAt") VALUES ('clx0a1b2c0002new', 'Rye', 'More flour', true, 2, '2026-01-01', '2026-01-01')"#,
                       #"UPDATE S."Post" SET content = 'Flour, water, salt, time' WHERE id = 'clx0a1b2c0000qz8h3k9f2d1e'"#,
                       #"UPDATE S."_prisma_migrations" SET applied_steps_count = 2"#],
            .built: [#"INSERT INTO S."_CategoryToPost" ("A", "B") VALUES (1, 'clx0a1b2c0002new')"#],
            .catchingUp: [#"UPDATE S."User" SET id = 9 WHERE id = 1"#, #"DELETE FROM S."Category" WHERE name = 'Home'"#],
        ],
        writesDown: [
            .copying: [#"INSERT INTO S."Post" (id, title, published, "authorId", views, "createdAt", "updatedAt") VALUES ('clx0a1b2c0003down', 'Spelt', false, 9, 3, '2026-02-01', '2026-02-01')"#],
            .catchingUp: [#"UPDATE S."Post" SET views = 10 WHERE id = 'clx0a1b2c0002new'"#],
        ],
        keyedOtherwise: "Post (id text), _prisma_migrations (id character varying(36))",
        onlineIssue: "the app sets a User's id by hand past the serial sequence (UPDATE \"User\" SET id = 9, as in prisma users, an id "
            + "set by hand): online the cutover sets User_id_seq past it (9), offline it stays (2); the rows and the catalog are the same"
    )

    /// Prisma without `Post`, `_CategoryToPost` and `_prisma_migrations` (keyed by text): `User`
    /// (a serial id, the enum `Role` with a default, `TIMESTAMP(3)`, a unique index
    /// `User_email_key`), which `Profile` references with `ON DELETE CASCADE ON UPDATE CASCADE`,
    /// and `Role`, which gains a value.
    static let prismaUsers = AdoptedFixtureChange(
        fixture: "prisma", schema: "prisma_app",
        settle: prisma.settle + [#"GRANT SELECT, UPDATE ON S."User" TO PUBLIC"#],
        v1: [],
        v2: [
            ("  Role: [READER, AUTHOR, ADMIN]", "  Role: [READER, AUTHOR, EDITOR, ADMIN]"),
            ("      displayName: { type: string, optional: true, column: displayName }\n", ""),
            ("      email: { type: string }\n", "      email: { type: string }\n      karma: { type: int32, default: 0, check: \"karma >= 0\" }\n"),
        ],
        writesUp: [
            .copying: [#"INSERT INTO S."User" (email, "displayName", role, "createdAt", "updatedAt") VALUES ('ana@example.org', 'Ana', 'ADMIN', '2026-01-01', '2026-01-01')"#,
                       #"UPDATE S."User" SET "displayName" = 'Lee' WHERE email = 'lee@example.org'"#],
            .built: [#"INSERT INTO S."Profile" (bio, settings, "userId") VALUES ('Knits', '{}', 3)"#,
                     #"UPDATE S."Profile" SET settings = '{"theme": "light"}' WHERE "userId" = 1"#],
            .catchingUp: [#"UPDATE S."User" SET id = 0 WHERE id = 1"#, #"DELETE FROM S."User" WHERE email = 'lee@example.org'"#],
        ],
        writesDown: [
            .copying: [#"INSERT INTO S."User" (email, role, karma, "createdAt", "updatedAt") VALUES ('eve@example.org', 'AUTHOR', 5, '2026-02-01', '2026-02-01')"#],
            .catchingUp: [#"UPDATE S."User" SET karma = 7 WHERE email = 'ana@example.org'"#],
        ],
        keyedOtherwise: prisma.keyedOtherwise,
        setAside: [#"DROP TABLE S."_CategoryToPost", S."Post", S."_prisma_migrations""#],
        name: "prisma users"
    )

    /// ``prismaUsers`` with the app setting a user's id by hand past what `User_id_seq` gave out
    /// (`UPDATE "User" SET id = 9`): online, the cutover sets the swapped-in table's sequence past
    /// every id in use (docs/Online.md), offline it stays where it was, so the next user gets 10
    /// online and 4 offline.
    static let prismaUsersIDByHand: AdoptedFixtureChange = {
        let change = prismaUsers
        return AdoptedFixtureChange(
            fixture: change.fixture, schema: change.schema, settle: change.settle, v1: change.v1, v2: change.v2,
            writesUp: change.writesUp.merging([.catchingUp: [#"UPDATE S."User" SET id = 9 WHERE id = 1"#]]) { _, new in new },
            writesDown: change.writesDown, keyedOtherwise: change.keyedOtherwise, setAside: change.setAside,
            knownIssue: "an id the app set by hand past the serial sequence: online the sequence goes past it (User_id_seq 9, the next "
                + "user 10), offline it stays (3, the next user 4)",
            name: "prisma users, an id set by hand"
        )
    }()

    /// Hibernate: `title` (an application-given int8 id, a check, `UK…`/`FK…` names, referenced by
    /// the join table `title_genres` with a composite key and no index, by `review_note` and `loan`);
    /// v2 also renames `reader.active`, which has rights of its own (`UPDATE (email, active)`), to `enabled`.
    static let hibernate = AdoptedFixtureChange(
        fixture: "hibernate", schema: "jpa_app",
        settle: ["GRANT SELECT, UPDATE ON S.title TO PUBLIC", "GRANT SELECT (email), UPDATE (email, active) ON S.reader TO PUBLIC",
                 "COMMENT ON CONSTRAINT fk6d8b0f2h4j6l8n0p2r4t6v8x ON S.title IS 'Who publishes it'",
                 "COMMENT ON CONSTRAINT uk_9p0wq2e4r6t8y1u3i5o7a9sd ON S.title IS 'One title per ISBN'"],
        v1: [("      version: { type: int32 }\n    relationships:\n      genres:", "      version: { type: int32, allowsNarrowing: true }\n    relationships:\n      genres:")],
        v2: [
            ("      version: { type: int32, allowsNarrowing: true }\n    relationships:\n      genres:", "      version: { type: int64, allowsNarrowing: true }\n    relationships:\n      genres:"),
            ("      subtitle: { type: \"character varying(255)\", optional: true }\n", ""),
            ("      isbn: { type: \"character varying(255)\", optional: true, unique: true }\n",
             "      edition: { type: int16, optional: true, check: \"edition > 0\" }\n      isbn: { type: \"character varying(255)\", optional: true, unique: true }\n"),
            ("      active: { type: bool }\n", "      enabled: { type: bool, renamingIdentifier: active }\n"),
        ],
        writesUp: [
            .copying: ["insert into S.title (id, isbn, list_price, status, subtitle, title, version, publisher_id) values (51, '978-1-00-000003-3', 12.00, 'DRAFT', 'Vol 2', 'Mosses', 0, 51)",
                       "update S.title set subtitle = 'A Survey', version = version + 1 where id = 1"],
            .built: ["insert into S.title_genres (title_id, genre_id) values (51, 1)", "update S.title set status = 'RETIRED' where id = 2",
                     "insert into S.reader (active, email) values (false, 'ana@example.org')"],
            .catchingUp: ["delete from S.loan where title_id = 1", "insert into S.review_note (id, body, reader_id, title_id) values (2, 'Short', 51, 51)"],
        ],
        writesDown: [
            .copying: ["insert into S.title (id, status, title, version, edition) values (101, 'DRAFT', 'Ferns', 0, 2)"],
            .catchingUp: ["update S.title set edition = 3 where id = 51"],
        ]
    )

    /// The hand-written market: `customer` (every type, a serial id, a comment, an expression, a
    /// GIN, a partial descending and a varchar_pattern_ops index, a uuid default, an enum with a
    /// check, an `ON UPDATE CASCADE` key to `country`), which `"Order"` references with a deferred
    /// cascading key (deleting a customer deletes its orders).
    static let market = AdoptedFixtureChange(
        fixture: "market", schema: "market",
        settle: ["GRANT SELECT (email, visits) ON S.customer TO PUBLIC"],
        v1: [("      visits: { type: int32, default: 0 }", "      visits: { type: int32, default: 0, allowsNarrowing: true }")],
        v2: [
            ("visits: { type: int32, default: 0, allowsNarrowing: true }", "visits: { type: int64, default: 0, allowsNarrowing: true }"),
            ("      rating: { type: float, optional: true }\n", ""),
            ("      seenAt: { type: \"timestamp(3) without time zone\", optional: true }\n",
             "      seenAt: { type: \"timestamp(3) without time zone\", optional: true }\n      tier: { type: int16, default: 1, check: \"tier > 0\" }\n"),
        ],
        writesUp: [
            .copying: ["INSERT INTO S.customer (email, country_code, joined_at, public_id, visits, rating, pays_by, age) VALUES ('max@example.com', 'DE', '2026-01-01 00:00:00+00', '00000000-0000-4000-8000-00000000000c', 5, 3.5, 'card', 40)",
                       "UPDATE S.customer SET rating = 4.75, visits = visits + 1 WHERE email = 'jo@example.com'"],
            .built: [#"INSERT INTO S."Order" (id, customer_id, state, placed_at, ship_to, total) VALUES (3, 3, 'placed', '2026-01-02 10:00:00', 'CH', 12.50)"#,
                     "UPDATE S.customer SET nicknames = '{Maxi}' WHERE email = 'max@example.com'"],
            .catchingUp: [#"UPDATE S.customer SET preferences = '{"lang": "fr"}', last_ip = '198.51.100.7', lucky_numbers = '{1,NULL}' WHERE email = 'max@example.com'"#,
                          "DELETE FROM S.customer WHERE email = 'jo@example.com'"],
        ],
        writesDown: [
            .copying: ["INSERT INTO S.customer (email, country_code, joined_at, public_id, visits, tier, pays_by) VALUES ('zoe@example.com', 'DE', '2026-02-01 00:00:00+00', '00000000-0000-4000-8000-00000000000d', 7, 2, 'invoice')"],
            .catchingUp: ["UPDATE S.customer SET tier = 3 WHERE email = 'max@example.com'"],
        ],
        keyedOtherwise: "country (code character(2)), \"PromoCode\" (id uuid), schema_migrations (version character varying)",
        setAside: [#"DROP TABLE S."PromoCode", S.schema_migrations"#, "DROP TABLE S.country CASCADE"]
    )
}
