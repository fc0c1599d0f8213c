ALTER TABLE versions DROP COLUMN head_commit;
ALTER TABLE versions DROP COLUMN machine;
ALTER TABLE versions DROP COLUMN client;
ALTER TABLE versions DROP COLUMN surface;
ALTER TABLE versions DROP COLUMN credential;
ALTER TABLE versions DROP COLUMN display_name;
