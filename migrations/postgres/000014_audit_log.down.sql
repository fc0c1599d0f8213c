DROP FUNCTION audit_append(text, bytea[], timestamptz[], text[]);
DROP TABLE audit_checkpoints;
DROP TABLE audit_heads;
DROP TABLE audit_log;
