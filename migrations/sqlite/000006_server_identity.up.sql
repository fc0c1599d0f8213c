-- The server's identity: one row, made once when the database is created or
-- migrated to this version, and kept. Agents key their journals by it, so
-- that one server reached by another URL keeps its clients' journals and a
-- different database is a different history. 32 lowercase hex digits (128
-- random bits); created_at in Unix microseconds (UTC).

CREATE TABLE server_identity (
    only_row   INTEGER NOT NULL PRIMARY KEY CHECK (only_row = 1),
    id         TEXT    NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

INSERT INTO server_identity (only_row, id, created_at)
VALUES (1, lower(hex(randomblob(16))), CAST(strftime('%s', 'now') AS INTEGER) * 1000000);
