DROP TABLE revoked_subjects;
DROP TABLE revoked_tokens;
