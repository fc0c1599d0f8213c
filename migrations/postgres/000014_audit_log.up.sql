-- The append-only audit log (server.AuditLog): one hash chain per
-- repository (chain = its slug) and one for the server (chain = '').
-- Each entry's hash is sha256(prev || int8send(seq) || body), body the
-- record's JSON as hashed (bytea: its bytes are kept exactly); prev is the
-- hash of the entry before (empty for a chain's first). audit_heads holds
-- each chain's last entry: audit_append locks it (SELECT ... FOR UPDATE)
-- until the writing transaction ends, so appends to one chain from
-- several servers are serialised, and moves it. Checkpoints are heads
-- signed with the server's Ed25519 key.

CREATE TABLE audit_log (
    chain   text        NOT NULL COLLATE "C",
    seq     bigint      NOT NULL,
    at      timestamptz NOT NULL,
    subject text        NOT NULL,
    prev    bytea       NOT NULL,
    hash    bytea       NOT NULL,
    body    bytea       NOT NULL,
    PRIMARY KEY (chain, seq)
);

CREATE TABLE audit_heads (
    chain text   NOT NULL COLLATE "C" PRIMARY KEY,
    seq   bigint NOT NULL,
    prev  bytea  NOT NULL,
    hash  bytea  NOT NULL
);

CREATE TABLE audit_checkpoints (
    chain     text        NOT NULL COLLATE "C",
    seq       bigint      NOT NULL,
    hash      bytea       NOT NULL,
    at        timestamptz NOT NULL,
    key_id    text        NOT NULL,
    signature bytea       NOT NULL,
    PRIMARY KEY (chain, seq)
);

-- audit_append appends records to one chain, in order: the bodies, their
-- times and their actors' subjects, one array element per record. A
-- group of writes appends all of its records in one statement.
CREATE FUNCTION audit_append(p_chain text, p_bodies bytea[], p_at timestamptz[], p_subjects text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    h_seq  bigint;
    h_prev bytea;
    h_hash bytea;
    n      bytea;
BEGIN
    SELECT seq, prev, hash INTO h_seq, h_prev, h_hash FROM audit_heads WHERE chain = p_chain FOR UPDATE;
    IF NOT FOUND THEN -- the chain's first append: a concurrent one waits on the key, then finds the row
        INSERT INTO audit_heads (chain, seq, prev, hash) VALUES (p_chain, 0, '', '') ON CONFLICT (chain) DO NOTHING;
        SELECT seq, prev, hash INTO h_seq, h_prev, h_hash FROM audit_heads WHERE chain = p_chain FOR UPDATE;
    END IF;
    FOR i IN 1 .. coalesce(array_length(p_bodies, 1), 0) LOOP
        h_seq := h_seq + 1;
        n := sha256(h_hash || int8send(h_seq) || p_bodies[i]);
        INSERT INTO audit_log (chain, seq, at, subject, prev, hash, body)
            VALUES (p_chain, h_seq, p_at[i], p_subjects[i], h_hash, n, p_bodies[i]);
        h_prev := h_hash;
        h_hash := n;
    END LOOP;
    UPDATE audit_heads SET seq = h_seq, prev = h_prev, hash = h_hash WHERE chain = p_chain;
END
$$;
