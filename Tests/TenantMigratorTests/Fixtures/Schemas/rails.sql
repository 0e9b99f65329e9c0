-- A Rails 7 application's schema as `db/structure.sql` holds it (written for TenantMigrator's tests):
-- bigserial ids (a bigint column, a sequence it owns, nextval as its default), timestamp(6)
-- created_at/updated_at NOT NULL, Rails' own schema_migrations and ar_internal_metadata, unique
-- indexes rather than unique constraints, indexes named index_<table>_on_<columns>, foreign keys
-- named fk_rails_<10 hex digits> without ON DELETE, and Active Storage's tables with a polymorphic
-- record. The schema is named rails_app.
CREATE SCHEMA rails_app;

CREATE TABLE rails_app.ar_internal_metadata (
    key character varying NOT NULL,
    value character varying,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL
);
ALTER TABLE ONLY rails_app.ar_internal_metadata ADD CONSTRAINT ar_internal_metadata_pkey PRIMARY KEY (key);

CREATE TABLE rails_app.schema_migrations (
    version character varying NOT NULL
);
ALTER TABLE ONLY rails_app.schema_migrations ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);

CREATE TABLE rails_app.branches (
    id bigint NOT NULL,
    name character varying NOT NULL,
    slug character varying NOT NULL,
    opening_hours jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL
);
CREATE SEQUENCE rails_app.branches_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE rails_app.branches_id_seq OWNED BY rails_app.branches.id;
ALTER TABLE ONLY rails_app.branches ALTER COLUMN id SET DEFAULT nextval('rails_app.branches_id_seq'::regclass);
ALTER TABLE ONLY rails_app.branches ADD CONSTRAINT branches_pkey PRIMARY KEY (id);

CREATE TABLE rails_app.volumes (
    id bigint NOT NULL,
    branch_id bigint NOT NULL,
    title character varying NOT NULL,
    isbn character varying,
    price numeric(10,2),
    published_on date,
    page_count integer DEFAULT 0 NOT NULL,
    lendable boolean DEFAULT true NOT NULL,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL
);
CREATE SEQUENCE rails_app.volumes_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE rails_app.volumes_id_seq OWNED BY rails_app.volumes.id;
ALTER TABLE ONLY rails_app.volumes ALTER COLUMN id SET DEFAULT nextval('rails_app.volumes_id_seq'::regclass);
ALTER TABLE ONLY rails_app.volumes ADD CONSTRAINT volumes_pkey PRIMARY KEY (id);

CREATE TABLE rails_app.patrons (
    id bigint NOT NULL,
    email character varying DEFAULT ''::character varying NOT NULL,
    encrypted_password character varying DEFAULT ''::character varying NOT NULL,
    reset_password_token character varying,
    sign_in_count integer DEFAULT 0 NOT NULL,
    last_sign_in_at timestamp(6) without time zone,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL
);
CREATE SEQUENCE rails_app.patrons_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE rails_app.patrons_id_seq OWNED BY rails_app.patrons.id;
ALTER TABLE ONLY rails_app.patrons ALTER COLUMN id SET DEFAULT nextval('rails_app.patrons_id_seq'::regclass);
ALTER TABLE ONLY rails_app.patrons ADD CONSTRAINT patrons_pkey PRIMARY KEY (id);

CREATE TABLE rails_app.checkouts (
    id bigint NOT NULL,
    volume_id bigint NOT NULL,
    patron_id bigint NOT NULL,
    due_on date NOT NULL,
    returned_at timestamp(6) without time zone,
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL
);
CREATE SEQUENCE rails_app.checkouts_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE rails_app.checkouts_id_seq OWNED BY rails_app.checkouts.id;
ALTER TABLE ONLY rails_app.checkouts ALTER COLUMN id SET DEFAULT nextval('rails_app.checkouts_id_seq'::regclass);
ALTER TABLE ONLY rails_app.checkouts ADD CONSTRAINT checkouts_pkey PRIMARY KEY (id);

CREATE TABLE rails_app.active_storage_blobs (
    id bigint NOT NULL,
    key character varying NOT NULL,
    filename character varying NOT NULL,
    content_type character varying,
    metadata text,
    service_name character varying NOT NULL,
    byte_size bigint NOT NULL,
    checksum character varying,
    created_at timestamp(6) without time zone NOT NULL
);
CREATE SEQUENCE rails_app.active_storage_blobs_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE rails_app.active_storage_blobs_id_seq OWNED BY rails_app.active_storage_blobs.id;
ALTER TABLE ONLY rails_app.active_storage_blobs ALTER COLUMN id SET DEFAULT nextval('rails_app.active_storage_blobs_id_seq'::regclass);
ALTER TABLE ONLY rails_app.active_storage_blobs ADD CONSTRAINT active_storage_blobs_pkey PRIMARY KEY (id);

