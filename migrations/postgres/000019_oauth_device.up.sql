-- Device authorizations (RFC 8628; server.DeviceStore), shared by every
-- replica: a device shows the person a user code, which they consent to
-- on the web UI, while the device polls with its device code. The device
-- code is kept as its SHA-256 hash (hex); once approved, code_hash is the
-- hash of the authorization code of the session the consent started,
-- which the device's next poll exchanges. interval_us is the least time
-- between two polls, in microseconds.

CREATE TABLE oauth_device_authorizations (
    device_code_hash text COLLATE "C" NOT NULL PRIMARY KEY,
    user_code        text COLLATE "C" NOT NULL UNIQUE,
    client_id        text             NOT NULL,
    client_name      text             NOT NULL,
    resource         text             NOT NULL,
    created_at       timestamptz      NOT NULL,
    expires_at       timestamptz      NOT NULL,
    interval_us      bigint           NOT NULL,
    last_polled_at   timestamptz,
    state            text             NOT NULL DEFAULT 'pending'
                     CHECK (state IN ('pending', 'approved', 'denied', 'taken')),
    code_hash        text COLLATE "C" NOT NULL DEFAULT ''
);

CREATE INDEX oauth_device_authorizations_expiry ON oauth_device_authorizations (expires_at);
