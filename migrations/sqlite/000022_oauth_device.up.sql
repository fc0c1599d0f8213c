-- Device authorizations (RFC 8628; server.DeviceStore): a device shows
-- the person a user code, which they consent to on the web UI, while the
-- device polls with its device code. The device code is kept as its
-- SHA-256 hash (hex); once approved, code_hash is the hash of the
-- authorization code of the session the consent started, which the
-- device's next poll exchanges. Times are Unix microseconds (UTC);
-- interval_us is the least time between two polls.

CREATE TABLE oauth_device_authorizations (
    device_code_hash TEXT    NOT NULL PRIMARY KEY,
    user_code        TEXT    NOT NULL UNIQUE,
    client_id        TEXT    NOT NULL,
    client_name      TEXT    NOT NULL,
    resource         TEXT    NOT NULL,
    created_at       INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL,
    interval_us      INTEGER NOT NULL,
    last_polled_at   INTEGER NOT NULL DEFAULT 0,
    state            TEXT    NOT NULL DEFAULT 'pending'
                     CHECK (state IN ('pending', 'approved', 'denied', 'taken')),
    code_hash        TEXT    NOT NULL DEFAULT ''
) STRICT, WITHOUT ROWID;

CREATE INDEX oauth_device_authorizations_expiry ON oauth_device_authorizations (expires_at);