CREATE TABLE rails_app.active_storage_attachments (
    id bigint NOT NULL,
    name character varying NOT NULL,
    record_type character varying NOT NULL,
    record_id bigint NOT NULL,
    blob_id bigint NOT NULL,
    created_at timestamp(6) without time zone NOT NULL
);
CREATE SEQUENCE rails_app.active_storage_attachments_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE rails_app.active_storage_attachments_id_seq OWNED BY rails_app.active_storage_attachments.id;
ALTER TABLE ONLY rails_app.active_storage_attachments ALTER COLUMN id SET DEFAULT nextval('rails_app.active_storage_attachments_id_seq'::regclass);
ALTER TABLE ONLY rails_app.active_storage_attachments ADD CONSTRAINT active_storage_attachments_pkey PRIMARY KEY (id);

CREATE UNIQUE INDEX index_branches_on_slug ON rails_app.branches USING btree (slug);
CREATE INDEX index_volumes_on_branch_id ON rails_app.volumes USING btree (branch_id);
CREATE UNIQUE INDEX index_volumes_on_isbn ON rails_app.volumes USING btree (isbn);
CREATE INDEX index_volumes_on_branch_id_and_title ON rails_app.volumes USING btree (branch_id, title);
CREATE UNIQUE INDEX index_patrons_on_email ON rails_app.patrons USING btree (email);
CREATE UNIQUE INDEX index_patrons_on_reset_password_token ON rails_app.patrons USING btree (reset_password_token);
CREATE INDEX index_checkouts_on_volume_id ON rails_app.checkouts USING btree (volume_id);
CREATE INDEX index_checkouts_on_patron_id ON rails_app.checkouts USING btree (patron_id);
CREATE INDEX index_checkouts_on_due_on ON rails_app.checkouts USING btree (due_on) WHERE (returned_at IS NULL);
CREATE UNIQUE INDEX index_active_storage_blobs_on_key ON rails_app.active_storage_blobs USING btree (key);
CREATE INDEX index_active_storage_attachments_on_blob_id ON rails_app.active_storage_attachments USING btree (blob_id);
CREATE UNIQUE INDEX index_active_storage_attachments_uniqueness ON rails_app.active_storage_attachments USING btree (record_type, record_id, name, blob_id);

ALTER TABLE ONLY rails_app.volumes ADD CONSTRAINT fk_rails_0a1b2c3d4e FOREIGN KEY (branch_id) REFERENCES rails_app.branches(id);
ALTER TABLE ONLY rails_app.checkouts ADD CONSTRAINT fk_rails_5f6e7d8c9b FOREIGN KEY (volume_id) REFERENCES rails_app.volumes(id);
ALTER TABLE ONLY rails_app.checkouts ADD CONSTRAINT fk_rails_a9b8c7d6e5 FOREIGN KEY (patron_id) REFERENCES rails_app.patrons(id);
ALTER TABLE ONLY rails_app.active_storage_attachments ADD CONSTRAINT fk_rails_1e2d3c4b5a FOREIGN KEY (blob_id) REFERENCES rails_app.active_storage_blobs(id);

INSERT INTO rails_app.schema_migrations (version) VALUES ('20240301101500'), ('20240315093000'), ('20240402171200');
INSERT INTO rails_app.ar_internal_metadata (key, value, created_at, updated_at) VALUES ('environment', 'production', '2024-03-01 10:15:00.123456', '2024-03-01 10:15:00.123456');
INSERT INTO rails_app.branches (name, slug, created_at, updated_at) VALUES ('Old Town', 'old-town', now(), now()), ('Harbour', 'harbour', now(), now());
INSERT INTO rails_app.volumes (branch_id, title, isbn, price, published_on, created_at, updated_at)
    VALUES (1, 'A Field Guide to Moss', '978-0-00-000001-1', 24.90, '2019-05-01', now(), now()), (2, 'Tide Tables 2024', NULL, NULL, NULL, now(), now());
INSERT INTO rails_app.patrons (email, sign_in_count, created_at, updated_at) VALUES ('ines@example.org', 3, now(), now());
INSERT INTO rails_app.checkouts (volume_id, patron_id, due_on, created_at, updated_at) VALUES (1, 1, '2024-04-20', now(), now());
