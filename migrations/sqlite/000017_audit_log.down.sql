DROP TABLE audit_checkpoints;
DROP TABLE audit_heads;
DROP TABLE audit_log;
