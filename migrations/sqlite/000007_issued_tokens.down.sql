DROP TABLE issued_tokens;
