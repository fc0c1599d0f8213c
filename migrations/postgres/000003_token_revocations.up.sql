-- Token revocations (teammem-server token revoke). A token is refused when
-- its id (the jti claim) is in revoked_tokens, or when its subject is in
-- revoked_subjects and it was issued (the iat claim) before issued_before.
-- Rows are only added (a subject's issued_before only moves later): teammem
-- never undoes a revocation. Every replica reads both tables whole at most
-- once per --revocation-refresh, so all of them honour a revocation within
-- that bound.

CREATE TABLE revoked_tokens (
    token_id   text COLLATE "C" NOT NULL PRIMARY KEY,
    revoked_at timestamptz      NOT NULL
);

CREATE TABLE revoked_subjects (
    subject       text COLLATE "C" NOT NULL PRIMARY KEY,
    issued_before timestamptz      NOT NULL,
    revoked_at    timestamptz      NOT NULL
);
