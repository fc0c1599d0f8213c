DROP TABLE audit_checkpoints;
DROP TABLE audit_heads;
DROP INDEX audit_log_at;
DROP TABLE audit_log;
