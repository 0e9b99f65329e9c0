-- A market's schema written by hand for TenantMigrator's tests (issue 34, "Must show"): one schema
-- that uses every feature the model carries. PostgreSQL's own types (date, time, timestamp with and
-- without time zone and with precision, varchar(n), char(n), numeric(p,s), smallint, integer,
-- bigint, real, double precision, uuid, json, jsonb, bytea, inet, interval, arrays), an enum and a
-- quoted enum, defaults that are expressions (now(), CURRENT_TIMESTAMP, gen_random_uuid(), a
-- sequence), ids that are serial, plain integer, identity (BY DEFAULT and ALWAYS) and uuid, a
-- natural and a composite primary key, a bookkeeping table (schema_migrations), foreign keys
-- DEFERRABLE INITIALLY DEFERRED and with ON DELETE / ON UPDATE actions, with and without an index,
-- checks per column and per table, a composite unique constraint and a composite unique index,
-- partial and expression indexes with a method and varchar_pattern_ops, checks and a partial index
-- that compare with enum values, names that need quotes, and comments. The rows follow the first INSERT. The schema is named market.
CREATE SCHEMA market;
SET search_path = market;

CREATE TYPE order_state AS ENUM ('cart', 'placed', 'shipped');
CREATE TYPE "PayMethod" AS ENUM ('card', 'invoice');
CREATE SEQUENCE order_number_seq START WITH 1000 INCREMENT BY 10;

CREATE TABLE schema_migrations (version varchar NOT NULL PRIMARY KEY, applied_at timestamp(6) without time zone NOT NULL DEFAULT now());

CREATE TABLE country (code char(2) PRIMARY KEY, name varchar(80) NOT NULL UNIQUE, vat_rate numeric(5,4) NOT NULL DEFAULT 0.19);
COMMENT ON TABLE country IS 'Countries the market ships to';

CREATE TABLE customer (
    id serial PRIMARY KEY,
    email varchar(255) NOT NULL,
    country_code char(2) NOT NULL REFERENCES country (code) ON UPDATE CASCADE,
    born date,
    joined_at timestamp with time zone NOT NULL DEFAULT now(),
    seen_at timestamp(3) without time zone,
    confirmed_at timestamp(0) with time zone,
    calls_from time,
    calls_until time(0) without time zone,
    trial interval DEFAULT '30 days',
    last_ip inet,
    public_id uuid NOT NULL DEFAULT gen_random_uuid(),
    nicknames text[] NOT NULL DEFAULT '{}',
    lucky_numbers integer[],
    preferences jsonb NOT NULL DEFAULT '{}',
    raw_signup json,
    avatar bytea,
    age smallint CHECK (age BETWEEN 0 AND 150),
    rating real,
    lifetime_value double precision NOT NULL DEFAULT 0,
    visits integer NOT NULL DEFAULT 0,
    points bigint NOT NULL DEFAULT 0,
    pays_by "PayMethod" NOT NULL DEFAULT 'card' CHECK (pays_by IN ('card', 'invoice'))
);
COMMENT ON COLUMN customer.email IS 'Where receipts go';
CREATE UNIQUE INDEX customer_email_lower ON customer (lower(email::text));
CREATE INDEX customer_email_prefix ON customer (email varchar_pattern_ops);
CREATE INDEX customer_nicknames ON customer USING gin (nicknames);
CREATE INDEX customer_recently_seen ON customer (seen_at DESC) WHERE seen_at IS NOT NULL;

CREATE TABLE product (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title varchar(120) NOT NULL,
    sku char(8) NOT NULL,
    price numeric(12,2) NOT NULL DEFAULT 0 CHECK (price >= 0),
    sale_price numeric(12,2),
    weight_kg numeric(8,3),
    CONSTRAINT product_sale_below_price CHECK (sale_price IS NULL OR sale_price < price),
    CONSTRAINT product_title_sku UNIQUE (title, sku)
);
CREATE INDEX product_title_search ON product USING hash (title);

