-- A Hibernate application's schema as `hbm2ddl` writes it for PostgreSQL (written for
-- TenantMigrator's tests): int8 ids given by the application from a sequence per entity with
-- INCREMENT 50 (the pooled optimizer), one of them also the column's default for inserts made by
-- hand, and hibernate_sequence for an older entity; varchar(255) strings, int4 versions,
-- timestamp(6), numeric(38,2), an enum as varchar(255) with a check, constraints named UK… and FK…,
-- foreign keys without indexes, a join table with a composite primary key and no index, and an
-- entity with an embedded composite key. The schema is named jpa_app.
create schema jpa_app;
set search_path = jpa_app;

create sequence hibernate_sequence start 1 increment 1;
create sequence publisher_seq start 1 increment 50;
create sequence title_seq start 1 increment 50;
create sequence genre_seq start 1 increment 50;
create sequence reader_seq start 1 increment 50;

create table publisher (id int8 not null, city varchar(255), founded date, name varchar(255) not null, version int4 not null, primary key (id));
create table title (id int8 not null, isbn varchar(255), list_price numeric(38,2), published_at timestamp(6), rating float8, status varchar(255) not null check (status in ('DRAFT','PUBLISHED','RETIRED')), subtitle varchar(255), title varchar(255) not null, version int4 not null, publisher_id int8, primary key (id));
create table genre (id int8 not null, label varchar(255) not null, primary key (id));
create table title_genres (title_id int8 not null, genre_id int8 not null, primary key (title_id, genre_id));
create table reader (id int8 not null default nextval('reader_seq'), active bool not null, email varchar(255) not null, joined_at timestamp(6), primary key (id));
create table review_note (id int8 not null, body text, created_at timestamp(6), reader_id int8 not null, title_id int8 not null, primary key (id));
create table loan (reader_id int8 not null, title_id int8 not null, lent_on date not null, returned_on date, primary key (reader_id, title_id));

alter table if exists publisher add constraint UK_h3kqf2n8w1c5v7b9d0e4g6ts unique (name);
alter table if exists title add constraint UK_9p0wq2e4r6t8y1u3i5o7a9sd unique (isbn);
alter table if exists reader add constraint UK_m2n4b6v8c0x1z3l5k7j9h1gf unique (email);
alter table if exists title add constraint FK6d8b0f2h4j6l8n0p2r4t6v8x foreign key (publisher_id) references publisher;
alter table if exists title_genres add constraint FKa1c3e5g7i9k1m3o5q7s9u1w3 foreign key (genre_id) references genre;
alter table if exists title_genres add constraint FKb2d4f6h8j0l2n4p6r8t0v2x4 foreign key (title_id) references title;
alter table if exists review_note add constraint FKc3e5g7i9k1m3o5q7s9u1w3y5 foreign key (reader_id) references reader;
alter table if exists review_note add constraint FKd4f6h8j0l2n4p6r8t0v2x4z6 foreign key (title_id) references title;
alter table if exists loan add constraint FKe5g7i9k1m3o5q7s9u1w3y5a7 foreign key (reader_id) references reader;
alter table if exists loan add constraint FKf6h8j0l2n4p6r8t0v2x4z6b8 foreign key (title_id) references title;

insert into publisher (id, city, name, version) values (1, 'Leiden', 'Brill & Sons', 0), (51, NULL, 'Northwind', 2);
insert into title (id, isbn, list_price, status, title, version, publisher_id) values (1, '978-1-00-000002-2', 49.00, 'PUBLISHED', 'On Lichens', 1, 1), (2, NULL, NULL, 'DRAFT', 'Untitled', 0, NULL);
insert into genre (id, label) values (1, 'Botany'), (2, 'Reference');
insert into title_genres (title_id, genre_id) values (1, 1), (1, 2);
insert into reader (active, email) values (true, 'jan@example.org');
insert into review_note (id, body, reader_id, title_id) values (1, 'Thorough.', 1, 1);
insert into loan (reader_id, title_id, lent_on) values (1, 1, '2024-02-01');
reset search_path;
