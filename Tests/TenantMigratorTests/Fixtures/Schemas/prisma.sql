-- A Prisma 5 application's schema as `prisma migrate deploy` leaves it on PostgreSQL (written for
-- TenantMigrator's tests, in the form of the `migration.sql` files Prisma writes): quoted PascalCase
-- tables and camelCase columns, `SERIAL` ids and `TEXT` ids whose cuid() the client makes,
-- `TIMESTAMP(3)` with `DEFAULT CURRENT_TIMESTAMP` and an `updatedAt` the client sets, enums as
-- `CREATE TYPE "Role" AS ENUM`, `DECIMAL(65,30)`, `JSONB`, `TEXT[]`, unique indexes named
-- `<Table>_<column>_key`, foreign keys `<Table>_<column>_fkey` with `ON DELETE RESTRICT ON UPDATE
-- CASCADE` (or `SET NULL`, or `CASCADE`) and no index, Prisma's own `_prisma_migrations`, and the
-- implicit many-to-many table `_CategoryToPost` with columns `A` and `B`, a unique index `_AB_unique`
-- and an index `_B_index`. The schema is named prisma_app (`?schema=prisma_app` in the URL).
CREATE SCHEMA prisma_app;
SET search_path = prisma_app;

CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
);

-- 20240610120000_init/migration.sql
-- CreateEnum
CREATE TYPE "Role" AS ENUM ('READER', 'AUTHOR', 'ADMIN');

-- CreateTable
CREATE TABLE "User" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "displayName" TEXT,
    "role" "Role" NOT NULL DEFAULT 'READER',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Profile" (
    "id" SERIAL NOT NULL,
    "bio" TEXT,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "userId" INTEGER NOT NULL,

    CONSTRAINT "Profile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Post" (
    "id" TEXT NOT NULL,
    "title" VARCHAR(200) NOT NULL,
    "content" TEXT,
    "published" BOOLEAN NOT NULL DEFAULT false,
    "tags" TEXT[],
    "price" DECIMAL(65,30),
    "authorId" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Post_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Category" (
    "id" SERIAL NOT NULL,
    "name" VARCHAR(64) NOT NULL,

    CONSTRAINT "Category_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "_CategoryToPost" (
    "A" INTEGER NOT NULL,
    "B" TEXT NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "Profile_userId_key" ON "Profile"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "Category_name_key" ON "Category"("name");

-- CreateIndex
CREATE UNIQUE INDEX "_CategoryToPost_AB_unique" ON "_CategoryToPost"("A", "B");

-- CreateIndex
CREATE INDEX "_CategoryToPost_B_index" ON "_CategoryToPost"("B");

-- AddForeignKey
ALTER TABLE "Profile" ADD CONSTRAINT "Profile_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Post" ADD CONSTRAINT "Post_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "_CategoryToPost" ADD CONSTRAINT "_CategoryToPost_A_fkey" FOREIGN KEY ("A") REFERENCES "Category"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "_CategoryToPost" ADD CONSTRAINT "_CategoryToPost_B_fkey" FOREIGN KEY ("B") REFERENCES "Post"("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "started_at", "applied_steps_count") VALUES
    ('7f3c2b1a-0e9d-4c8b-a7f6-5e4d3c2b1a09', 'b1946ac92492d2347c6235b4d2611184b1946ac92492d2347c6235b4d261118', '2024-06-10 12:00:01.250+00',
     '20240610120000_init', '2024-06-10 12:00:00.900+00', 1);
INSERT INTO "User" ("email", "displayName", "role", "updatedAt") VALUES ('noor@example.org', 'Noor', 'AUTHOR', '2024-06-11 08:00:00.000'), ('lee@example.org', NULL, 'READER', '2024-06-11 08:05:00.000');
INSERT INTO "Profile" ("bio", "settings", "userId") VALUES ('Writes about bread.', '{"theme": "dark"}', 1);
INSERT INTO "Post" ("id", "title", "content", "published", "tags", "price", "authorId", "updatedAt") VALUES
    ('clx0a1b2c0000qz8h3k9f2d1e', 'Sourdough at Home', 'Flour, water, salt.', true, '{bread,baking}', 4.990000000000000000000000000000, 1, '2024-06-12 09:00:00.000'),
    ('clx0a1b2c0001qz8hm4n7p6r5', 'Draft', NULL, false, NULL, NULL, 1, '2024-06-12 09:30:00.000');
INSERT INTO "Category" ("name") VALUES ('Baking'), ('Home');
INSERT INTO "_CategoryToPost" ("A", "B") VALUES (1, 'clx0a1b2c0000qz8h3k9f2d1e'), (2, 'clx0a1b2c0000qz8h3k9f2d1e');
RESET search_path;