CREATE TABLE "Order" (
    id integer PRIMARY KEY,
    customer_id integer NOT NULL REFERENCES customer (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    state order_state NOT NULL DEFAULT 'cart',
    placed_at timestamp(3) without time zone DEFAULT CURRENT_TIMESTAMP,
    number bigint NOT NULL DEFAULT nextval('order_number_seq'),
    ship_to char(2) REFERENCES country (code) ON DELETE SET NULL ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED,
    total numeric(12,2) NOT NULL DEFAULT 0,
    CHECK (total >= 0),
    CONSTRAINT "Order_placed_when_not_cart" CHECK (state = 'cart' OR placed_at IS NOT NULL)
);
CREATE INDEX "Order_customer_id_idx" ON "Order" (customer_id);
CREATE INDEX "Order_open" ON "Order" (placed_at) WHERE total > 0;
CREATE INDEX "Order_unshipped" ON "Order" (customer_id, placed_at) WHERE state <> 'shipped';

CREATE TABLE order_line (
    order_id integer NOT NULL REFERENCES "Order" (id) ON DELETE CASCADE,
    line_no smallint NOT NULL,
    product_id bigint NOT NULL REFERENCES product (id) ON DELETE RESTRICT,
    quantity integer NOT NULL DEFAULT 1 CHECK (quantity > 0),
    unit_price numeric(12,2) NOT NULL,
    PRIMARY KEY (order_id, line_no)
);

CREATE TABLE "PromoCode" (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    "productId" bigint NOT NULL REFERENCES product (id) ON DELETE CASCADE ON UPDATE CASCADE,
    "validFrom" date NOT NULL DEFAULT CURRENT_DATE,
    "validUntil" date,
    "percentOff" smallint NOT NULL,
    CONSTRAINT "PromoCode_window" CHECK ("validUntil" IS NULL OR "validUntil" >= "validFrom")
);
CREATE UNIQUE INDEX "PromoCode_productId_validFrom_key" ON "PromoCode" ("productId", "validFrom");
COMMENT ON COLUMN "PromoCode"."percentOff" IS 'Whole percent, 1 to 100';

INSERT INTO schema_migrations (version, applied_at) VALUES ('20240101000000', '2024-01-01 00:00:00'), ('20240301120000', '2024-03-01 12:00:00');
INSERT INTO country (code, name, vat_rate) VALUES ('DE', 'Germany', 0.19), ('CH', 'Switzerland', 0.081);
INSERT INTO customer (email, country_code, born, joined_at, seen_at, confirmed_at, calls_from, calls_until, trial, last_ip, public_id,
                      nicknames, lucky_numbers, preferences, raw_signup, avatar, age, rating, lifetime_value, visits, points, pays_by)
    VALUES ('ida@example.com', 'DE', '1988-07-14', '2024-02-01 10:00:00+00', '2024-05-06 07:08:09.123', '2024-02-01 10:05:00+00',
            '08:30', '17:00', '14 days', '192.0.2.10', '00000000-0000-4000-8000-00000000000a', '{Ida,Id}', '{3,7}',
            '{"lang": "de"}', '{"via": "ad", "a": 1}', '\x00ff', 35, 4.5, 1234.5, 12, 300, 'invoice'),
           ('jo@example.com', 'CH', NULL, '2024-03-01 09:00:00+00', NULL, NULL, NULL, NULL, DEFAULT, NULL,
            '00000000-0000-4000-8000-00000000000b', '{}', NULL, '{}', NULL, NULL, NULL, NULL, 0, 0, 0, 'card');
INSERT INTO product (title, sku, price, sale_price, weight_kg) VALUES ('Kettle', 'KET00001', 49.90, 39.90, 1.250), ('Teapot', 'POT00001', 1234567.89, NULL, 0.800);
INSERT INTO "Order" (id, customer_id, state, placed_at, ship_to, total) VALUES (1, 1, 'placed', '2024-05-01 12:00:00.250', 'DE', 89.80), (2, 2, 'cart', NULL, NULL, 0);
INSERT INTO order_line (order_id, line_no, product_id, quantity, unit_price) VALUES (1, 1, 1, 2, 44.90), (1, 2, 2, 1, 0.00);
INSERT INTO "PromoCode" (id, "productId", "validFrom", "validUntil", "percentOff") VALUES ('00000000-0000-4000-8000-0000000000c1', 1, '2024-06-01', '2024-06-30', 10);
RESET search_path;
