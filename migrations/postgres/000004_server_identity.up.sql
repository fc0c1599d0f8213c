-- The server's identity: one row, made once when the database is created or
-- migrated to this version, and kept; every replica sharing the database
-- reads the same. Agents key their journals by it, so that one server
-- reached by another URL keeps its clients' journals and a different
-- database is a different history. 32 lowercase hex digits (a random
-- UUID without its dashes).

CREATE TABLE server_identity (
    only_row   boolean     NOT NULL PRIMARY KEY DEFAULT true CHECK (only_row),
    id         text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO server_identity (id) VALUES (replace(gen_random_uuid()::text, '-', ''));
